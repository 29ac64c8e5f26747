package managedseedset

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// Run runs the set controller until ctx ends.
func Run(ctx context.Context, o *Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	cfg, err := o.RESTConfig()
	if err != nil {
		return err
	}
	if err := app.RequireKinds(cfg, "set controller",
		seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet"),
		seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeed"),
		gardencorev1beta1.GroupVersion.WithKind("Seed"),
		gardencorev1beta1.GroupVersion.WithKind("Shoot")); err != nil {
		return err
	}
	mgr, err := o.NewManager("set-controller", cfg, func(opts *manager.Options) {
		CacheOptions(&opts.Cache)
		app.CacheInNamespaces(&opts.Cache, &appsv1.ControllerRevision{}, o.SeedManagementNamespaces)
		// Tenants' shoots only as far as the usage index reads them; the sets' own shoots whole.
		usage.CacheShoots(&opts.Cache, usage.SlimShootsOutside(o.SeedManagementNamespaces))
	})
	if err != nil {
		return err
	}
	if err := (&Reconciler{Config: o.Config, Replicas: &o.Replicas}).AddToManager(ctx, mgr); err != nil {
		return fmt.Errorf("adding the set controller: %w", err)
	}
	return mgr.Start(ctx)
}
