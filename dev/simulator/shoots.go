package simulator

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

// reconcileShoots plays the infrastructure for every shoot, the tenants' and the
// ManagedSeedSets' replicas alike.
func (s *Simulator) reconcileShoots(ctx context.Context, shoots []gardencorev1beta1.Shoot, now time.Time) []error {
	var errs errorList
	seen := make(map[types.UID]bool, len(shoots))
	for i := range shoots {
		seen[shoots[i].UID] = true
	}
	s.forEach(len(shoots), func(i int) {
		shoot := &shoots[i]
		var err error
		if shoot.DeletionTimestamp != nil {
			err = s.reconcileShootDeletion(ctx, shoot, now)
		} else {
			err = s.reconcileShoot(ctx, shoot, now)
		}
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs.add(err)
		}
	})
	// Forget shoots that are gone.
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	for uid := range s.operationDue {
		if !seen[uid] {
			delete(s.operationDue, uid)
		}
	}
	for uid := range s.deletionDue {
		if !seen[uid] {
			delete(s.deletionDue, uid)
		}
	}
	return errs.errs
}

func (s *Simulator) reconcileShoot(ctx context.Context, shoot *gardencorev1beta1.Shoot, now time.Time) error {
	if s.Garden && ptr.Deref(shoot.Spec.SeedName, "") == "" {
		return nil // a gardenlet sees only the shoots bound to its seed
	}
	if op := shoot.Status.LastOperation; op != nil && op.State == gardencorev1beta1.LastOperationStateProcessing {
		// An operation this simulator did not start (or started before a restart) ends a
		// creation delay from now, so no shoot stays Processing for ever.
		if _, ok := s.operationDueOf(shoot.UID); !ok {
			s.setOperationDue(shoot.UID, s.operationEnd(op.Type, now))
		}
	}
	due, _ := s.operationDueOf(shoot.UID)
	transition := NextShootTransition(shoot, due, now)

	finalizer := s.shootFinalizer()
	writeMetadata := !controllerutil.ContainsFinalizer(shoot, finalizer) || transition.RemoveRetry
	if !writeMetadata && transition.Action == ActionNone {
		return nil
	}
	// The listed shoot shares its fields with the cache's (Step lists without copies):
	// change a copy, and leave it in the list for the rest of the step to see.
	listed := shoot
	shoot = shoot.DeepCopy()
	defer func() { *listed = *shoot }()

	// Metadata first: the finalizer, and consuming the retry annotation.
	if writeMetadata {
		orig := shoot.DeepCopy()
		controllerutil.AddFinalizer(shoot, finalizer)
		if transition.RemoveRetry {
			delete(shoot.Annotations, seedmanagementv1alpha1.AnnotationOperation)
		}
		if err := s.client.Patch(ctx, shoot, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
			return fmt.Errorf("patching the metadata of shoot %s: %w", client.ObjectKeyFromObject(shoot), err)
		}
	}

	op := shoot.Status.LastOperation
	var next *gardencorev1beta1.LastOperation
	switch transition.Action {
	case ActionNone:
		return nil
	case ActionCreate:
		next = processing(gardencorev1beta1.LastOperationTypeCreate, now)
	case ActionReconcile:
		next = processing(gardencorev1beta1.LastOperationTypeReconcile, now)
	case ActionRetry:
		next = processing(op.Type, now)
	case ActionMigrate:
		next = processing(gardencorev1beta1.LastOperationTypeMigrate, now)
		next.Description = fmt.Sprintf("Migrating the control plane from seed %s to seed %s (simulated).", *shoot.Status.SeedName, *shoot.Spec.SeedName)
	case ActionFinish:
		next = s.finish(shoot, op, now)
	}

	orig := shoot.DeepCopy()
	shoot.Status.LastOperation = next
	migrating := next.Type == gardencorev1beta1.LastOperationTypeMigrate && next.State != gardencorev1beta1.LastOperationStateSucceeded
	if !migrating || shoot.Status.SeedName == nil {
		// The control plane runs on spec.seedName, except while it migrates there or after
		// its migration failed: then it still runs on the old seed.
		shoot.Status.SeedName = ptr.To(*shoot.Spec.SeedName)
	}
	if transition.Action == ActionFinish {
		shoot.Status.ObservedGeneration = shoot.Generation
	}
	if err := s.client.Status().Patch(ctx, shoot, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("patching the status of shoot %s: %w", client.ObjectKeyFromObject(shoot), err)
	}
	if next.State == gardencorev1beta1.LastOperationStateProcessing {
		s.setOperationDue(shoot.UID, s.operationEnd(next.Type, now))
	} else {
		s.setOperationDue(shoot.UID, time.Time{})
	}
	log.FromContext(ctx).V(1).Info("Shoot operation", "shoot", klog.KObj(shoot), "type", next.Type, "state", next.State)
	return nil
}

