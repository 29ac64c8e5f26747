package managedseedset

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

func TestScaleInLess(t *testing.T) {
	tests := []struct {
		name string
		a, b scaleInCandidate
		want bool
	}{
		{"lower priority goes first", scaleInCandidate{ordinal: 5, priority: 1, ready: true}, scaleInCandidate{ordinal: 0, priority: 3}, true},
		{"higher priority goes last", scaleInCandidate{ordinal: 0, priority: 5}, scaleInCandidate{ordinal: 9, priority: 3, ready: true}, false},
		{"equal priority: NotReady before Ready", scaleInCandidate{ordinal: 7, priority: 3}, scaleInCandidate{ordinal: 1, priority: 3, ready: true}, true},
		{"equal priority: Ready after NotReady", scaleInCandidate{ordinal: 1, priority: 3, ready: true}, scaleInCandidate{ordinal: 7, priority: 3}, false},
		{"equal priority and readiness: older first", scaleInCandidate{ordinal: 2, priority: 3, ready: true}, scaleInCandidate{ordinal: 4, priority: 3, ready: true}, true},
		{"equal priority and readiness: newer last", scaleInCandidate{ordinal: 4, priority: 3}, scaleInCandidate{ordinal: 2, priority: 3}, false},
		{"negative priority goes before default", scaleInCandidate{ordinal: 9, priority: -1, ready: true}, scaleInCandidate{ordinal: 0, priority: 3}, true},
		{"drained goes first, whatever its priority", scaleInCandidate{ordinal: 9, priority: 9, ready: true, drained: true}, scaleInCandidate{ordinal: 0, priority: 1}, true},
		{"undrained goes after drained", scaleInCandidate{ordinal: 0, priority: 1}, scaleInCandidate{ordinal: 9, priority: 9, ready: true, drained: true}, false},
		{"both drained: priority decides", scaleInCandidate{ordinal: 9, priority: 1, drained: true}, scaleInCandidate{ordinal: 0, priority: 3, drained: true}, true},
		{"irreflexive", scaleInCandidate{ordinal: 3, priority: 3}, scaleInCandidate{ordinal: 3, priority: 3}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, scaleInLess(tt.a, tt.b))
		})
	}
}

// fixture builds replicas in the states the tests need.
type fixture struct{ set string }

func (f fixture) replica(ordinal int32) *replica {
	name := replicaName(f.set, ordinal)
	return &replica{name: name, ordinal: ordinal}
}

func withShoot(r *replica, state gardencorev1beta1.LastOperationState, revision string) *replica {
	r.shoot = builders.MakeShoot("ns", r.name).Obj()
	r.shoot.Labels = map[string]string{seedmanagementv1alpha1.LabelControllerRevisionHash: revision}
	r.shoot.Generation, r.shoot.Status.ObservedGeneration = 1, 1
	if state != "" {
		r.shoot.Status.LastOperation = &gardencorev1beta1.LastOperation{Type: gardencorev1beta1.LastOperationTypeCreate, State: state}
	}
	return r
}

func withManagedSeed(r *replica, registered bool, revision string) *replica {
	r.managedSeed = &seedmanagementv1alpha1.ManagedSeed{ObjectMeta: metav1.ObjectMeta{Name: r.name, Namespace: "ns", Generation: 1,
		Labels: map[string]string{seedmanagementv1alpha1.LabelControllerRevisionHash: revision}}}
	if registered {
		r.managedSeed.Status.ObservedGeneration = 1
		r.managedSeed.Status.Conditions = []metav1.Condition{{Type: seedmanagementv1alpha1.ManagedSeedSeedRegistered, Status: metav1.ConditionTrue}}
	}
	return r
}

func withSeed(r *replica, ready bool) *replica {
	b := builders.MakeSeed(r.name)
	if ready {
		b = b.Ready()
	}
	r.seed = b.Obj()
	return r
}

