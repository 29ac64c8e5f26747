package managedseed

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/membership"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// ControllerName is the name of the ManagedSeed controller.
const ControllerName = "managedseed"

// shootNameField indexes ManagedSeeds by spec.shoot.name, to find the ManagedSeeds of a shoot.
const shootNameField = "spec.shoot.name"

// seedNamesIndex indexes Shoots in the cache by the seeds they occupy (usage.SeedNames).
const seedNamesIndex = "seedNames"

// AddToManager adds the controller to mgr, filling unset dependencies with defaults.
func (r *Reconciler) AddToManager(ctx context.Context, mgr manager.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.Recorder == nil {
		recorder, err := app.NewEventRecorder(mgr, ControllerName, app.EventRecorderOptions{})
		if err != nil {
			return err
		}
		r.Recorder = recorder
	}
	if r.DefaultResources == nil {
		r.DefaultResources = DefaultResources()
	}
	if r.DeletionRecheckInterval <= 0 {
		r.DeletionRecheckInterval = DefaultDeletionRecheckInterval
	}
	if r.Usage == nil {
		return errors.New("the ManagedSeed controller needs the usage index the seed lifecycle controller feeds")
	}
	if err := mgr.GetFieldIndexer().IndexField(ctx, &seedmanagementv1alpha1.ManagedSeed{}, shootNameField, ShootNameOf); err != nil {
		return err
	}
	if err := r.indexShoots(ctx, mgr.GetCache()); err != nil {
		return err
	}
	rec, err := r.Replicas.Wrap(mgr, ControllerName, seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeed"), 1, r)
	if err != nil {
		return err
	}
	return builder.ControllerManagedBy(mgr).
		Named(ControllerName).
		For(&seedmanagementv1alpha1.ManagedSeed{}).
		Watches(&gardencorev1beta1.Seed{}, handler.EnqueueRequestsFromMapFunc(MapSeedToManagedSeed)).
		Watches(&gardencorev1beta1.Shoot{}, handler.EnqueueRequestsFromMapFunc(r.MapShootToManagedSeeds)).
		Complete(rec)
}

// indexShoots indexes the cached shoots by the seeds they occupy: a seed is deleted only
// when neither the usage index nor the cache knows a shoot on it.
func (r *Reconciler) indexShoots(ctx context.Context, informers cache.Informers) error {
	var err error
	r.shootsBySeed, err = controllerutils.AddClusterIndex(ctx, informers, &gardencorev1beta1.Shoot{}, seedNamesIndex, usage.SeedNames)
	return err
}

// ShootNameOf is the index function of shootNameField.
func ShootNameOf(obj client.Object) []string {
	ms, ok := obj.(*seedmanagementv1alpha1.ManagedSeed)
	if !ok || ms.Spec.Shoot == nil || ms.Spec.Shoot.Name == "" {
		return nil
	}
	return []string{ms.Spec.Shoot.Name}
}

// MapSeedToManagedSeed maps a Seed to the ManagedSeed that registered it.
func MapSeedToManagedSeed(_ context.Context, obj client.Object) []reconcile.Request {
	ns, ok := obj.GetLabels()[membership.LabelManagedSeedNamespace]
	if !ok || ns == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: obj.GetName()}}}
}

// MapShootToManagedSeeds maps a shoot to the ManagedSeeds waiting for it (its own
// namespace, spec.shoot.name) and to those whose seeds it occupies, whose deletion may be
// waiting for it to leave. The controller maps both the old and the new shoot of an update.
func (r *Reconciler) MapShootToManagedSeeds(ctx context.Context, obj client.Object) []reconcile.Request {
	shoot, ok := obj.(*gardencorev1beta1.Shoot)
	if !ok {
		return nil
	}
	var requests []reconcile.Request
	list := &seedmanagementv1alpha1.ManagedSeedList{}
	if err := r.Client.List(ctx, list, client.InNamespace(shoot.Namespace), client.MatchingFields{shootNameField: shoot.Name}); err == nil {
		for _, ms := range list.Items {
			requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&ms)})
		}
	}
	for _, name := range usage.SeedNames(shoot) {
		seed := &gardencorev1beta1.Seed{}
		if err := r.Client.Get(ctx, client.ObjectKey{Name: name}, seed); err == nil {
			requests = append(requests, MapSeedToManagedSeed(ctx, seed)...)
		}
	}
	return requests
}
