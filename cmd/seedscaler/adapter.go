package main

import (
	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/seedscaler/seedscaler/adapter"
)

func adapterCommand() *cobra.Command {
	o := adapter.NewOptions()
	cmd := &cobra.Command{
		Use:   "adapter",
		Short: "Serve custom.metrics.k8s.io and external.metrics.k8s.io from Prometheus",
		Long: `adapter serves the custom and external metrics APIs through the kube-apiserver's
aggregation layer, answering from Prometheus by the rules of --config (the built-in rules
when empty: every garden_seed_* gauge per Seed, the scheduler's pending shoots per
ManagedSeedSet). Authentication and authorization are delegated to the kube-apiserver.
Replicas are stateless and all serve. See docs/adapter.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			metricsPathGC("adapter")
			return adapter.Run(logr.NewContext(cmd.Context(), ctrl.Log), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}
