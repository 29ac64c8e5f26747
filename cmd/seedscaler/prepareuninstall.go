package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/autoscaler"
	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/scheme"
	"github.com/seedscaler/seedscaler/internal/uninstall"
	"github.com/seedscaler/seedscaler/seedmanagement/managedseed"
	"github.com/seedscaler/seedscaler/seedmanagement/managedseedset"
	"github.com/seedscaler/seedscaler/seedmanagement/seed"
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

// prepareUninstallOptions are the flags of `seedscaler prepare-uninstall`.
type prepareUninstallOptions struct {
	kubeconfig     string
	namespace      string
	selector       string
	leaseNamespace string
	parts          []string
	timeout        time.Duration
}

func prepareUninstallCommand() *cobra.Command {
	o := &prepareUninstallOptions{}
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
			p, err := o.preparer(releaseParts())
			if err != nil {
				return err
			}
			return p.Run(logr.NewContext(cmd.Context(), ctrl.Log.WithName("prepare-uninstall")))
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "Path of a kubeconfig. Empty: $KUBECONFIG, then the in-cluster configuration.")
	fs.StringVar(&o.namespace, "namespace", os.Getenv("POD_NAMESPACE"), "Namespace of the release: its Deployments and their pods; $POD_NAMESPACE by default.")
	fs.StringVar(&o.selector, "selector", "", "Label selector of the release's Deployments, e.g. app.kubernetes.io/instance=seedscaler,app.kubernetes.io/name=seedscaler; required.")
	fs.StringVar(&o.leaseNamespace, "lease-namespace", "", "Namespace of the parts' leader election and object lock Leases; --namespace when empty.")
	fs.StringSliceVar(&o.parts, "parts", nil, "The release's parts, whose Leases are deleted: "+strings.Join(slices.Sorted(maps.Keys(releaseParts())), ", ")+".")
	fs.DurationVar(&o.timeout, "timeout", 2*time.Minute, "How long to wait for the release's pods to stop.")
	return cmd
}

func (o *prepareUninstallOptions) preparer(known map[string]uninstall.Part) (*uninstall.Preparer, error) {
	if o.namespace == "" {
		return nil, errors.New("--namespace is required (or $POD_NAMESPACE): the namespace of the release")
	}
	if strings.TrimSpace(o.selector) == "" {
		return nil, errors.New("--selector is required: without it every Deployment of the namespace would be scaled to 0")
	}
	selector, err := labels.Parse(o.selector)
	if err != nil {
		return nil, fmt.Errorf("--selector: %w", err)
	}
	if o.timeout <= 0 {
		return nil, fmt.Errorf("--timeout must be positive, e.g. 2m, not %s", o.timeout)
	}
	var parts []uninstall.Part
	for _, name := range o.parts {
		part, ok := known[name]
		if !ok {
			return nil, fmt.Errorf("--parts: unknown part %q; the parts are %s", name, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
		}
		part.Name = name
		parts = append(parts, part)
	}
	leaseNamespace := o.leaseNamespace
	if leaseNamespace == "" {
		leaseNamespace = o.namespace
	}
	cfg, err := (&app.Options{Kubeconfig: o.kubeconfig, QPS: 20, Burst: 40}).RESTConfig()
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, fmt.Errorf("creating the client: %w", err)
	}
	return &uninstall.Preparer{
		Client: c, Namespace: o.namespace, Selector: selector, LeaseNamespace: leaseNamespace,
		Parts: parts, Timeout: o.timeout,
	}, nil
}