// readyReplica is a replica at the given revision whose Shoot succeeded and Seed is ready.
func readyReplica(f fixture, ordinal int32, revision string) *replica {
	return withSeed(withManagedSeed(withShoot(f.replica(ordinal), gardencorev1beta1.LastOperationStateSucceeded, revision), true, revision), true)
}

// annotate sets annotations on the replica's ManagedSeed.
func annotate(r *replica, kv ...string) *replica {
	if r.managedSeed != nil {
		if r.managedSeed.Annotations == nil {
			r.managedSeed.Annotations = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			r.managedSeed.Annotations[kv[i]] = kv[i+1]
		}
	}
	return r
}

func TestReplicaStep(t *testing.T) {
	f := fixture{set: "s"}
	deleting := metav1.Now()
	failedTwice := withShoot(f.replica(0), gardencorev1beta1.LastOperationStateFailed, "r1")
	failedTwice.shoot.Annotations = map[string]string{AnnotationReconcileRetries: "2"}
	retrying := withShoot(f.replica(0), gardencorev1beta1.LastOperationStateFailed, "r1")
	retrying.shoot.Annotations = map[string]string{seedmanagementv1alpha1.AnnotationOperation: seedmanagementv1alpha1.OperationRetry}
	newGeneration := withShoot(f.replica(0), gardencorev1beta1.LastOperationStateSucceeded, "r1")
	newGeneration.shoot.Generation = 2
	unhealthy := readyReplica(f, 0, "r1")
	unhealthy.shoot.Status.Conditions = []metav1.Condition{{Type: "APIServerAvailable", Status: metav1.ConditionFalse}}
	msDeleting := readyReplica(f, 0, "r1")
	msDeleting.managedSeed.DeletionTimestamp = &deleting
	shootDeleteFailed := withShoot(f.replica(0), gardencorev1beta1.LastOperationStateFailed, "r1")
	shootDeleteFailed.shoot.DeletionTimestamp = &deleting
	shootDeleteFailed.shoot.Status.LastOperation.Type = gardencorev1beta1.LastOperationTypeDelete

	tests := []struct {
		name     string
		r        *replica
		removing bool
		want     step
	}{
		{"no shoot: create it", f.replica(0), false, step{kind: stepCreateShoot, reason: seedmanagementv1alpha1.ShootReconcilingReason}},
		{"shoot processing", withShoot(f.replica(0), gardencorev1beta1.LastOperationStateProcessing, "r1"), false, step{kind: stepWait, reason: seedmanagementv1alpha1.ShootReconcilingReason}},
		{"shoot without operation yet", withShoot(f.replica(0), "", "r1"), false, step{kind: stepWait, reason: seedmanagementv1alpha1.ShootReconcilingReason}},
		{"spec not observed yet", newGeneration, false, step{kind: stepWait, reason: seedmanagementv1alpha1.ShootReconcilingReason}},
		{"shoot failed: first retry", withShoot(f.replica(0), gardencorev1beta1.LastOperationStateFailed, "r1"), false, step{kind: stepRetryShoot, reason: seedmanagementv1alpha1.ShootReconcilingReason, retries: 1}},
		{"shoot failed: third retry", failedTwice, false, step{kind: stepRetryShoot, reason: seedmanagementv1alpha1.ShootReconcilingReason, retries: 3}},
		{"retry asked, not taken up yet", retrying, false, step{kind: stepWait, reason: seedmanagementv1alpha1.ShootReconcilingReason}},
		{"shoot succeeded: create ManagedSeed", withShoot(f.replica(0), gardencorev1beta1.LastOperationStateSucceeded, "r1"), false, step{kind: stepCreateManagedSeed, reason: seedmanagementv1alpha1.ManagedSeedPreparingReason}},
		{"ManagedSeed not registered", withManagedSeed(withShoot(f.replica(0), gardencorev1beta1.LastOperationStateSucceeded, "r1"), false, "r1"), false, step{kind: stepWait, reason: seedmanagementv1alpha1.ManagedSeedPreparingReason}},
		{"seed missing", withManagedSeed(withShoot(f.replica(0), gardencorev1beta1.LastOperationStateSucceeded, "r1"), true, "r1"), false, step{kind: stepWait, reason: seedmanagementv1alpha1.SeedNotReadyReason}},
		{"seed not ready", withSeed(withManagedSeed(withShoot(f.replica(0), gardencorev1beta1.LastOperationStateSucceeded, "r1"), true, "r1"), false), false, step{kind: stepWait, reason: seedmanagementv1alpha1.SeedNotReadyReason}},
		{"shoot unhealthy", unhealthy, false, step{kind: stepWait, reason: seedmanagementv1alpha1.ShootNotHealthyReason}},
		{"ready", readyReplica(f, 0, "r1"), false, step{kind: stepDone}},
		{"remove: delete ManagedSeed first", readyReplica(f, 0, "r1"), true, step{kind: stepDeleteManagedSeed, reason: seedmanagementv1alpha1.ManagedSeedDeletingReason}},
		{"remove: wait for ManagedSeed", msDeleting, true, step{kind: stepWait, reason: seedmanagementv1alpha1.ManagedSeedDeletingReason}},
		{"remove: then the Shoot", withShoot(f.replica(0), gardencorev1beta1.LastOperationStateSucceeded, "r1"), true, step{kind: stepDeleteShoot, reason: seedmanagementv1alpha1.ShootDeletingReason}},
		{"remove: shoot deletion failed", shootDeleteFailed, true, step{kind: stepRetryShoot, reason: seedmanagementv1alpha1.ShootDeletingReason, retries: 1}},
		{"remove: gone", f.replica(0), true, step{kind: stepDone}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, replicaStep(tt.r, tt.removing, 3))
		})
	}

	t.Run("retries used up", func(t *testing.T) {
		r := withShoot(f.replica(0), gardencorev1beta1.LastOperationStateFailed, "r1")
		r.shoot.Annotations = map[string]string{AnnotationReconcileRetries: "3"}
		assert.Equal(t, step{kind: stepGiveUp, reason: seedmanagementv1alpha1.ShootReconcileFailedReason, retries: 3}, replicaStep(r, false, 3))
		assert.True(t, r.givenUp(3))
		assert.False(t, r.givenUp(4))
	})
}

