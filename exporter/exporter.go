// Package exporter exports the state of seeds, shoots, ManagedSeedSets and SeedAutoscalers
// as Prometheus metrics, from informer caches that keep only the fields it reads. The
// metric names are the contract with the adapter, the dashboards and the alerts
// (docs/metrics.md).
package exporter

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// The exporter only reads, and only through informers.
// +kubebuilder:rbac:groups=core.gardener.cloud,resources=seeds;shoots,verbs=get;list;watch
// +kubebuilder:rbac:groups=seedmanagement.gardener.cloud,resources=managedseeds;managedseedsets,verbs=get;list;watch
// +kubebuilder:rbac:groups=autoscaling.seedscaler.io,resources=seedautoscalers,verbs=get;list;watch

var (
	seedsResource           = gardencorev1beta1.GroupVersion.WithResource("seeds")
	shootsResource          = gardencorev1beta1.GroupVersion.WithResource("shoots")
	managedSeedsResource    = seedmanagementv1alpha1.GroupVersion.WithResource("managedseeds")
	managedSeedSetsResource = seedmanagementv1alpha1.GroupVersion.WithResource("managedseedsets")
	seedAutoscalersResource = autoscalingv1alpha1.GroupVersion.WithResource("seedautoscalers")
)

// ErrNotSynced is returned by Ready until the informer caches have synced.
var ErrNotSynced = errors.New("the exporter's informer caches have not synced yet")

// Exporter runs the informers the Collector reads and tells when they have synced.
type Exporter struct {
	collector *Collector
	factory   dynamicinformer.DynamicSharedInformerFactory
	synced    []toolscache.InformerSynced
	clock     clock.PassiveClock
	ready     atomic.Bool
}

// Option changes what New watches.
type Option func(*options)

type options struct {
	withoutSeedAutoscalers bool
}

// WithoutSeedAutoscalers watches no SeedAutoscalers and exports none of their series: for a
// cluster that does not serve autoscaling.seedscaler.io (installed with
// crds.autoscaling=false), where a watch of them would never sync and the exporter never
// become ready.
func WithoutSeedAutoscalers() Option {
	return func(o *options) { o.withoutSeedAutoscalers = true }
}

// New sets up the informers (started by Start) and the collector over them. It logs with
// the logger in ctx; clk stamps the last cache sync and times shoots' waits for a seed.
func New(ctx context.Context, cfg *rest.Config, clk clock.PassiveClock, opts ...Option) (*Exporter, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the exporter's dynamic client: %w", err)
	}
	e := &Exporter{
		factory: dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, metav1.NamespaceAll, nil),
		clock:   clk,
	}
	src := Sources{Usage: usage.NewIndex(), Shoots: newShootIndex()}
	type watched struct {
		resource  schema.GroupVersionResource
		transform toolscache.TransformFunc
		store     *toolscache.Store
		handlers  []toolscache.ResourceEventHandler
	}
	informers := []watched{
		{seedsResource, transformSeed, &src.Seeds, nil},
		{shootsResource, transformShoot, nil, []toolscache.ResourceEventHandler{usageHandler(src.Usage), src.Shoots.Handler()}},
		// A seed's set is its ManagedSeed's (membership.SetOfSeed).
		{managedSeedsResource, transformManagedSeed, &src.ManagedSeeds, nil},
		{managedSeedSetsResource, transformManagedSeedSet, &src.ManagedSeedSets, nil},
	}
	if o.withoutSeedAutoscalers {
		src.SeedAutoscalers = toolscache.NewStore(toolscache.MetaNamespaceKeyFunc)
	} else {
		informers = append(informers, watched{seedAutoscalersResource, transformSeedAutoscaler, &src.SeedAutoscalers, nil})
	}
	for _, inf := range informers {
		informer := e.factory.ForResource(inf.resource).Informer()
		if err := informer.SetTransform(inf.transform); err != nil {
			return nil, fmt.Errorf("setting the transform of the %s informer: %w", inf.resource.Resource, err)
		}
		e.synced = append(e.synced, informer.HasSynced)
		if inf.store != nil {
			*inf.store = informer.GetStore()
		}
		for _, h := range inf.handlers {
			reg, err := informer.AddEventHandler(h)
			if err != nil {
				return nil, fmt.Errorf("adding an event handler to the %s informer: %w", inf.resource.Resource, err)
			}
			e.synced = append(e.synced, reg.HasSynced)
		}
	}
	e.collector = NewCollector(src, logr.FromContextOrDiscard(ctx))
	// The factory hands out the one Shoot informer set up above. Its binding handler reads
	// the Seed and ManagedSeed caches through the collector.
	reg, err := e.factory.ForResource(shootsResource).Informer().AddEventHandler(e.collector.bindingHandler(clk))
	if err != nil {
		return nil, fmt.Errorf("adding the binding handler to the shoots informer: %w", err)
	}
	e.synced = append(e.synced, reg.HasSynced)
	return e, nil
}

// Collector returns the collector to register with a Prometheus registry.
func (e *Exporter) Collector() *Collector { return e.collector }

// Start runs the informers until ctx is done. Once they and the indexes fed by them have
// synced, Ready returns nil and garden_exporter_last_cache_sync_timestamp_seconds is set.
func (e *Exporter) Start(ctx context.Context) error {
	log := logr.FromContextOrDiscard(ctx)
	e.factory.Start(ctx.Done())
	defer e.factory.Shutdown()
	if !toolscache.WaitForCacheSync(ctx.Done(), e.synced...) {
		return nil // ctx is done
	}
	e.collector.MarkSynced(e.clock.Now())
	e.ready.Store(true)
	log.Info("Informer caches synced")
	<-ctx.Done()
	return nil
}

// Ready returns nil once the informer caches have synced, for a readiness probe.
func (e *Exporter) Ready() error {
	if !e.ready.Load() {
		return ErrNotSynced
	}
	return nil
}
