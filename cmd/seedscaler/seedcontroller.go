package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/objectlock"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/seedmanagement/managedseed"
	"github.com/seedscaler/seedscaler/seedmanagement/seed"
)

// seedControllerOptions are the flags of `seedscaler seed-controller`.
type seedControllerOptions struct {
	app.Options
	replicas             objectlock.Replicas
	defaultSeedCapacity  string
	heartbeatGracePeriod time.Duration
}

func seedControllerCommand() *cobra.Command {
	o := &seedControllerOptions{}
	cmd := &cobra.Command{
		Use:   "seed-controller",
		Short: "Register the Seeds of ManagedSeeds with their capacity, and keep every seed's GardenletReady and usage",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSeedController(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	o.AddFlags(fs, 8082, 8083)
	o.replicas.AddFlags(fs)
	fs.StringVar(&o.defaultSeedCapacity, "default-seed-capacity", fmt.Sprint(managedseed.DefaultShootCapacity),
		"Capacity of a seed whose ManagedSeed configures none (a seedTemplate, or a gardenlet config without resources): "+
			"a number of shoots, or name=quantity pairs such as shoots=250,persistent-volumes=200. It also fills resources a configuration lacks.")
	fs.DurationVar(&o.heartbeatGracePeriod, "heartbeat-grace-period", seed.DefaultHeartbeatGracePeriod,
		"How long after its last renewal a seed's heartbeat Lease counts as fresh; GardenletReady turns Unknown after it.")
	return cmd
}

func runSeedController(ctx context.Context, o *seedControllerOptions) error {
	defaults, err := managedseed.ParseDefaultCapacity(o.defaultSeedCapacity)
	if err != nil {
		return fmt.Errorf("--default-seed-capacity: %w", err)
	}
	if o.heartbeatGracePeriod <= 0 {
		return fmt.Errorf("--heartbeat-grace-period must be positive, not %s", o.heartbeatGracePeriod)
	}
	if err := o.replicas.Validate(o.LeaderElect); err != nil {
		return err
	}
	cfg, err := o.RESTConfig()
	if err != nil {
		return err
	}
	mgr, err := o.NewManager("seed-controller", cfg, func(opts *manager.Options) {
		opts.Cache.ByObject = seed.CacheByObject()
	})
	if err != nil {
		return err
	}
	// One index for both controllers: the lifecycle controller feeds it from its shoot
	// watch, the ManagedSeed controller reads it before deleting a seed.
	shootsPerSeed := usage.NewIndex()
	if err := (&seed.Reconciler{Usage: shootsPerSeed, GracePeriod: o.heartbeatGracePeriod, Replicas: &o.replicas}).AddToManager(mgr); err != nil {
		return fmt.Errorf("adding the seed lifecycle controller: %w", err)
	}
	if err := (&managedseed.Reconciler{Usage: shootsPerSeed, DefaultResources: defaults, Replicas: &o.replicas}).AddToManager(ctx, mgr); err != nil {
		return fmt.Errorf("adding the ManagedSeed controller: %w", err)
	}
	return mgr.Start(ctx)
}
