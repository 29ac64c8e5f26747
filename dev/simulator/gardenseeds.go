package simulator

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
)

// reconcileManagedSeed plays, in a garden, the gardenlet of a ManagedSeed's parent seed:
// Gardener's finalizer on the ManagedSeed, the Seed registered from the gardenlet
// configuration once the shoot is reconciled and deleted with the ManagedSeed, and the
// ManagedSeed's conditions and observedGeneration. seed is the ManagedSeed's Seed as
// listed; nil when there is none.
func (s *Simulator) reconcileManagedSeed(ctx context.Context, ms *seedmanagementv1alpha1.ManagedSeed, seed *gardencorev1beta1.Seed, shoots shootView, now time.Time) error {
	if ms.Spec.Shoot == nil || ms.Spec.Shoot.Name == "" {
		return nil // gardener-apiserver requires the shoot; nothing a gardenlet could do
	}
	if ms.DeletionTimestamp == nil && !controllerutil.ContainsFinalizer(ms, GardenerFinalizer) {
		orig := ms.DeepCopy()
		controllerutil.AddFinalizer(ms, GardenerFinalizer)
		if err := s.client.Patch(ctx, ms, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
			return fmt.Errorf("adding finalizer %s to ManagedSeed %s: %w", GardenerFinalizer, client.ObjectKeyFromObject(ms), err)
		}
	}
	var hosted []string
	if ms.DeletionTimestamp != nil && seed != nil && seed.DeletionTimestamp == nil {
		var err error
		if hosted, err = shoots.hosted(seed.Name); err != nil {
			return fmt.Errorf("listing the shoots of seed %s: %w", seed.Name, err)
		}
	}
	decision := DecideManagedSeed(ms, shoots.shoot(ms.Namespace, ms.Spec.Shoot.Name), seed, hosted)
	logger := log.FromContext(ctx).WithValues("managedSeed", klog.KObj(ms))

	switch decision.Action {
	case ManagedSeedNone:
		return nil
	case ManagedSeedRegisterSeed:
		desired, err := s.desiredSeed(ctx, ms)
		if err != nil {
			return err
		}
		if err := s.client.Create(ctx, desired); err != nil && !apierrors.IsAlreadyExists(err) {
			// AlreadyExists: the cache has not shown the Seed registered a tick ago yet.
			return fmt.Errorf("registering Seed %s of ManagedSeed %s: %w", desired.GetName(), client.ObjectKeyFromObject(ms), err)
		}
		logger.Info("Gardenlet registered the seed", "seed", desired.GetName())
	case ManagedSeedUpdateSeed:
		desired, err := s.desiredSeed(ctx, ms)
		if err != nil {
			return err
		}
		current := newUnstructured(gardencorev1beta1.GroupVersion.WithKind("Seed"))
		if err := s.client.Get(ctx, client.ObjectKey{Name: desired.GetName()}, current); err != nil {
			return fmt.Errorf("reading Seed %s of ManagedSeed %s: %w", desired.GetName(), client.ObjectKeyFromObject(ms), err)
		}
		if UpdateSeedFrom(current, desired) {
			if err := s.client.Update(ctx, current); err != nil {
				return fmt.Errorf("updating Seed %s from ManagedSeed %s: %w", desired.GetName(), client.ObjectKeyFromObject(ms), err)
			}
			logger.Info("Gardenlet updated the seed", "seed", desired.GetName())
		}
	case ManagedSeedDeleteSeed:
		if err := s.client.Delete(ctx, seed); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting Seed %s of deleted ManagedSeed %s: %w", seed.Name, client.ObjectKeyFromObject(ms), err)
		}
		logger.Info("Gardenlet deleted the seed", "seed", seed.Name)
	}

	if !conditionsHold(ms.Status.Conditions, decision.Conditions) || ms.Status.ObservedGeneration != ms.Generation {
		if err := s.writeStatus(ctx, ms, func(u *unstructured.Unstructured) (bool, error) {
			return ApplyManagedSeedConditions(u, decision.Conditions, now)
		}); err != nil {
			return err
		}
	}

	if decision.Action == ManagedSeedRelease {
		orig := ms.DeepCopy()
		controllerutil.RemoveFinalizer(ms, GardenerFinalizer)
		if err := s.client.Patch(ctx, ms, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("removing finalizer %s from ManagedSeed %s: %w", GardenerFinalizer, client.ObjectKeyFromObject(ms), err)
		}
		logger.Info("Gardenlet unregistered the seed", "seed", ms.Name)
	}
	return nil
}