func TestPlanScaleIn(t *testing.T) {
	f := fixture{set: "s"}
	r0 := readyReplica(f, 0, "r1") // ready, default priority
	r1 := readyReplica(f, 1, "r1") // hosts shoots
	r1.shootsOnSeed = 2
	r2 := annotate(readyReplica(f, 2, "r1"), seedmanagementv1alpha1.AnnotationProtectFromDeletion, "true")
	r3 := withSeed(withManagedSeed(withShoot(f.replica(3), gardencorev1beta1.LastOperationStateSucceeded, "r1"), true, "r1"), false) // NotReady
	r4 := annotate(readyReplica(f, 4, "r1"), seedmanagementv1alpha1.AnnotationPriority, "1")
	r5 := annotate(readyReplica(f, 5, "r1"), seedmanagementv1alpha1.AnnotationPriority, "not-a-number") // default
	active := []*replica{r0, r1, r2, r3, r4, r5}

	plan := planScaleIn(active, 1)
	assert.Equal(t, 5, plan.asked)
	names := func(rs []*replica) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.name)
		}
		return out
	}
	assert.Equal(t, []string{"s-4", "s-3", "s-0", "s-5"}, names(plan.removable), "priority 1 first, then NotReady, then by age")
	assert.Equal(t, []string{"s-1"}, plan.hostingShoots)
	assert.Equal(t, []string{"s-2"}, plan.protected)
	assert.Equal(t, 1, plan.blocked())

	assert.Equal(t, 0, planScaleIn(active, 6).asked)
	assert.Equal(t, 0, planScaleIn(active, 4).blocked())

	// An empty drained replica goes first; a drained one that still hosts shoots waits.
	r6 := annotate(readyReplica(f, 6, "r1"), gardencorev1beta1.AnnotationDrain, "true")
	r7 := readyReplica(f, 7, "r1")
	r7.seed.Annotations = map[string]string{gardencorev1beta1.AnnotationDrain: "true"}
	r7.shootsOnSeed = 1
	plan = planScaleIn(append(active, r6, r7), 1)
	assert.Equal(t, []string{"s-6", "s-4", "s-3", "s-0", "s-5"}, names(plan.removable), "the drained replica first, whatever its age")
	assert.Equal(t, []string{"s-1", "s-7"}, plan.hostingShoots)
}

