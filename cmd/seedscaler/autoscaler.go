package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/seedscaler/seedscaler/autoscaler"
	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/objectlock"
)

// autoscalerOptions are the flags of `seedscaler autoscaler`.
type autoscalerOptions struct {
	app.Options
	replicas     objectlock.Replicas
	syncPeriod   time.Duration
	metricMaxAge time.Duration
	dryRun       bool
}

func autoscalerCommand() *cobra.Command {
	o := &autoscalerOptions{}
	cmd := &cobra.Command{
		Use:   "autoscaler",
		Short: "Scale ManagedSeedSets (anything with a scale subresource) with SeedAutoscalers, from metrics served by the adapter",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			metricsPathGC("autoscaler")
			return runAutoscaler(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	o.AddFlags(fs, 8090, 8091)
	o.replicas.AddFlags(fs)
	fs.DurationVar(&o.syncPeriod, "sync-period", autoscaler.DefaultSyncPeriod,
		"How often every SeedAutoscaler is evaluated; changes of an autoscaler or its target are evaluated at once as well.")
	fs.DurationVar(&o.metricMaxAge, "metric-max-age", autoscaler.DefaultMetricMaxAge,
		"How old a metric sample may be and still count; older samples count as missing.")
	fs.BoolVar(&o.dryRun, "dry-run", false,
		"Compute and record recommendations in status and events, but never scale a target.")
	return cmd
}

func runAutoscaler(ctx context.Context, o *autoscalerOptions) error {
	if o.syncPeriod <= 0 {
		return fmt.Errorf("--sync-period must be positive, not %s", o.syncPeriod)
	}
	if o.metricMaxAge <= 0 {
		return fmt.Errorf("--metric-max-age must be positive, not %s", o.metricMaxAge)
	}
	if err := o.replicas.Validate(o.LeaderElect); err != nil {
		return err
	}
	cfg, err := o.RESTConfig()
	if err != nil {
		return err
	}
	mgr, err := o.NewManager("autoscaler", cfg, nil)
	if err != nil {
		return err
	}
	r := &autoscaler.Reconciler{SyncPeriod: o.syncPeriod, MetricMaxAge: o.metricMaxAge, DryRun: o.dryRun, Replicas: &o.replicas}
	if err := r.AddToManager(ctx, mgr); err != nil {
		return fmt.Errorf("adding the SeedAutoscaler controller: %w", err)
	}
	return mgr.Start(ctx)
}
