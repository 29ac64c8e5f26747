package managedseedset

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
)

// ConditionReplicaFailed is True while replicas of the set have a failed shoot whose retries
// are used up.
const ConditionReplicaFailed = "ReplicaFailed"

// Reasons of the set's conditions.
const (
	// ScaleInBlocked
	ReasonNotEnoughRemovableReplicas controllerutils.Reason = "NotEnoughRemovableReplicas"
	ReasonScaleInPossible            controllerutils.Reason = "ScaleInPossible"
	// ReplicaFailed
	ReasonRetriesExhausted controllerutils.Reason = "RetriesExhausted"
	ReasonNoFailedReplicas controllerutils.Reason = "NoFailedReplicas"
)

// computeStatus sets the counts, the current revision and the conditions from the replicas
// as this reconcile found them.
func (a *Actuator) computeStatus(set *seedmanagementv1alpha1.ManagedSeedSet, w world, revs *revisions) {
	status := &set.Status
	w.pending = status.PendingReplica
	active := w.active()
	var ready, updated int32
	for _, replica := range active {
		if replica.ready() {
			ready++
		}
		if replica.revision() == revs.update.Name {
			updated++
		}
	}
	// The rollout is complete once every replica runs the update revision.
	if int(updated) == len(active) {
		revs.current = revs.update
	}
	var current int32
	for _, replica := range active {
		if replica.revision() == revs.current.Name {
			current++
		}
	}
	status.Replicas = int32(len(active))
	status.ReadyReplicas = ready
	status.UpdatedReplicas = updated
	status.CurrentReplicas = current
	status.CurrentRevision = revs.current.Name

	a.setScaleInBlocked(set, planScaleIn(active, w.target))
	a.setReplicaFailed(set, w)
}

// setScaleInBlocked sets ScaleInBlocked from the scale-in plan, and records a Warning when
// what blocks it changes.
func (a *Actuator) setScaleInBlocked(set *seedmanagementv1alpha1.ManagedSeedSet, plan scaleIn) {
	blocked := controllerutils.False(ReasonScaleInPossible, "Every replica a scale-in asks for can be removed.")
	if n := plan.blocked(); n > 0 {
		blocked = controllerutils.True(ReasonNotEnoughRemovableReplicas, fmt.Sprintf(
			"%d of %d replicas to remove cannot be removed: only %d are removable. Hosting shoots: %s. Protected from deletion: %s. Drain or unprotect seeds, or raise spec.replicas.",
			n, plan.asked, len(plan.removable), orNone(strings.Join(plan.hostingShoots, ", ")), orNone(strings.Join(plan.protected, ", "))))
		if old := meta.FindStatusCondition(set.Status.Conditions, seedmanagementv1alpha1.ManagedSeedSetScaleInBlocked); old == nil || old.Status != blocked.Status || old.Message != blocked.Message {
			a.event(set, EventScaleInBlocked, "Scale", "%s", blocked.Message)
			if set.DeletionTimestamp != nil {
				a.event(set, EventWaitingForReplicasToBeRemoved, "Delete", "The set is deleted once its last replica is removed; %d cannot be removed yet", n)
			}
		}
	}
	controllerutils.SetCondition(&set.Status.Conditions, seedmanagementv1alpha1.ManagedSeedSetScaleInBlocked, blocked, set.Generation, a.Clock.Now())
}

// setReplicaFailed sets ReplicaFailed from the replicas whose retries are used up.
func (a *Actuator) setReplicaFailed(set *seedmanagementv1alpha1.ManagedSeedSet, w world) {
	var failed []string
	for _, replica := range w.replicas {
		if replica.givenUp(w.maxRetries) {
			failed = append(failed, replica.name)
		}
	}
	replicaFailed := controllerutils.False(ReasonNoFailedReplicas, "No replica's shoot has failed beyond its retries.")
	if len(failed) > 0 {
		replicaFailed = controllerutils.True(ReasonRetriesExhausted, fmt.Sprintf(
			"The shoots of replicas %s failed after %d retries: fix the cause and annotate the shoot with %s=%s, change the templates, or scale the replica in.",
			strings.Join(failed, ", "), w.maxRetries, seedmanagementv1alpha1.AnnotationOperation, seedmanagementv1alpha1.OperationRetry))
	}
	controllerutils.SetCondition(&set.Status.Conditions, ConditionReplicaFailed, replicaFailed, set.Generation, a.Clock.Now())
}
