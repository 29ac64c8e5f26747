package managedseedset

import (
	"slices"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

// stepKind is what the set does next with one replica.
type stepKind int

const (
	// stepNone: nothing to do for the replica.
	stepNone stepKind = iota
	// stepDone: the replica is settled (Ready, or removed completely).
	stepDone
	// stepWait: the replica is in flight; wait for the gardenlet or the seed controller.
	stepWait
	// stepGiveUp: the replica's shoot failed and its retries are used up; report and move on.
	stepGiveUp
	stepCreateShoot
	stepCreateManagedSeed
	stepRetryShoot
	stepDeleteManagedSeed
	stepDeleteShoot
	stepUpdate
)

func (k stepKind) String() string {
	return [...]string{"None", "Done", "Wait", "GiveUp", "CreateShoot", "CreateManagedSeed", "RetryShoot",
		"DeleteManagedSeed", "DeleteShoot", "Update"}[k]
}

// acts reports whether the step writes something (as opposed to waiting or settling).
func (k stepKind) acts() bool { return k >= stepCreateShoot }

// step is the next thing to do with one replica and the pending reason it leaves behind.
type step struct {
	kind    stepKind
	reason  seedmanagementv1alpha1.PendingReplicaReason
	retries int32
}

// replicaStep decides the next step of a replica that is created or updated (removing false)
// or removed (removing true). It is the replica life cycle of the GEP:
//
//	create: Shoot → ShootReconciling → ManagedSeed → ManagedSeedPreparing → SeedNotReady → ShootNotHealthy → Ready
//	remove: ManagedSeed deleted → ManagedSeedDeleting → Shoot deleted → ShootDeleting → gone
//
// A failed shoot operation is retried up to maxRetries times, then given up.
func replicaStep(replica *replica, removing bool, maxRetries int32) step {
	if removing {
		switch {
		case replica.managedSeed != nil && replica.managedSeed.DeletionTimestamp == nil:
			return step{kind: stepDeleteManagedSeed, reason: seedmanagementv1alpha1.ManagedSeedDeletingReason}
		case replica.managedSeed != nil:
			return step{kind: stepWait, reason: seedmanagementv1alpha1.ManagedSeedDeletingReason}
		case replica.shoot == nil:
			return step{kind: stepDone}
		case replica.shoot.DeletionTimestamp == nil:
			return step{kind: stepDeleteShoot, reason: seedmanagementv1alpha1.ShootDeletingReason}
		case shootDeleteFailed(replica.shoot):
			return retryOrGiveUp(replica, AnnotationDeleteRetries, maxRetries, seedmanagementv1alpha1.ShootDeletingReason, seedmanagementv1alpha1.ShootDeleteFailedReason)
		default:
			return step{kind: stepWait, reason: seedmanagementv1alpha1.ShootDeletingReason, retries: replica.retries(AnnotationDeleteRetries)}
		}
	}
	switch {
	case replica.shoot == nil:
		return step{kind: stepCreateShoot, reason: seedmanagementv1alpha1.ShootReconcilingReason}
	case shootReconcileFailed(replica.shoot):
		return retryOrGiveUp(replica, AnnotationReconcileRetries, maxRetries, seedmanagementv1alpha1.ShootReconcilingReason, seedmanagementv1alpha1.ShootReconcileFailedReason)
	case !shootReconciled(replica.shoot):
		return step{kind: stepWait, reason: seedmanagementv1alpha1.ShootReconcilingReason, retries: replica.retries(AnnotationReconcileRetries)}
	case replica.managedSeed == nil:
		return step{kind: stepCreateManagedSeed, reason: seedmanagementv1alpha1.ManagedSeedPreparingReason}
	case !managedSeedRegistered(replica.managedSeed):
		return step{kind: stepWait, reason: seedmanagementv1alpha1.ManagedSeedPreparingReason}
	case !seedReady(replica.seed):
		return step{kind: stepWait, reason: seedmanagementv1alpha1.SeedNotReadyReason}
	case !shootHealthy(replica.shoot):
		return step{kind: stepWait, reason: seedmanagementv1alpha1.ShootNotHealthyReason}
	default:
		return step{kind: stepDone}
	}
}

// retryOrGiveUp is the step for a replica whose shoot operation failed for good: another
// retry while the count kept in the annotation is below maxRetries, else give up. retrying is
// the pending reason while retrying, failed the one after giving up.
func retryOrGiveUp(replica *replica, annotation string, maxRetries int32, retrying, failed seedmanagementv1alpha1.PendingReplicaReason) step {
	retries := replica.retries(annotation)
	if retries < maxRetries {
		return step{kind: stepRetryShoot, reason: retrying, retries: retries + 1}
	}
	return step{kind: stepGiveUp, reason: failed, retries: retries}
}

// removingReason reports whether a pending reason belongs to the removal of a replica.
func removingReason(reason seedmanagementv1alpha1.PendingReplicaReason) bool {
	switch reason {
	case seedmanagementv1alpha1.ManagedSeedDeletingReason, seedmanagementv1alpha1.ShootDeletingReason,
		seedmanagementv1alpha1.ShootDeleteFailedReason:
		return true
	}
	return false
}

// scaleInCandidate is what the scale-in order looks at.
type scaleInCandidate struct {
	ordinal  int32
	priority int
	ready    bool
	drained  bool
}

// scaleInLess reports whether replica a is removed before replica b when a set scales in:
// a drained replica (seedscaler.io/drain=true on its ManagedSeed or Seed) goes first, since
// it was emptied to be removed; then the lower seedmanagement.gardener.cloud/priority
// (default 3); at equal priority a NotReady replica goes before a Ready one; then the older
// replica, the one with the lower ordinal, goes first. Ordinals are unique, so the order is
// total.
func scaleInLess(a, b scaleInCandidate) bool {
	if a.drained != b.drained {
		return a.drained
	}
	if a.priority != b.priority {
		return a.priority < b.priority
	}
	if a.ready != b.ready {
		return !a.ready
	}
	return a.ordinal < b.ordinal
}

func candidateOf(replica *replica) scaleInCandidate {
	return scaleInCandidate{ordinal: replica.ordinal, priority: replica.priority(), ready: replica.ready(), drained: replica.drained()}
}

// scaleIn is how a scale-in stands: which replicas may go, in order, and why others may not.
type scaleIn struct {
	// asked is how many replicas the set must lose to reach its target.
	asked int
	// removable are the replicas that may go, first to go first.
	removable []*replica
	// hostingShoots and protected name the replicas that may not go.
	hostingShoots, protected []string
}

// blocked is how many of the asked removals cannot happen.
func (s scaleIn) blocked() int { return max(0, s.asked-len(s.removable)) }

// planScaleIn picks, among the active replicas, those a scale-in to target may remove: only
// replicas whose seed hosts no shoots and that are not protected from deletion, ordered by
// scaleInLess.
func planScaleIn(active []*replica, target int) scaleIn {
	s := scaleIn{asked: max(0, len(active)-target)}
	if s.asked == 0 {
		return s
	}
	// The sort keys are computed once per replica, not per comparison: priority parses an
	// annotation and readiness looks at three objects.
	type ranked struct {
		replica *replica
		c       scaleInCandidate
	}
	var removable []ranked
	for _, replica := range active {
		switch {
		case replica.protected():
			s.protected = append(s.protected, replica.name)
		case replica.shootsOnSeed > 0:
			s.hostingShoots = append(s.hostingShoots, replica.name)
		default:
			removable = append(removable, ranked{replica: replica, c: candidateOf(replica)})
		}
	}
	slices.SortFunc(removable, func(a, b ranked) int {
		switch {
		case scaleInLess(a.c, b.c):
			return -1
		case scaleInLess(b.c, a.c):
			return 1
		}
		return 0
	})
	s.removable = make([]*replica, len(removable))
	for i, x := range removable {
		s.removable[i] = x.replica
	}
	return s
}

// world is what a decision looks at: no client, no clock.
type world struct {
	// replicas of the set, by ascending ordinal.
	replicas []*replica
	// pending is status.pendingReplica.
	pending *seedmanagementv1alpha1.PendingReplica
	// target is the desired number of replicas (0 while the set is deleted).
	target int
	// partition: only replicas with ordinal >= partition are updated.
	partition int32
	// updateRevision is the revision of the current templates.
	updateRevision string
	// nextOrdinal is the ordinal a new replica gets.
	nextOrdinal int32
	maxRetries  int32
}

// decision is the one thing a reconcile does next.
type decision struct {
	// replica the step applies to; nil for stepNone. For stepCreateShoot of a new replica it
	// has only name and ordinal.
	replica *replica
	step    step
	// newReplica is set when the step adds a replica with a new ordinal.
	newReplica bool
	// givenUp names the replicas this decision passed over because their retries are used up.
	givenUp []*replica
	// waitingForUpdate names a replica at the update revision that is not Ready yet, holding
	// back the rolling update.
	waitingForUpdate string
}

// removing reports whether a replica is on its way out: its ManagedSeed or Shoot is being
// deleted, or it is the pending replica and its pending reason belongs to a removal.
func (w *world) removing(replica *replica) bool {
	if replica.deleting() {
		return true
	}
	return w.pending != nil && w.pending.Name == replica.name && removingReason(w.pending.Reason)
}

// active returns the replicas that are not being removed.
func (w *world) active() []*replica {
	var out []*replica
	for _, replica := range w.replicas {
		if !w.removing(replica) {
			out = append(out, replica)
		}
	}
	return out
}

// decide picks the one step a reconcile takes, keeping at most one replica in flight:
//  1. a removal in flight is finished first (the pending one, else the lowest ordinal);
//  2. the pending replica being created or updated is followed until Ready, unless the set
//     now scales in;
//  3. the set scales out (a new ordinal) or in (the first removable replica by scaleInLess);
//  4. replicas that need an action (a missing ManagedSeed or Shoot, a failed shoot with
//     retries left) get it, lowest ordinal first;
//  5. the rolling update takes the highest ordinal >= partition not at the update revision,
//     once every replica already at the update revision is Ready.
//
// Replicas whose retries are used up are passed over (reported in givenUp).
func decide(w world) decision {
	var d decision
	if d.finishRemoval(&w) {
		return d
	}
	active := w.active()
	scalingIn := len(active) > w.target
	if !scalingIn && d.followPending(&w, active) {
		return d
	}
	if d.scale(&w, active) || d.act(&w, active) {
		return d
	}
	d.rollingUpdate(&w, active)
	return d
}

// settle reports whether a replica's step needs nothing of this reconcile: it is done, or
// its retries are used up (remembered in givenUp).
func (d *decision) settle(replica *replica, s step) bool {
	switch s.kind {
	case stepDone:
		return true
	case stepGiveUp:
		d.givenUp = append(d.givenUp, replica)
		return true
	}
	return false
}

// take makes replica's step the decision.
func (d *decision) take(replica *replica, s step) bool {
	d.replica, d.step = replica, s
	return true
}

// finishRemoval is step 1: a removal in flight, the pending one first.
func (d *decision) finishRemoval(w *world) bool {
	removals := []*replica{}
	for _, replica := range w.replicas {
		if w.removing(replica) {
			if w.pending != nil && replica.name == w.pending.Name {
				removals = slices.Insert(removals, 0, replica)
			} else {
				removals = append(removals, replica)
			}
		}
	}
	for _, replica := range removals {
		if s := replicaStep(replica, true, w.maxRetries); !d.settle(replica, s) {
			return d.take(replica, s)
		}
	}
	return false
}

// followPending is step 2: the pending replica being created or updated.
func (d *decision) followPending(w *world, active []*replica) bool {
	if w.pending == nil {
		return false
	}
	for _, replica := range active {
		if replica.name == w.pending.Name {
			if s := replicaStep(replica, false, w.maxRetries); !d.settle(replica, s) {
				return d.take(replica, s)
			}
		}
	}
	return false
}

// scale is step 3: a new ordinal when the set has fewer replicas than its target, the first
// removable replica when it has more. A scale-in with nothing removable decides nothing
// else this time.
func (d *decision) scale(w *world, active []*replica) bool {
	switch {
	case len(active) < w.target:
		d.newReplica = true
		return d.take(&replica{name: "", ordinal: w.nextOrdinal},
			step{kind: stepCreateShoot, reason: seedmanagementv1alpha1.ShootReconcilingReason})
	case len(active) > w.target:
		plan := planScaleIn(active, w.target)
		if len(plan.removable) == 0 {
			return true
		}
		replica := plan.removable[0]
		return d.take(replica, replicaStep(replica, true, w.maxRetries))
	}
	return false
}

// act is step 4: the first replica that needs an action.
func (d *decision) act(w *world, active []*replica) bool {
	for _, replica := range active {
		s := replicaStep(replica, false, w.maxRetries)
		if s.kind == stepGiveUp && !slices.Contains(d.givenUp, replica) {
			d.givenUp = append(d.givenUp, replica)
		}
		if s.kind.acts() {
			return d.take(replica, s)
		}
	}
	return false
}

// rollingUpdate is step 5: the highest ordinal at or above the partition that is not at the
// update revision, unless a replica already at it is not Ready yet (waitingForUpdate).
func (d *decision) rollingUpdate(w *world, active []*replica) {
	for _, replica := range active {
		if replica.revision() == w.updateRevision && !replica.ready() {
			d.waitingForUpdate = replica.name
		}
	}
	for i := len(active) - 1; i >= 0; i-- {
		replica := active[i]
		if replica.ordinal < w.partition || replica.revision() == w.updateRevision {
			continue
		}
		if d.waitingForUpdate == "" {
			d.take(replica, step{kind: stepUpdate, reason: seedmanagementv1alpha1.ShootReconcilingReason})
		}
		return
	}
	d.waitingForUpdate = ""
}
