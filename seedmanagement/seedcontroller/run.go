package seedcontroller

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/seedmanagement/managedseed"
	"github.com/seedscaler/seedscaler/seedmanagement/seed"
)

// Run runs both controllers until ctx ends.
func Run(ctx context.Context, o *Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	defaults, err := managedseed.ParseDefaultCapacity(o.DefaultSeedCapacity)
	if err != nil {
		return fmt.Errorf("--default-seed-capacity: %w", err)
	}
	cfg, err := o.RESTConfig()
	if err != nil {
		return err
	}
	if err := app.RequireKinds(cfg, "seed controller",
		seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeed"),
		gardencorev1beta1.GroupVersion.WithKind("Seed"),
		gardencorev1beta1.GroupVersion.WithKind("Shoot")); err != nil {
		return err
	}
	mgr, err := o.NewManager("seed-controller", cfg, func(opts *manager.Options) {
		opts.Cache.ByObject = seed.CacheByObject()
		// Tenants' shoots only as far as the usage index reads them.
		usage.CacheShoots(&opts.Cache, usage.SlimShootsOutside(o.SeedManagementNamespaces))
	})
	if err != nil {
		return err
	}
	// One index for both controllers: the lifecycle controller feeds it from its shoot
	// watch, the ManagedSeed controller reads it before deleting a seed.
	shootsPerSeed := usage.NewIndex()
	if err := (&seed.Reconciler{Usage: shootsPerSeed, GracePeriod: o.HeartbeatGracePeriod, Replicas: &o.Replicas}).AddToManager(mgr); err != nil {
		return fmt.Errorf("adding the seed lifecycle controller: %w", err)
	}
	if err := (&managedseed.Reconciler{Usage: shootsPerSeed, DefaultResources: defaults, Replicas: &o.Replicas}).AddToManager(ctx, mgr); err != nil {
		return fmt.Errorf("adding the ManagedSeed controller: %w", err)
	}
	return mgr.Start(ctx)
}
