package controller

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/scheduler/capacity"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/plugins"
	"github.com/seedscaler/seedscaler/scheduler/region"
)

// Name is the controller's name: its events' reporting controller and its logger name.
const Name = "seedscaler-scheduler"

// CacheOptions limits the manager's ConfigMap cache to region configs in their namespace:
// the scheduler reads no other ConfigMaps and must not hold a landscape's worth of them.
// Bound shoots are cached as records (SlimBoundShoots).
func CacheOptions(cfg *config.SchedulerConfiguration) func(*manager.Options) {
	return func(o *manager.Options) {
		if o.Cache.ByObject == nil {
			o.Cache.ByObject = map[client.Object]cache.ByObject{}
		}
		usage.CacheShoots(&o.Cache, SlimBoundShoots)
		o.Cache.ByObject[&corev1.ConfigMap{}] = cache.ByObject{
			Label:      labels.SelectorFromSet(labels.Set{region.LabelPurpose: region.PurposeRegionConfig}),
			Namespaces: map[string]cache.Config{cfg.RegionConfigNamespace: {}},
		}
	}
}

// AddToManager registers the scheduler with a manager, filling in the dependencies the
// Reconciler leaves nil, and registers its metrics with reg.
func (r *Reconciler) AddToManager(ctx context.Context, mgr manager.Manager, reg prometheus.Registerer) error {
	if err := r.setDefaults(mgr); err != nil {
		return err
	}
	if err := r.addMetricsAndEvents(ctx, mgr, reg); err != nil {
		return err
	}
	if err := r.feedFromInformers(ctx, mgr); err != nil {
		return err
	}
	r.placer = r.newPlacer()
	return ctrl.NewControllerManagedBy(mgr).
		Named("scheduler").
		For(&gardencorev1beta1.Shoot{}, builder.WithPredicates(r.predicate())).
		// The shoots of new seeds go before tenants' (seedshootsfirst.go).
		Watches(&gardencorev1beta1.Shoot{}, seedShootsFirst(), builder.WithPredicates(r.predicate())).
		// Shoots waiting in backoff are tried again when a seed may take them (seedwatch.go).
		Watches(&gardencorev1beta1.Seed{}, r.retryWaitingOnSeeds()).
		WithOptions(controller.Options{MaxConcurrentReconciles: int(r.Config.Workers)}).
		Complete(r)
}

// setDefaults fills the dependencies the Reconciler leaves nil.
func (r *Reconciler) setDefaults(mgr manager.Manager) error {
	if r.Config == nil {
		return fmt.Errorf("the scheduler needs a configuration")
	}
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	if r.Profile == nil {
		p, err := plugins.NewProfile(r.Config)
		if err != nil {
			return err
		}
		r.Profile = p
	}
	if r.Ledger == nil {
		r.Ledger = capacity.NewLedger(usage.NewIndex())
	}
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	r.failures = map[string]int{}
	return nil
}

// addMetricsAndEvents registers the scheduler's metrics, the pending-shoots gauge among
// them, and creates the event recorder unless one is set.
func (r *Reconciler) addMetricsAndEvents(ctx context.Context, mgr manager.Manager, reg prometheus.Registerer) error {
	// The ManagedSeedSet informer starts with the manager, so the pending-shoots gauge can
	// list every set from the first scrape on.
	if _, err := mgr.GetCache().GetInformer(ctx, &seedmanagementv1alpha1.ManagedSeedSet{}); err != nil {
		return fmt.Errorf("getting the ManagedSeedSet informer: %w", err)
	}
	r.pending = newPendingFits(r.existingSets(mgr))
	m, err := newMetrics(reg, r.pending)
	if err != nil {
		return fmt.Errorf("registering the scheduler's metrics: %w", err)
	}
	r.metrics = m
	if r.Recorder == nil {
		recorder, err := app.NewEventRecorder(mgr, Name, app.EventRecorderOptions{
			QPS: r.EventQPS, Burst: r.EventBurst, Metrics: m.events,
		})
		if err != nil {
			return err
		}
		r.Recorder = recorder
	}
	return nil
}

