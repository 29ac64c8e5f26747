package controller

import (
	"sync"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/membership"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// SlimBoundShoots is the scheduler's Shoot informer transform. The scheduler decides only
// about shoots without a seed, and keeps them whole (without managedFields). A bound shoot
// it only counts on its seeds and, when its seed is drained, classifies; so a bound shoot
// becomes a record (usage.Record) of what the usage index reads (usage.Counted) plus what
// that classification reads: spec.schedulerName, the name of the ManagedSeedSet a replica's
// shoot belongs to (membership.SetOf), the migration opt-out annotation, and the type and
// state of status.lastOperation (one value per type and state, shared by the shoots).
// Readers of the cache see the record as the slim Shoot it stands for (usage.Record.Expand;
// the cache's informers come from controllerutils.NewInformer). At 100,000 shoots that is
// about 150 bytes a shoot where a typed Shoot, however slim, is 512.
//
// Whoever needs more of a bound shoot (the drain deciding where it goes, the roll-back of
// a failed migration) reads it whole from the API server, and no write starts from a slim
// shoot but a patch of the fields it holds.
func SlimBoundShoots(obj any) (any, error) {
	shoot, ok := obj.(*gardencorev1beta1.Shoot)
	if !ok {
		return obj, nil // a tombstone or a record: its object was transformed when it was stored
	}
	shoot.ManagedFields = nil
	if shoot.Spec.SeedName == nil {
		return shoot, nil
	}
	record := usage.Counted(shoot)
	record.Kept.SchedulerName = usage.InternPointer(shoot.Spec.SchedulerName)
	if set, ok := membership.SetOf(shoot); ok {
		record.Kept.Set = set.Name
	}
	if v, ok := shoot.Annotations[gardencorev1beta1.AnnotationMigration]; ok {
		record.Kept.Migration = usage.InternPointer(&v)
	}
	if op := shoot.Status.LastOperation; op != nil {
		record.Kept.LastOperation = sharedLastOperation(op.Type, op.State)
	}
	return record, nil
}

// lastOperations holds one LastOperation per type and state, which every record with
// them points at: the combinations are few and the shoots many. Nothing writes through
// these pointers: objects in a cache are not written to, and a copy (DeepCopy) gets a
// LastOperation of its own.
var lastOperations sync.Map // lastOperationKind -> *gardencorev1beta1.LastOperation

type lastOperationKind struct {
	Type  gardencorev1beta1.LastOperationType
	State gardencorev1beta1.LastOperationState
}

func sharedLastOperation(typ gardencorev1beta1.LastOperationType, state gardencorev1beta1.LastOperationState) *gardencorev1beta1.LastOperation {
	key := lastOperationKind{typ, state}
	if shared, ok := lastOperations.Load(key); ok {
		return shared.(*gardencorev1beta1.LastOperation)
	}
	shared, _ := lastOperations.LoadOrStore(key, &gardencorev1beta1.LastOperation{
		Type:  gardencorev1beta1.LastOperationType(usage.Intern(string(typ))),
		State: gardencorev1beta1.LastOperationState(usage.Intern(string(state))),
	})
	return shared.(*gardencorev1beta1.LastOperation)
}
