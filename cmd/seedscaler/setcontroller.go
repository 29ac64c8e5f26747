package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/objectlock"
	"github.com/seedscaler/seedscaler/seedmanagement/managedseedset"
)

// setControllerOptions are the flags of `seedscaler set-controller`.
type setControllerOptions struct {
	app.Options
	replicas objectlock.Replicas
	config   managedseedset.Config
}

func setControllerCommand() *cobra.Command {
	o := &setControllerOptions{config: managedseedset.DefaultConfig()}
	cmd := &cobra.Command{
		Use:   "set-controller",
		Short: "Keep ManagedSeedSets at their replicas: create, update and scale in their Shoots and ManagedSeeds",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSetController(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	o.AddFlags(fs, 8084, 8085)
	o.replicas.AddFlags(fs)
	fs.Int32Var(&o.config.MaxShootRetries, "max-shoot-retries", o.config.MaxShootRetries,
		"How often a replica's failed shoot is retried (gardener.cloud/operation=retry) before the set reports it and moves on.")
	fs.IntVar(&o.config.ConcurrentSyncs, "concurrent-syncs", o.config.ConcurrentSyncs, "Number of ManagedSeedSets reconciled at the same time.")
	fs.DurationVar(&o.config.InFlightResync, "in-flight-resync", o.config.InFlightResync,
		"How often a set with a replica in flight is looked at even without events; 0 disables it.")
	return cmd
}

func runSetController(ctx context.Context, o *setControllerOptions) error {
	if o.config.MaxShootRetries < 0 {
		return fmt.Errorf("--max-shoot-retries must not be negative, not %d", o.config.MaxShootRetries)
	}
	if o.config.ConcurrentSyncs < 1 {
		return fmt.Errorf("--concurrent-syncs must be at least 1, not %d", o.config.ConcurrentSyncs)
	}
	if err := o.replicas.Validate(o.LeaderElect); err != nil {
		return err
	}
	cfg, err := o.RESTConfig()
	if err != nil {
		return err
	}
	mgr, err := o.NewManager("set-controller", cfg, func(opts *manager.Options) {
		managedseedset.CacheOptions(&opts.Cache)
	})
	if err != nil {
		return err
	}
	if err := (&managedseedset.Reconciler{Config: o.config, Replicas: &o.replicas}).AddToManager(ctx, mgr); err != nil {
		return fmt.Errorf("adding the set controller: %w", err)
	}
	return mgr.Start(ctx)
}