// feedFromInformers keeps what a decision reads (the ledger, the seeds, the region
// configs) from informer events; the scheduler decides only once every handler has seen
// its informer's initial list (Synced).
func (r *Reconciler) feedFromInformers(ctx context.Context, mgr manager.Manager) error {
	r.seedSnapshot = newSeedSnapshot(r.Ledger)
	type feed struct {
		obj     client.Object
		handler toolscache.ResourceEventHandler
	}
	feeds := []feed{
		{&gardencorev1beta1.Shoot{}, r.Ledger.Handler()},
		{&gardencorev1beta1.Shoot{}, r.forgetPlacedShoots()},
		{&gardencorev1beta1.Seed{}, r.seedSnapshot.Handler()},
		// A drain annotation on a ManagedSeed cordons its seed.
		{&seedmanagementv1alpha1.ManagedSeed{}, r.seedSnapshot.managedSeedHandler()},
	}
	if r.Config.Strategy == config.MinimalDistance {
		r.regions = newRegionConfigs(r.Config.RegionConfigNamespace)
		feeds = append(feeds, feed{&corev1.ConfigMap{}, r.regions.Handler()})
	}
	var synced []func() bool
	for _, f := range feeds {
		informer, err := mgr.GetCache().GetInformer(ctx, f.obj)
		if err != nil {
			return fmt.Errorf("getting the %T informer: %w", f.obj, err)
		}
		registration, err := informer.AddEventHandler(f.handler)
		if err != nil {
			return fmt.Errorf("feeding the scheduler from the %T informer: %w", f.obj, err)
		}
		synced = append(synced, registration.HasSynced)
	}
	r.Synced = func() bool {
		for _, s := range synced {
			if !s() {
				return false
			}
		}
		return true
	}
	return nil
}

// existingSets lists the ManagedSeedSets from the manager's cache for the pending-shoots
// gauge, once this replica leads (only the leader evaluates pending shoots) and every
// informer the scheduler decides from has synced.
func (r *Reconciler) existingSets(mgr manager.Manager) func() ([]types.NamespacedName, bool) {
	return func() ([]types.NamespacedName, bool) {
		select {
		case <-mgr.Elected():
		default:
			return nil, false
		}
		if r.Synced == nil || !r.Synced() {
			return nil, false
		}
		list := &seedmanagementv1alpha1.ManagedSeedSetList{}
		if err := mgr.GetCache().List(context.Background(), list, client.UnsafeDisableDeepCopy); err != nil {
			return nil, false
		}
		sets := make([]types.NamespacedName, len(list.Items))
		for i := range list.Items {
			sets[i] = types.NamespacedName{Namespace: list.Items[i].Namespace, Name: list.Items[i].Name}
		}
		return sets, true
	}
}

// predicate lets through the shoots of this scheduler that may need a seed, and the
// moment a shoot gets one or goes away (to forget its backoff and pending-fit); of other
// schedulers' shoots, those that start or stop counting in pending-fit (PendingElsewhere)
// and the spec changes of those that count.
func (r *Reconciler) predicate() predicate.Funcs {
	mine := func(obj client.Object) bool {
		shoot, ok := obj.(*gardencorev1beta1.Shoot)
		return ok && Responsible(shoot, r.Config.SchedulerName)
	}
	unbound := func(obj client.Object) bool {
		shoot, ok := obj.(*gardencorev1beta1.Shoot)
		return ok && shoot.Spec.SeedName == nil
	}
	elsewhere := func(obj client.Object) bool {
		shoot, ok := obj.(*gardencorev1beta1.Shoot)
		return ok && r.pendingElsewhere(shoot)
	}
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return (mine(e.Object) && unbound(e.Object)) || elsewhere(e.Object) },
		// Not on status-only updates: the scheduler's own lastOperation patch must not
		// undo the backoff.
		UpdateFunc: func(e event.UpdateEvent) bool {
			if !mine(e.ObjectNew) {
				was, is := elsewhere(e.ObjectOld), elsewhere(e.ObjectNew)
				return was != is || (is && e.ObjectNew.GetGeneration() != e.ObjectOld.GetGeneration())
			}
			gotSeed := unbound(e.ObjectOld) && !unbound(e.ObjectNew)
			specChanged := unbound(e.ObjectNew) && e.ObjectNew.GetGeneration() != e.ObjectOld.GetGeneration()
			return gotSeed || specChanged || e.ObjectNew.GetDeletionTimestamp() != nil
		},
		DeleteFunc:  func(e event.DeleteEvent) bool { return mine(e.Object) || elsewhere(e.Object) },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// forgetPlacedShoots takes a shoot out of pending-fit the moment the informer shows it bound,
// being deleted or gone (StopsWaiting), rather than when the work queue gets to it: a shoot
// another scheduler binds would otherwise count until a queue full of unschedulable shoots
// let its turn come.
func (r *Reconciler) forgetPlacedShoots() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj any) {
			old, ok1 := oldObj.(*gardencorev1beta1.Shoot)
			cur, ok2 := newObj.(*gardencorev1beta1.Shoot)
			if ok1 && ok2 && StopsWaiting(old, cur) {
				r.forget(usage.Key(cur))
			}
		},
		DeleteFunc: func(obj any) {
			if key, err := toolscache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
				r.forget(key)
			}
		},
	}
}
