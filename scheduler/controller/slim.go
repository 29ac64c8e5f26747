package controller

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/membership"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// SlimBoundShoots is the scheduler's Shoot informer transform. The scheduler decides only
// about shoots without a seed, and keeps them whole (without managedFields). A bound shoot
// it only counts on its seeds and, when its seed is drained, classifies; so a bound shoot
// becomes what the usage index reads (usage.Counted) plus what that classification reads:
// spec.schedulerName, the name of the ManagedSeedSet a replica's shoot belongs to
// (membership.SetOf), the migration opt-out annotation, and the type and state of
// status.lastOperation. At
// 100,000 shoots that is a few hundred bytes a shoot instead of several kilobytes.
//
// Whoever needs more of a bound shoot (the drain deciding where it goes, the roll-back of
// a failed migration) reads it whole from the API server, and no write starts from a slim
// shoot but a patch of the fields it holds.
func SlimBoundShoots(obj any) (any, error) {
	shoot, ok := obj.(*gardencorev1beta1.Shoot)
	if !ok {
		return obj, nil // a tombstone: its object was transformed when it was stored
	}
	shoot.ManagedFields = nil
	if shoot.Spec.SeedName == nil {
		return shoot, nil
	}
	slim := usage.Counted(shoot)
	slim.Spec.SchedulerName = usage.InternPointer(shoot.Spec.SchedulerName)
	if set, ok := membership.SetOf(shoot); ok {
		slim.OwnerReferences = []metav1.OwnerReference{membership.Reference(set.Name)}
	}
	if v, ok := shoot.Annotations[gardencorev1beta1.AnnotationMigration]; ok {
		slim.Annotations = map[string]string{gardencorev1beta1.AnnotationMigration: v}
	}
	if op := shoot.Status.LastOperation; op != nil {
		slim.Status.LastOperation = &gardencorev1beta1.LastOperation{
			Type:  gardencorev1beta1.LastOperationType(usage.Intern(string(op.Type))),
			State: gardencorev1beta1.LastOperationState(usage.Intern(string(op.State))),
		}
	}
	return slim, nil
}