func TestDecide(t *testing.T) {
	f := fixture{set: "s"}
	base := func(replicas ...*replica) world {
		return world{replicas: replicas, target: len(replicas), updateRevision: "r1", nextOrdinal: 7, maxRetries: 2}
	}

	t.Run("scale out takes the next ordinal, never a gap", func(t *testing.T) {
		w := base(readyReplica(f, 0, "r1"), readyReplica(f, 3, "r1"))
		w.target = 3
		d := decide(w)
		require.True(t, d.newReplica)
		assert.Equal(t, int32(7), d.replica.ordinal)
		assert.Equal(t, stepCreateShoot, d.step.kind)
	})

	t.Run("the pending replica holds back the scale-out until Ready", func(t *testing.T) {
		creating := withShoot(f.replica(1), gardencorev1beta1.LastOperationStateProcessing, "r1")
		w := base(readyReplica(f, 0, "r1"), creating)
		w.target = 4
		w.pending = &seedmanagementv1alpha1.PendingReplica{Name: "s-1", Reason: seedmanagementv1alpha1.ShootReconcilingReason}
		d := decide(w)
		assert.Equal(t, "s-1", d.replica.name)
		assert.Equal(t, stepWait, d.step.kind)
	})

	t.Run("a given-up replica does not hold back the scale-out", func(t *testing.T) {
		failed := withShoot(f.replica(1), gardencorev1beta1.LastOperationStateFailed, "r1")
		failed.shoot.Annotations = map[string]string{AnnotationReconcileRetries: "2"}
		w := base(readyReplica(f, 0, "r1"), failed)
		w.target = 3
		w.pending = &seedmanagementv1alpha1.PendingReplica{Name: "s-1", Reason: seedmanagementv1alpha1.ShootReconcilingReason}
		d := decide(w)
		assert.True(t, d.newReplica)
		assert.Equal(t, []*replica{failed}, d.givenUp)
	})

	t.Run("scale in removes by priority, never hosting or protected ones", func(t *testing.T) {
		hosting := readyReplica(f, 0, "r1")
		hosting.shootsOnSeed = 1
		protected := annotate(readyReplica(f, 1, "r1"), seedmanagementv1alpha1.AnnotationProtectFromDeletion, "true")
		w := base(hosting, protected, readyReplica(f, 2, "r1"))
		w.target = 0
		d := decide(w)
		assert.Equal(t, "s-2", d.replica.name)
		assert.Equal(t, stepDeleteManagedSeed, d.step.kind)

		w = base(hosting, protected)
		w.target = 0
		assert.Nil(t, decide(w).replica, "nothing removable: nothing to do")
	})

	t.Run("a removal in flight finishes first and is not counted", func(t *testing.T) {
		gone := withShoot(f.replica(2), gardencorev1beta1.LastOperationStateSucceeded, "r1") // ManagedSeed already deleted
		w := base(readyReplica(f, 0, "r1"), readyReplica(f, 1, "r1"), gone)
		w.target = 1
		w.pending = &seedmanagementv1alpha1.PendingReplica{Name: "s-2", Reason: seedmanagementv1alpha1.ManagedSeedDeletingReason}
		d := decide(w)
		assert.Equal(t, "s-2", d.replica.name)
		assert.Equal(t, stepDeleteShoot, d.step.kind)
		assert.Len(t, w.active(), 2)
	})

	t.Run("a shoot-only replica that is not being removed gets its ManagedSeed", func(t *testing.T) {
		w := base(readyReplica(f, 0, "r1"), withShoot(f.replica(1), gardencorev1beta1.LastOperationStateSucceeded, "r1"))
		d := decide(w)
		assert.Equal(t, "s-1", d.replica.name)
		assert.Equal(t, stepCreateManagedSeed, d.step.kind)
	})

	t.Run("rolling update: highest ordinal first, only from the partition up", func(t *testing.T) {
		w := base(readyReplica(f, 0, "r0"), readyReplica(f, 1, "r0"), readyReplica(f, 2, "r0"), readyReplica(f, 4, "r0"))
		w.partition = 2
		d := decide(w)
		assert.Equal(t, "s-4", d.replica.name)
		assert.Equal(t, stepUpdate, d.step.kind)

		w = base(readyReplica(f, 0, "r0"), readyReplica(f, 1, "r0"), readyReplica(f, 2, "r0"), readyReplica(f, 4, "r1"))
		w.partition = 2
		assert.Equal(t, "s-2", decide(w).replica.name)

		w = base(readyReplica(f, 0, "r0"), readyReplica(f, 1, "r0"), readyReplica(f, 2, "r1"), readyReplica(f, 4, "r1"))
		w.partition = 2
		assert.Nil(t, decide(w).replica, "below the partition nothing changes")
	})

	t.Run("rolling update waits for the updated replica to be Ready", func(t *testing.T) {
		updated := withSeed(withManagedSeed(withShoot(f.replica(4), gardencorev1beta1.LastOperationStateSucceeded, "r1"), true, "r1"), false)
		w := base(readyReplica(f, 0, "r0"), readyReplica(f, 1, "r0"), updated)
		d := decide(w)
		assert.Nil(t, d.replica)
		assert.Equal(t, "s-4", d.waitingForUpdate)
	})
}