// desiredSeed reads the ManagedSeed whole (the typed one lacks most of Gardener's seed
// spec) and returns the Seed its gardenlet registers.
func (s *Simulator) desiredSeed(ctx context.Context, ms *seedmanagementv1alpha1.ManagedSeed) (*unstructured.Unstructured, error) {
	u := newUnstructured(seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeed"))
	if err := s.client.Get(ctx, client.ObjectKeyFromObject(ms), u); err != nil {
		return nil, fmt.Errorf("reading ManagedSeed %s: %w", client.ObjectKeyFromObject(ms), err)
	}
	return SeedOfManagedSeed(u)
}

// reconcileGardenSeed plays, in a garden, a seed's own gardenlet after its heartbeat:
// Gardener's finalizer, released once a deleted seed hosts no shoots, the seed's status
// (GardenletReport; parent is the seed of the ManagedSeed's shoot), and the extensions gardener-controller-manager installs on the seed.
// installations lists every ControllerInstallation, once a tick and only when a seed asks.
func (s *Simulator) reconcileGardenSeed(ctx context.Context, seed *gardencorev1beta1.Seed, ms *seedmanagementv1alpha1.ManagedSeed, parent *gardencorev1beta1.Seed, heartbeat, backupReady bool,
	shoots shootView, installations func() ([]unstructured.Unstructured, error), now time.Time) error {
	if seed.DeletionTimestamp != nil {
		if !controllerutil.ContainsFinalizer(seed, GardenerFinalizer) {
			return nil
		}
		hosted, err := shoots.hosted(seed.Name)
		if err != nil {
			return fmt.Errorf("listing the shoots of seed %s: %w", seed.Name, err)
		}
		if len(hosted) > 0 {
			return nil // as the gardenlet's seed controller: the seed goes once it is empty
		}
		orig := seed.DeepCopy()
		controllerutil.RemoveFinalizer(seed, GardenerFinalizer)
		if err := s.client.Patch(ctx, seed, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("removing finalizer %s from deleted Seed %s: %w", GardenerFinalizer, seed.Name, err)
		}
		return nil
	}
	if !controllerutil.ContainsFinalizer(seed, GardenerFinalizer) {
		orig := seed.DeepCopy()
		controllerutil.AddFinalizer(seed, GardenerFinalizer)
		if err := s.client.Patch(ctx, seed, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
			return fmt.Errorf("adding finalizer %s to Seed %s: %w", GardenerFinalizer, seed.Name, err)
		}
	}
	if report := GardenletReport(seed, ms, parent, heartbeat, backupReady); !reportHolds(seed, report) {
		if err := s.writeStatus(ctx, seed, func(u *unstructured.Unstructured) (bool, error) {
			return ApplySeedReport(u, report, now)
		}); err != nil {
			return err
		}
	}
	if !ExtensionsPending(seed) {
		return nil
	}
	list, err := installations()
	if err != nil {
		return fmt.Errorf("listing the ControllerInstallations: %w", err)
	}
	for i := range list {
		if name, _, _ := unstructured.NestedString(list[i].Object, "spec", "seedRef", "name"); name != seed.Name {
			continue
		}
		// The list is every seed's: the write gets a copy.
		if err := s.writeStatus(ctx, list[i].DeepCopy(), func(u *unstructured.Unstructured) (bool, error) {
			return setConditions(u, InstalledExtensionConditions(), now)
		}); err != nil {
			return err
		}
	}
	return nil
}

// writeStatus changes the status of obj, read raw, with apply and writes it back when it
// changed (controllerutils.UpdateRawStatus): every condition and field another writer made
// is kept, and a concurrent write makes this one fail with a conflict rather than be lost;
// the next tick tries again, as it does for an object gone meanwhile. obj gets the
// resourceVersion written, so that a later write of the caller does not conflict with this
// one.
func (s *Simulator) writeStatus(ctx context.Context, obj client.Object, apply func(*unstructured.Unstructured) (bool, error)) error {
	_, err := controllerutils.UpdateRawStatus(ctx, s.client, obj, apply)
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func newUnstructured(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}
