package scheduler

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/controller"
	"github.com/seedscaler/seedscaler/scheduler/drain"
)

// Run loads the configuration file and schedules shoots, and serves the check of manual
// bindings when its port is set, until ctx ends.
func Run(ctx context.Context, o *Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	cfg, err := config.Load(o.ConfigPath)
	if err != nil {
		return err
	}
	restConfig, err := o.RESTConfig()
	if err != nil {
		return err
	}
	if err := app.RequireKinds(restConfig, "scheduler",
		gardencorev1beta1.GroupVersion.WithKind("Shoot"),
		gardencorev1beta1.GroupVersion.WithKind("Seed"),
		gardencorev1beta1.GroupVersion.WithKind("CloudProfile"),
		gardencorev1beta1.GroupVersion.WithKind("NamespacedCloudProfile"),
		seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeed"),
		seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet")); err != nil {
		return err
	}
	mgr, err := o.NewManager("scheduler", restConfig, func(mo *manager.Options) {
		controller.CacheOptions(cfg)(mo)
		o.Webhook.ManagerOptions(mo)
	})
	if err != nil {
		return err
	}
	ctx = logr.NewContext(ctx, mgr.GetLogger().WithName(controller.Name))
	scheduler := &controller.Reconciler{Config: cfg, EventQPS: o.EventQPS, EventBurst: o.EventBurst}
	if err := scheduler.AddToManager(ctx, mgr, ctrlmetrics.Registry); err != nil {
		return fmt.Errorf("adding the scheduler: %w", err)
	}
	if err := (&drain.Reconciler{}).AddToManager(ctx, mgr, scheduler); err != nil {
		return fmt.Errorf("adding the drain of seeds: %w", err)
	}
	if err := o.Webhook.AddToManager(mgr, scheduler); err != nil {
		return fmt.Errorf("adding the binding webhook: %w", err)
	}
	return mgr.Start(ctx)
}
