package drain

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	wq "k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/scheduler/controller"
)

// AddToManager registers the drain (per Seed) and the roll-back of failed migrations (per
// Shoot) with a manager, beside the scheduler whose placements they use, which must have
// been added to the same manager. What the Reconciler leaves nil it takes from scheduler.
func (r *Reconciler) AddToManager(ctx context.Context, mgr manager.Manager, scheduler *controller.Reconciler) error {
	if scheduler.Placer() == nil {
		return errors.New("the drain needs a scheduler added to the manager first")
	}
	r.lendFrom(scheduler)
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	if r.Reader == nil {
		r.Reader = mgr.GetAPIReader()
	}
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	r.failedAt = map[string]time.Time{}
	r.draining = map[string]bool{}
	r.started = map[string]startedMigration{}
	if err := r.addIndexes(ctx, mgr.GetCache()); err != nil {
		return err
	}
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("drain").
		For(&gardencorev1beta1.Seed{}, builder.WithPredicates(r.seedPredicate())).
		Watches(&seedmanagementv1alpha1.ManagedSeed{}, handler.EnqueueRequestsFromMapFunc(seedOfManagedSeed),
			builder.WithPredicates(drainAnnotationPredicate())).
		Watches(&gardencorev1beta1.Shoot{}, r.drainsOfShoot()).
		Complete(r); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("migration-rollback").
		Watches(&gardencorev1beta1.Shoot{}, &handler.EnqueueRequestForObject{}, builder.WithPredicates(failedMigrationPredicate())).
		Complete(&Rollback{Drain: r})
}

// lendFrom fills what the Reconciler leaves nil from the scheduler beside which it runs.
func (r *Reconciler) lendFrom(scheduler *controller.Reconciler) {
	if r.Config == nil {
		r.Config = scheduler.Config
	}
	if r.Placer == nil {
		r.Placer = scheduler.Placer()
	}
	if r.Ledger == nil {
		r.Ledger = scheduler.Ledger
	}
	if r.Scheduler == nil {
		r.Scheduler = scheduler
	}
	if r.Recorder == nil {
		r.Recorder = scheduler.Recorder
	}
	if r.Synced == nil {
		r.Synced = scheduler.Synced
	}
}

// addIndexes indexes the cached shoots by the seeds they count on and by the seed their
// control plane leaves, so that a drain reads the shoots of one seed without listing all.
func (r *Reconciler) addIndexes(ctx context.Context, informers cache.Informers) error {
	var err error
	if r.bySeed, err = controllerutils.AddClusterIndex(ctx, informers, &gardencorev1beta1.Shoot{}, indexSeedNames, usage.SeedNames); err != nil {
		return fmt.Errorf("indexing shoots by seed: %w", err)
	}
	if r.byMigratingFrom, err = controllerutils.AddClusterIndex(ctx, informers, &gardencorev1beta1.Shoot{}, indexMigratingFrom, func(shoot *gardencorev1beta1.Shoot) []string {
		if from, ok := leaving(shoot); ok {
			return []string{from}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("indexing shoots by the seed they migrate from: %w", err)
	}
	return nil
}

// leaving returns the seed a shoot's control plane is migrating away from.
func leaving(shoot *gardencorev1beta1.Shoot) (string, bool) {
	spec, status := ptr.Deref(shoot.Spec.SeedName, ""), ptr.Deref(shoot.Status.SeedName, "")
	return status, spec != "" && status != "" && spec != status
}

// seedPredicate lets through the seeds whose drain annotation is set or changed, and the
// seeds a drain reported on (to clear the report once the annotation is gone); heartbeats of
// other seeds are not the drain's business.
func (r *Reconciler) seedPredicate() predicate.Funcs {
	relevant := func(obj client.Object) bool {
		seed, ok := obj.(*gardencorev1beta1.Seed)
		if !ok {
			return false
		}
		if gardencorev1beta1.Draining(seed.Annotations) || r.isDraining(seed.Name) {
			return true
		}
		for _, c := range seed.Status.Conditions {
			if c.Type == gardencorev1beta1.SeedDrained {
				return true
			}
		}
		return false
	}
	return predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return relevant(e.Object) },
		UpdateFunc:  func(e event.UpdateEvent) bool { return relevant(e.ObjectOld) || relevant(e.ObjectNew) },
		DeleteFunc:  func(e event.DeleteEvent) bool { return relevant(e.Object) },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// drainAnnotationPredicate lets through ManagedSeeds with the drain annotation, and the
// moment it goes.
func drainAnnotationPredicate() predicate.Funcs {
	draining := func(obj client.Object) bool { return gardencorev1beta1.Draining(obj.GetAnnotations()) }
	return predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return draining(e.Object) },
		UpdateFunc:  func(e event.UpdateEvent) bool { return draining(e.ObjectOld) || draining(e.ObjectNew) },
		DeleteFunc:  func(e event.DeleteEvent) bool { return draining(e.Object) },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// seedOfManagedSeed maps a ManagedSeed to its Seed, named like it.
func seedOfManagedSeed(_ context.Context, obj client.Object) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: obj.GetName()}}}
}

