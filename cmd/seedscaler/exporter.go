package main

import (
	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/seedscaler/seedscaler/exporter"
)

func exporterCommand() *cobra.Command {
	o := exporter.NewOptions()
	cmd := &cobra.Command{
		Use:   "exporter",
		Short: "Export seeds, shoots, ManagedSeedSets and SeedAutoscalers as Prometheus metrics",
		Long: `exporter serves the garden_* metrics of docs/metrics.md on /metrics of --metrics-bind-address,
from informer caches: a scrape makes no API call. Replicas are stateless and each serves the
same series, so --leader-elect is accepted for uniformity with the other parts but ignored.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return exporter.Run(logr.NewContext(cmd.Context(), ctrl.Log), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}
