package managedseedset

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

// Annotations the set controller keeps on a replica's Shoot so that the number of retries of
// a failed shoot survives restarts and moving on to other replicas. They are removed again
// once the replica is Ready.
const (
	// AnnotationReconcileRetries counts the retries of a replica shoot's failed reconciliation.
	AnnotationReconcileRetries = "seedmanagement.gardener.cloud/reconcile-retries"
	// AnnotationDeleteRetries counts the retries of a replica shoot's failed deletion.
	AnnotationDeleteRetries = "seedmanagement.gardener.cloud/delete-retries"
)

// replica is one member of a set: the Shoot and the ManagedSeed named <set>-<ordinal>, the
// Seed the ManagedSeed registered, and how many shoots that seed hosts. Any of the three
// objects may be missing while the replica is created or removed.
type replica struct {
	name        string
	ordinal     int32
	shoot       *gardencorev1beta1.Shoot
	managedSeed *seedmanagementv1alpha1.ManagedSeed
	seed        *gardencorev1beta1.Seed
	// shootsOnSeed is the number of shoots on the replica's seed (spec.seedName or status.seedName).
	shootsOnSeed int
}

// newReplica is the replica of the set with the given ordinal before any of its objects
// exists.
func newReplica(setName string, ordinal int32) *replica {
	return &replica{name: replicaName(setName, ordinal), ordinal: ordinal}
}

// replicaName is the name of a set's replica with the given ordinal.
func replicaName(setName string, ordinal int32) string {
	return fmt.Sprintf("%s-%d", setName, ordinal)
}

// parseOrdinal returns the ordinal of a replica name of the set, or false when the name is
// not <set>-<non-negative integer>.
func parseOrdinal(setName, name string) (int32, bool) {
	suffix, ok := strings.CutPrefix(name, setName+"-")
	// Digits only: ParseInt would take "+1" too, which no replica name has.
	if !ok || suffix == "" || (len(suffix) > 1 && suffix[0] == '0') || strings.Trim(suffix, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(suffix, 10, 32)
	if err != nil || n < 0 {
		return 0, false
	}
	return int32(n), true
}

// revision is the ControllerRevision name the replica was created or last updated from.
// A replica whose Shoot and ManagedSeed disagree (an update half applied) has none.
func (replica *replica) revision() string {
	var shootRev, msRev string
	if replica.shoot != nil {
		shootRev = replica.shoot.Labels[seedmanagementv1alpha1.LabelControllerRevisionHash]
	}
	if replica.managedSeed != nil {
		msRev = replica.managedSeed.Labels[seedmanagementv1alpha1.LabelControllerRevisionHash]
	}
	switch {
	case replica.shoot == nil:
		return msRev
	case replica.managedSeed == nil || shootRev == msRev:
		return shootRev
	default:
		return ""
	}
}

// deleting reports whether the replica's ManagedSeed or Shoot is being deleted.
func (replica *replica) deleting() bool {
	return (replica.managedSeed != nil && replica.managedSeed.DeletionTimestamp != nil) ||
		(replica.shoot != nil && replica.shoot.DeletionTimestamp != nil)
}

// protected reports whether the ManagedSeed or the Shoot carries protect-from-deletion=true.
func (replica *replica) protected() bool {
	if replica.managedSeed != nil && replica.managedSeed.Annotations[seedmanagementv1alpha1.AnnotationProtectFromDeletion] == "true" {
		return true
	}
	return replica.shoot != nil && replica.shoot.Annotations[seedmanagementv1alpha1.AnnotationProtectFromDeletion] == "true"
}

// drained reports whether the replica's ManagedSeed or Seed is annotated for a drain.
func (replica *replica) drained() bool {
	if replica.managedSeed != nil && gardencorev1beta1.Draining(replica.managedSeed.Annotations) {
		return true
	}
	return replica.seed != nil && gardencorev1beta1.Draining(replica.seed.Annotations)
}

// priority is the scale-in priority annotation of the ManagedSeed (or, lacking it, of the
// Shoot); DefaultPriority when neither has a valid one.
func (replica *replica) priority() int {
	for _, annotations := range []map[string]string{managedSeedAnnotations(replica.managedSeed), shootAnnotations(replica.shoot)} {
		if v, ok := annotations[seedmanagementv1alpha1.AnnotationPriority]; ok {
			if p, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return p
			}
		}
	}
	return seedmanagementv1alpha1.DefaultPriority
}

func managedSeedAnnotations(ms *seedmanagementv1alpha1.ManagedSeed) map[string]string {
	if ms == nil {
		return nil
	}
	return ms.Annotations
}

func shootAnnotations(s *gardencorev1beta1.Shoot) map[string]string {
	if s == nil {
		return nil
	}
	return s.Annotations
}