func TestParseOrdinal(t *testing.T) {
	for name, want := range map[string]int32{"set-0": 0, "set-12": 12} {
		got, ok := parseOrdinal("set", name)
		assert.True(t, ok, name)
		assert.Equal(t, want, got, name)
	}
	for _, name := range []string{"set-", "set-01", "set--1", "set-a", "other-1", "set-1-2", "set-99999999999", "set-+1"} {
		_, ok := parseOrdinal("set", name)
		assert.False(t, ok, name)
	}
}

func TestRevisionsToPrune(t *testing.T) {
	rev := func(name string, n int64) *appsv1.ControllerRevision {
		r := &appsv1.ControllerRevision{Revision: n}
		r.Name = name
		return r
	}
	all := []*appsv1.ControllerRevision{rev("a", 1), rev("b", 2), rev("c", 3), rev("d", 4), rev("e", 5)}
	live := map[string]bool{"e": true, "b": true}
	var pruned []string
	for _, r := range revisionsToPrune(all, live, 1) {
		pruned = append(pruned, r.Name)
	}
	assert.Equal(t, []string{"a", "c"}, pruned, "oldest history goes, live revisions stay")
	assert.Empty(t, revisionsToPrune(all, live, 3))
	assert.Len(t, revisionsToPrune(all, live, 0), 3)
}

func TestRevisionNameAndHash(t *testing.T) {
	raw := []byte(`{"a":1}`)
	h := revisionHash(raw, nil)
	assert.Equal(t, h, revisionHash(raw, nil), "deterministic")
	assert.NotEqual(t, h, revisionHash(raw, ptr.To[int32](1)), "a collision count changes the hash")
	assert.NotEqual(t, h, revisionHash([]byte(`{"a":2}`), nil))
	long := revisionName("a-very-long-managed-seed-set-name-that-goes-on-and-on-and-on-xx", h)
	assert.LessOrEqual(t, len(long), 63)
	assert.Equal(t, "set-"+h, revisionName("set", h))
}
