package main

import (
	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/seedscaler/seedscaler/autoscaler"
	"github.com/seedscaler/seedscaler/seedmanagement/managedseed"
	"github.com/seedscaler/seedscaler/seedmanagement/managedseedset"
	"github.com/seedscaler/seedscaler/seedmanagement/seed"
	"github.com/seedscaler/seedscaler/uninstall"
)

// releaseParts are the Leases each subcommand the chart deploys may take: its leader
// election Lease and the object locks of the controllers it runs.
func releaseParts() map[string]uninstall.Part {
	return map[string]uninstall.Part{
		"scheduler":       {LeaderElection: true},
		"seed-controller": {LeaderElection: true, LockControllers: []string{managedseed.ControllerName, seed.ControllerName}},
		"set-controller":  {LeaderElection: true, LockControllers: []string{managedseedset.ControllerName}},
		"autoscaler":      {LeaderElection: true, LockControllers: []string{autoscaler.ControllerName}},
		"exporter":        {},
		"adapter":         {},
	}
}

func prepareUninstallCommand() *cobra.Command {
	o := uninstall.NewOptions(releaseParts())
	cmd := &cobra.Command{
		Use:   "prepare-uninstall",
		Short: "Stop a release's parts and delete the Leases they leave, before helm uninstall deletes their RBAC",
		Long: `prepare-uninstall runs as the chart's pre-delete hook. It scales every Deployment of the
release (--selector in --namespace) to 0 through the scale subresource, waits up to --timeout
until none of their pods remains, so that every part releases its Leases while its RBAC
still exists, and then deletes the leader election Leases and object locks of --parts in
--lease-namespace, and no other Lease. ManagedSeeds, ManagedSeedSets, SeedAutoscalers and
their finalizers are left as they are. When pods remain after --timeout it fails and
deletes no Lease. See docs/deployment.md, "Uninstall".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return uninstall.Run(logr.NewContext(cmd.Context(), ctrl.Log), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}