// retries returns the retry count kept in the given annotation of the shoot.
func (replica *replica) retries(annotation string) int32 {
	if replica.shoot == nil {
		return 0
	}
	n, err := strconv.ParseInt(replica.shoot.Annotations[annotation], 10, 32)
	if err != nil || n < 0 {
		return 0
	}
	return int32(n)
}

// observed reports whether a status observedGeneration caught up with the generation. Zero
// means the reporter does not set it, which is taken as caught up.
func observed(observedGeneration, generation int64) bool {
	return observedGeneration == 0 || observedGeneration == generation
}

// retryRequested reports whether a retry of the shoot's last operation was asked for and the
// gardenlet has not taken it up yet (it removes the annotation when it does).
func retryRequested(shoot *gardencorev1beta1.Shoot) bool {
	return shoot.Annotations[seedmanagementv1alpha1.AnnotationOperation] == seedmanagementv1alpha1.OperationRetry
}

// shootLastOperation returns the shoot's last operation when the gardenlet reported it for
// the current generation and no retry is outstanding, else nil.
func shootLastOperation(shoot *gardencorev1beta1.Shoot) *gardencorev1beta1.LastOperation {
	if shoot == nil || !observed(shoot.Status.ObservedGeneration, shoot.Generation) || retryRequested(shoot) {
		return nil
	}
	return shoot.Status.LastOperation
}

func isReconcileOperation(op *gardencorev1beta1.LastOperation) bool {
	return op.Type == gardencorev1beta1.LastOperationTypeCreate || op.Type == gardencorev1beta1.LastOperationTypeReconcile
}

// shootReconciled: the shoot's create or reconcile operation for its current spec succeeded.
func shootReconciled(shoot *gardencorev1beta1.Shoot) bool {
	op := shootLastOperation(shoot)
	return op != nil && shoot.DeletionTimestamp == nil && isReconcileOperation(op) &&
		op.State == gardencorev1beta1.LastOperationStateSucceeded
}

// shootReconcileFailed: the shoot's create or reconcile operation failed for good (Failed,
// not the transient Error).
func shootReconcileFailed(shoot *gardencorev1beta1.Shoot) bool {
	op := shootLastOperation(shoot)
	return op != nil && shoot.DeletionTimestamp == nil && isReconcileOperation(op) &&
		op.State == gardencorev1beta1.LastOperationStateFailed
}

// shootDeleteFailed: the deletion of the shoot failed for good.
func shootDeleteFailed(shoot *gardencorev1beta1.Shoot) bool {
	op := shootLastOperation(shoot)
	return op != nil && shoot.DeletionTimestamp != nil && op.Type == gardencorev1beta1.LastOperationTypeDelete &&
		op.State == gardencorev1beta1.LastOperationStateFailed
}

// shootHealthy: none of the shoot's conditions is False.
func shootHealthy(shoot *gardencorev1beta1.Shoot) bool {
	for _, c := range shoot.Status.Conditions {
		if c.Status == metav1.ConditionFalse {
			return false
		}
	}
	return true
}

// managedSeedRegistered: the seed controller registered the Seed for the current spec.
func managedSeedRegistered(ms *seedmanagementv1alpha1.ManagedSeed) bool {
	return ms.DeletionTimestamp == nil && observed(ms.Status.ObservedGeneration, ms.Generation) &&
		meta.IsStatusConditionTrue(ms.Status.Conditions, seedmanagementv1alpha1.ManagedSeedSeedRegistered)
}

// seedReady: the Seed exists, is not being deleted and its gardenlet is ready.
func seedReady(seed *gardencorev1beta1.Seed) bool {
	return seed != nil && seed.DeletionTimestamp == nil &&
		meta.IsStatusConditionTrue(seed.Status.Conditions, gardencorev1beta1.SeedGardenletReady)
}

// ready is a replica's readiness: its Shoot's last operation succeeded and the Seed its
// ManagedSeed registered has GardenletReady=True.
func (replica *replica) ready() bool {
	return replica.shoot != nil && replica.managedSeed != nil && shootReconciled(replica.shoot) && seedReady(replica.seed)
}

// givenUp reports whether the replica's shoot failed and its retries are used up; the set
// reports such a replica and moves on.
func (replica *replica) givenUp(maxRetries int32) bool {
	if replica.shoot == nil {
		return false
	}
	if shootReconcileFailed(replica.shoot) {
		return replica.retries(AnnotationReconcileRetries) >= maxRetries
	}
	if shootDeleteFailed(replica.shoot) {
		return replica.retries(AnnotationDeleteRetries) >= maxRetries
	}
	return false
}
