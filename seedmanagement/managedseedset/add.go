// Package managedseedset is the set controller: it keeps a ManagedSeedSet's replicas (a Shoot
// and a ManagedSeed named <set>-<ordinal>) at spec.replicas, one replica in flight at a time,
// scales in only empty and unprotected seeds, and rolls template changes out from the highest
// ordinal down, recording revisions in ControllerRevisions.
package managedseedset

import (
	"context"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/objectlock"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// ControllerName is the name of the set controller.
const ControllerName = "managedseedset"

// Cache indexes of the set controller.
const (
	// indexControllerSet indexes Shoots, ManagedSeeds and ControllerRevisions by the name of
	// the ManagedSeedSet that controls them, so a reconcile reads only the set's own objects.
	indexControllerSet = "managedseedset.controller"
	// indexManagedSeedName indexes ManagedSeeds by name, to find the set of a (cluster-scoped) Seed.
	indexManagedSeedName = "managedseedset.managedseed.name"
)

// CacheOptions restricts the cache to the ControllerRevisions of sets (a garden cluster has
// those of every StatefulSet and DaemonSet too). Pass it to the manager.
func CacheOptions(opts *cache.Options) {
	hasSet, _ := labels.NewRequirement(seedmanagementv1alpha1.LabelManagedSeedSet, selection.Exists, nil)
	if opts.ByObject == nil {
		opts.ByObject = map[client.Object]cache.ByObject{}
	}
	opts.ByObject[&appsv1.ControllerRevision{}] = cache.ByObject{Label: labels.NewSelector().Add(*hasSet)}
}

// AddToManager fills the Reconciler's nil dependencies from the manager and adds the
// controller and its cache indexes.
func (r *Reconciler) AddToManager(ctx context.Context, mgr manager.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.Recorder == nil {
		recorder, err := app.NewEventRecorder(mgr, ControllerName+"-controller", app.EventRecorderOptions{})
		if err != nil {
			return err
		}
		r.Recorder = recorder
	}
	if r.Config == (Config{}) {
		r.Config = DefaultConfig()
	}
	if r.Usage == nil {
		r.Usage = usage.NewIndex()
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	r.actuator = &Actuator{
		LiveReplicas:    r.Replicas != nil && r.Replicas.Mode == objectlock.ModeObjectLocks,
		Client:          r.Client,
		Clock:           r.Clock,
		Recorder:        r.Recorder,
		APIReader:       r.APIReader,
		Usage:           r.Usage,
		MaxShootRetries: r.Config.MaxShootRetries,
		expectations:    newExpectations(),
	}

	if err := addIndexes(ctx, mgr.GetFieldIndexer()); err != nil {
		return err
	}

	rec, err := r.Replicas.Wrap(mgr, ControllerName, seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet"), r.Config.ConcurrentSyncs, r)
	if err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		For(&seedmanagementv1alpha1.ManagedSeedSet{}, builder.WithPredicates(r.SetPredicate())).
		Owns(&seedmanagementv1alpha1.ManagedSeed{}).
		Owns(&gardencorev1beta1.Shoot{}).
		Owns(&appsv1.ControllerRevision{}).
		Watches(&gardencorev1beta1.Seed{}, handler.EnqueueRequestsFromMapFunc(r.setOfSeed)).
		Watches(&gardencorev1beta1.Shoot{}, r.shootsOnSeedsHandler()).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.Config.ConcurrentSyncs}).
		Complete(rec)
}

// addIndexes indexes Shoots, ManagedSeeds and ControllerRevisions by the set that controls
// them, and ManagedSeeds by name.
func addIndexes(ctx context.Context, indexer client.FieldIndexer) error {
	for _, obj := range []client.Object{&gardencorev1beta1.Shoot{}, &seedmanagementv1alpha1.ManagedSeed{}, &appsv1.ControllerRevision{}} {
		if err := indexer.IndexField(ctx, obj, indexControllerSet, controllingSet); err != nil {
			return fmt.Errorf("indexing %T by controlling ManagedSeedSet: %w", obj, err)
		}
	}
	if err := indexer.IndexField(ctx, &seedmanagementv1alpha1.ManagedSeed{}, indexManagedSeedName, func(obj client.Object) []string {
		return []string{obj.GetName()}
	}); err != nil {
		return fmt.Errorf("indexing ManagedSeeds by name: %w", err)
	}
	return nil
}

// controllingSet is the index function of indexControllerSet.
func controllingSet(obj client.Object) []string {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.Controller != nil && *ref.Controller && ref.Kind == "ManagedSeedSet" &&
			ref.APIVersion == seedmanagementv1alpha1.GroupVersion.String() {
			return []string{ref.Name}
		}
	}
	return nil
}

