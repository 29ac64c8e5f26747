package exporter

import (
	"context"
	"fmt"
	"net/http"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/app"
)

// Run serves the garden_* metrics on /metrics of --metrics-bind-address until ctx ends,
// from informer caches: a scrape makes no API call. It logs with ctx's logger.
func Run(ctx context.Context, o *Options) error {
	log := logr.FromContextOrDiscard(ctx).WithName("exporter")
	ctx = logr.NewContext(ctx, log)
	if err := o.Validate(); err != nil {
		return err
	}
	if o.LeaderElect {
		log.Info("Ignoring --leader-elect: exporter replicas are stateless and all serve")
	}
	cfg, err := o.RESTConfig()
	if err != nil {
		return err
	}
	kinds := []schema.GroupVersionKind{
		gardencorev1beta1.GroupVersion.WithKind("Seed"), gardencorev1beta1.GroupVersion.WithKind("Shoot"),
		seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeed"), seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet"),
	}
	if o.SeedAutoscalers {
		kinds = append(kinds, autoscalingv1alpha1.GroupVersion.WithKind("SeedAutoscaler"))
	}
	if err := app.RequireKinds(cfg, "exporter", kinds...); err != nil {
		return err
	}
	mgr, err := o.NewManager("exporter", cfg, func(opts *manager.Options) {
		opts.LeaderElection = false
		// The exporter serves /metrics itself (Collector.Handler).
		opts.Metrics.BindAddress = "0"
	})
	if err != nil {
		return err
	}
	var opts []Option
	if !o.SeedAutoscalers {
		opts = append(opts, WithoutSeedAutoscalers())
	}
	exp, err := New(ctx, cfg, clock.RealClock{}, opts...)
	if err != nil {
		return err
	}
	// /metrics serves controller-runtime's registry (the collector, the client's and the
	// process's own metrics) and the per-shoot series from their pre-rendered lines.
	if err := ctrlmetrics.Registry.Register(exp.Collector()); err != nil {
		return fmt.Errorf("registering the exporter's collector: %w", err)
	}
	exp.Collector().SetShootInfo(o.ShootInfo)
	// Plain, or HTTPS for authorized scrapers only (--metrics-secure), as the managers serve.
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		done, err := app.StartMetrics(logr.NewContext(ctx, log), cfg, o.MetricsBindAddress, o.MetricsSecure, o.Profiling, exp.Collector().Handler(ctrlmetrics.Registry))
		if err != nil || done == nil {
			return err
		}
		return <-done
	})); err != nil {
		return err
	}
	if err := mgr.Add(manager.RunnableFunc(exp.Start)); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("informers-synced", func(*http.Request) error { return exp.Ready() }); err != nil {
		return err
	}
	return mgr.Start(ctx)
}