// finish ends the operation in flight: Succeeded, or Failed by the failure rate of its kind.
func (s *Simulator) finish(shoot *gardencorev1beta1.Shoot, op *gardencorev1beta1.LastOperation, now time.Time) *gardencorev1beta1.LastOperation {
	next := &gardencorev1beta1.LastOperation{Type: op.Type, State: gardencorev1beta1.LastOperationStateSucceeded,
		Progress: 100, LastUpdateTime: metav1.NewTime(now), Description: fmt.Sprintf("%s of the shoot succeeded (simulated).", op.Type)}
	failureRate := s.cfg.Shoots.FailureRate
	if op.Type == gardencorev1beta1.LastOperationTypeMigrate {
		failureRate = s.cfg.Shoots.MigrationFailureRate
		from := ptr.Deref(shoot.Status.SeedName, "")
		next.Description = fmt.Sprintf("Control plane migrated from seed %s to seed %s (simulated).", from, *shoot.Spec.SeedName)
		if s.float64() < failureRate {
			next.State, next.Progress = gardencorev1beta1.LastOperationStateFailed, 0
			next.Description = fmt.Sprintf("Migrating the control plane from seed %s to seed %s failed (simulated); it still runs on seed %s. Set spec.seedName back to %s to roll back, or annotate the shoot %s=%s to retry.",
				from, *shoot.Spec.SeedName, from, from, seedmanagementv1alpha1.AnnotationOperation, seedmanagementv1alpha1.OperationRetry)
		}
		return next
	}
	if s.float64() < failureRate {
		next.State, next.Progress = gardencorev1beta1.LastOperationStateFailed, 0
		next.Description = fmt.Sprintf("%s of the shoot failed (simulated infrastructure failure); annotate it %s=%s to retry.",
			op.Type, seedmanagementv1alpha1.AnnotationOperation, seedmanagementv1alpha1.OperationRetry)
	}
	return next
}

// operationEnd is when an operation of the given type started now ends.
func (s *Simulator) operationEnd(typ gardencorev1beta1.LastOperationType, now time.Time) time.Time {
	d := s.cfg.Shoots.CreateDelay.Duration
	if typ == gardencorev1beta1.LastOperationTypeMigrate {
		d = s.cfg.Shoots.MigrateDelay.Duration
	}
	return now.Add(s.jittered(d))
}

// reconcileShootDeletion reports the deletion as in flight, and once the simulated
// infrastructure is gone, lets the shoot go. In a garden the deletion is reported for the
// shoot's generation (a deletion raises it), and reported succeeded before Gardener's
// finalizer goes, as gardener-apiserver requires.
func (s *Simulator) reconcileShootDeletion(ctx context.Context, shoot *gardencorev1beta1.Shoot, now time.Time) error {
	finalizer := s.shootFinalizer()
	if !controllerutil.ContainsFinalizer(shoot, finalizer) {
		return nil
	}
	due := s.deletionDueOf(shoot.UID, now)
	op := shoot.Status.LastOperation
	if now.Before(due) {
		if op != nil && op.Type == gardencorev1beta1.LastOperationTypeDelete {
			return nil
		}
		listed := shoot // shares its fields with the cache's: change a copy, leave it in the list
		shoot = shoot.DeepCopy()
		defer func() { *listed = *shoot }()
		return s.patchDeletionStatus(ctx, shoot, processing(gardencorev1beta1.LastOperationTypeDelete, now))
	}
	listed := shoot // shares its fields with the cache's: change a copy, leave it in the list
	shoot = shoot.DeepCopy()
	defer func() { *listed = *shoot }()
	if s.Garden && (op == nil || op.Type != gardencorev1beta1.LastOperationTypeDelete || op.State != gardencorev1beta1.LastOperationStateSucceeded) {
		succeeded := &gardencorev1beta1.LastOperation{Type: gardencorev1beta1.LastOperationTypeDelete, State: gardencorev1beta1.LastOperationStateSucceeded,
			Progress: 100, LastUpdateTime: metav1.NewTime(now), Description: "Delete of the shoot succeeded (simulated)."}
		if err := s.patchDeletionStatus(ctx, shoot, succeeded); err != nil {
			return err
		}
	}
	orig := shoot.DeepCopy()
	controllerutil.RemoveFinalizer(shoot, finalizer)
	if err := s.client.Patch(ctx, shoot, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("removing the finalizer of deleted shoot %s: %w", client.ObjectKeyFromObject(shoot), err)
	}
	s.forgetDeletion(shoot.UID)
	log.FromContext(ctx).V(1).Info("Shoot deleted", "shoot", klog.KObj(shoot))
	return nil
}

// patchDeletionStatus writes the lastOperation of a deleted shoot (a copy the caller may
// change) and, in a garden, its observedGeneration.
func (s *Simulator) patchDeletionStatus(ctx context.Context, shoot *gardencorev1beta1.Shoot, op *gardencorev1beta1.LastOperation) error {
	orig := shoot.DeepCopy()
	shoot.Status.LastOperation = op
	if s.Garden {
		shoot.Status.ObservedGeneration = shoot.Generation
	}
	if err := s.client.Status().Patch(ctx, shoot, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("patching the status of deleted shoot %s: %w", client.ObjectKeyFromObject(shoot), err)
	}
	return nil
}

// shootFinalizer is the finalizer the simulated infrastructure keeps on a shoot until it is
// gone: Gardener's in a garden, the simulator's own otherwise.
func (s *Simulator) shootFinalizer() string {
	if s.Garden {
		return GardenerFinalizer
	}
	return Finalizer
}

func processing(typ gardencorev1beta1.LastOperationType, now time.Time) *gardencorev1beta1.LastOperation {
	return &gardencorev1beta1.LastOperation{Type: typ, State: gardencorev1beta1.LastOperationStateProcessing,
		LastUpdateTime: metav1.NewTime(now), Description: fmt.Sprintf("%s of the shoot is in progress (simulated).", typ)}
}