// SetPredicate lets through changes of a set's spec, metadata (annotations, finalizers,
// deletion) and creations and deletions, but not the set's own status writes.
func (r *Reconciler) SetPredicate() predicate.Predicate {
	return predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}, predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			return e.ObjectNew.GetDeletionTimestamp() != nil
		},
		CreateFunc:  func(event.CreateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	})
}

// setOfSeed maps a Seed to the set controlling the ManagedSeed of the same name.
func (r *Reconciler) setOfSeed(ctx context.Context, obj client.Object) []reconcile.Request {
	return r.setsOfSeeds(ctx, obj.GetName())
}

func (r *Reconciler) setsOfSeeds(ctx context.Context, seedNames ...string) []reconcile.Request {
	var requests []reconcile.Request
	for _, seed := range seedNames {
		list := &seedmanagementv1alpha1.ManagedSeedList{}
		if err := r.Client.List(ctx, list, client.MatchingFields{indexManagedSeedName: seed}); err != nil {
			logf.FromContext(ctx).Error(err, "Listing the ManagedSeeds of a seed from the cache", "seed", seed)
			continue
		}
		for _, ms := range list.Items {
			for _, set := range controllingSet(&ms) {
				requests = append(requests, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ms.Namespace, Name: set}})
			}
		}
	}
	return requests
}

// SeedNamesChanged reports whether a shoot update moved it on or off a seed: only then can a
// blocked scale-in change.
func (r *Reconciler) SeedNamesChanged(oldShoot, newShoot *gardencorev1beta1.Shoot) bool {
	return !slices.Equal(usage.SeedNames(oldShoot), usage.SeedNames(newShoot))
}

// shootsOnSeedsHandler feeds every shoot event into the usage index first and then enqueues
// the sets whose seeds the shoot lands on or leaves. Feeding the index from this watch (and
// not from a handler of its own) means a reconcile never reads a count older than the event
// that triggered it, and the controller's workers start only after this handler has seen
// every shoot of the initial list (controller-runtime waits for the handler to sync).
func (r *Reconciler) shootsOnSeedsHandler() handler.EventHandler {
	type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]
	add := func(ctx context.Context, q queue, shoots ...client.Object) {
		var names []string
		for _, obj := range shoots {
			if shoot, ok := obj.(*gardencorev1beta1.Shoot); ok {
				names = append(names, usage.SeedNames(shoot)...)
			}
		}
		for _, req := range r.setsOfSeeds(ctx, names...) {
			q.Add(req)
		}
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q queue) {
			if shoot, ok := e.Object.(*gardencorev1beta1.Shoot); ok {
				r.Usage.Set(usage.Key(shoot), usage.SeedNames(shoot))
				add(ctx, q, shoot)
			}
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q queue) {
			if shoot, ok := e.Object.(*gardencorev1beta1.Shoot); ok {
				r.Usage.Delete(usage.Key(shoot))
				add(ctx, q, shoot)
			}
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q queue) {
			oldShoot, okOld := e.ObjectOld.(*gardencorev1beta1.Shoot)
			newShoot, okNew := e.ObjectNew.(*gardencorev1beta1.Shoot)
			if okOld && okNew && r.SeedNamesChanged(oldShoot, newShoot) {
				r.Usage.Set(usage.Key(newShoot), usage.SeedNames(newShoot))
				add(ctx, q, e.ObjectOld, e.ObjectNew)
			}
		},
	}
}
