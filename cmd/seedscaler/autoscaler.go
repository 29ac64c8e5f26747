package main

import (
	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/seedscaler/seedscaler/autoscaler"
)

func autoscalerCommand() *cobra.Command {
	o := autoscaler.NewOptions()
	cmd := &cobra.Command{
		Use:   "autoscaler",
		Short: "Scale ManagedSeedSets (anything with a scale subresource) with SeedAutoscalers, from metrics served by the adapter",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			metricsPathGC("autoscaler")
			return autoscaler.Run(logr.NewContext(cmd.Context(), ctrl.Log), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}
