package autoscaler

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/app"
)

// Run runs the SeedAutoscaler controller until ctx ends.
func Run(ctx context.Context, o *Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	cfg, err := o.RESTConfig()
	if err != nil {
		return err
	}
	if err := app.RequireKinds(cfg, "autoscaler",
		autoscalingv1alpha1.GroupVersion.WithKind("SeedAutoscaler"),
		seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet"),
		seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeed"),
		gardencorev1beta1.GroupVersion.WithKind("Seed"),
		gardencorev1beta1.GroupVersion.WithKind("Shoot")); err != nil {
		return err
	}
	mgr, err := o.NewManager("autoscaler", cfg, func(opts *manager.Options) { CacheOptions(&opts.Cache) })
	if err != nil {
		return err
	}
	r := &Reconciler{SyncPeriod: o.SyncPeriod, MetricMaxAge: o.MetricMaxAge, DryRun: o.DryRun, Replicas: &o.Replicas, ReactToSamples: o.ReactToSamples}
	if err := r.AddToManager(ctx, mgr); err != nil {
		return fmt.Errorf("adding the SeedAutoscaler controller: %w", err)
	}
	return mgr.Start(ctx)
}