// drainsOfShoot wakes the drains of the seeds a shoot counted on before and after its
// change: a migration that ended frees the budget, a shoot that left may empty the seed.
// A shoot that left a seed or went away makes room, which a drain stuck on full seeds
// waits for: that wakes every drain.
func (r *Reconciler) drainsOfShoot() handler.TypedEventHandler[client.Object, reconcile.Request] {
	everyDrain := func() []reconcile.Request {
		r.mu.Lock()
		defer r.mu.Unlock()
		reqs := make([]reconcile.Request, 0, len(r.draining))
		for s := range r.draining {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Name: s}})
		}
		return reqs
	}
	seedsOf := func(objs ...client.Object) []reconcile.Request {
		var reqs []reconcile.Request
		seen := map[string]bool{}
		for _, obj := range objs {
			shoot, ok := obj.(*gardencorev1beta1.Shoot)
			if !ok {
				continue
			}
			for _, s := range usage.SeedNames(shoot) {
				if !seen[s] && r.isDraining(s) {
					seen[s] = true
					reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Name: s}})
				}
			}
		}
		return reqs
	}
	return handler.TypedFuncs[client.Object, reconcile.Request]{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue) {
			add(q, seedsOf(e.Object))
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue) {
			oldShoot, okOld := e.ObjectOld.(*gardencorev1beta1.Shoot)
			newShoot, okNew := e.ObjectNew.(*gardencorev1beta1.Shoot)
			if okOld && okNew && len(usage.SeedNames(newShoot)) < len(usage.SeedNames(oldShoot)) {
				addAfter(q, everyDrain())
				return
			}
			add(q, seedsOf(e.ObjectOld, e.ObjectNew))
		},
		DeleteFunc: func(_ context.Context, _ event.DeleteEvent, q workqueue) {
			addAfter(q, everyDrain())
		},
	}
}

type workqueue = wq.TypedRateLimitingInterface[reconcile.Request]

func add(q workqueue, reqs []reconcile.Request) {
	for _, req := range reqs {
		q.Add(req)
	}
}

// settle is how long after a shoot made room the drains look again: the ledger the
// decisions read is fed by its own handler of the same informer, which has then seen the
// change too.
const settle = 250 * time.Millisecond

func addAfter(q workqueue, reqs []reconcile.Request) {
	for _, req := range reqs {
		q.AddAfter(req, settle)
	}
}

// failedMigrationPredicate lets through shoots whose migration failed and was not yet
// rolled back.
func failedMigrationPredicate() predicate.Funcs {
	failed := func(obj client.Object) bool {
		shoot, ok := obj.(*gardencorev1beta1.Shoot)
		if !ok {
			return false
		}
		_, f := FailedMigration(shoot)
		return f
	}
	return predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return failed(e.Object) },
		UpdateFunc:  func(e event.UpdateEvent) bool { return failed(e.ObjectNew) },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
