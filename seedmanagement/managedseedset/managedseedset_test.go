//go:build integration

package managedseedset

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

func TestScaleOutAndInRemovesOnlyEmptyUnprotectedReplicasInOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := namespace(ctx, t, "scale")
	set := testenv.Unique("scale")
	key := createSet(ctx, t, ns, set, 0)

	s := requireSettled(ctx, t, key, 0)
	assert.Equal(t, "foo=bar", s.Status.Selector, "status.selector serves the scale subresource")
	assert.NotEmpty(t, s.Status.UpdateRevision)

	// 0 → 3 → 5: ordinals from 0, one after the other.
	scale(ctx, t, key, 3)
	s = requireSettled(ctx, t, key, 3)
	assert.Equal(t, names(set, 0, 1, 2), replicaNames(ctx, t, key))
	assert.Equal(t, int32(3), s.Status.NextReplicaNumber)
	// The scale subresource, as kubectl scale and the SeedAutoscaler use it.
	sc := &autoscalingv1.Scale{}
	require.NoError(t, env.Client.SubResource("scale").Get(ctx, s, sc))
	assert.Equal(t, int32(3), sc.Spec.Replicas)
	assert.Equal(t, int32(3), sc.Status.Replicas)
	assert.Equal(t, "foo=bar", sc.Status.Selector)
	sc.Spec.Replicas = 5
	require.NoError(t, env.Client.SubResource("scale").Update(ctx, s, client.WithSubResourceBody(sc)))
	s = requireSettled(ctx, t, key, 5)
	assert.Equal(t, names(set, 0, 1, 2, 3, 4), replicaNames(ctx, t, key))
	assert.Equal(t, int32(5), s.Status.NextReplicaNumber)

	// Replicas are owned by the set and carry the template labels and the revision.
	ms := &seedmanagementv1alpha1.ManagedSeed{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: set + "-0"}, ms))
	assert.True(t, metav1.IsControlledBy(ms, s))
	assert.Equal(t, "bar", ms.Labels["foo"])
	assert.Equal(t, s.Status.UpdateRevision, ms.Labels[seedmanagementv1alpha1.LabelControllerRevisionHash])
	assert.Equal(t, set+"-0", ms.Spec.Shoot.Name)
	shoot := &gardencorev1beta1.Shoot{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: set + "-0"}, shoot))
	assert.True(t, metav1.IsControlledBy(shoot, s))
	assert.Equal(t, "bar", shoot.Labels["foo"])

	// set-1 hosts shoots, set-3 is protected, set-4 has priority 1.
	placeShoot(ctx, t, ns, "tenant-a", set+"-1")
	placeShoot(ctx, t, ns, "tenant-b", set+"-1")
	annotateManagedSeed(ctx, t, ns, set+"-3", seedmanagementv1alpha1.AnnotationProtectFromDeletion, "true")
	annotateManagedSeed(ctx, t, ns, set+"-4", seedmanagementv1alpha1.AnnotationPriority, "1")

	// 5 → 2: priority 1 first, then the older of the rest; never 1 or 3.
	scale(ctx, t, key, 2)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		s := getSet(ctx, c, key)
		require.Equal(c, s.Generation, s.Status.ObservedGeneration)
		require.Nil(c, s.Status.PendingReplica)
		require.Equal(c, int32(2), s.Status.Replicas)
		require.Equal(c, names(set, 1, 3), replicaNames(ctx, c, key))
		require.Equal(c, names(set, 1, 3), managedSeedNames(ctx, c, key))
	}, eventually, tick)
	removed, _ := hist.removals("ManagedSeed", set)
	assert.Equal(t, []string{ns + "/" + set + "-4", ns + "/" + set + "-0", ns + "/" + set + "-2"}, removed, "scale-in order")
	for _, name := range names(set, 0, 2, 4) {
		assert.False(t, seedExists(ctx, t, name), "the Seed of removed replica %s is gone", name)
	}
	assert.True(t, seedExists(ctx, t, set+"-1"))
	assert.Equal(t, metav1.ConditionFalse, setCondition(getSet(ctx, t, key), seedmanagementv1alpha1.ManagedSeedSetScaleInBlocked).Status)

	// 2 → 1: nothing is removable, the set says so.
	scale(ctx, t, key, 1)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		s := getSet(ctx, c, key)
		require.Equal(c, s.Generation, s.Status.ObservedGeneration)
		cond := setCondition(s, seedmanagementv1alpha1.ManagedSeedSetScaleInBlocked)
		require.NotNil(c, cond)
		require.Equal(c, metav1.ConditionTrue, cond.Status)
		assert.Equal(c, string(ReasonNotEnoughRemovableReplicas), cond.Reason)
		assert.Contains(c, cond.Message, "1 of 1 replicas to remove cannot be removed")
		assert.Contains(c, cond.Message, "Hosting shoots: "+set+"-1")
		assert.Contains(c, cond.Message, "Protected from deletion: "+set+"-3")
		require.NotEmpty(c, eventNotes(ctx, c, key, EventScaleInBlocked))
		assert.Equal(c, int32(2), s.Status.Replicas)
	}, eventually, tick)
	assert.Equal(t, names(set, 1, 3), replicaNames(ctx, t, key))

	// Once set-1 is drained it goes.
	deleteShoot(ctx, t, ns, "tenant-a")
	deleteShoot(ctx, t, ns, "tenant-b")
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		s := getSet(ctx, c, key)
		require.Nil(c, s.Status.PendingReplica)
		require.Equal(c, names(set, 3), replicaNames(ctx, c, key))
		require.Equal(c, int32(1), s.Status.Replicas)
		require.Equal(c, metav1.ConditionFalse, setCondition(s, seedmanagementv1alpha1.ManagedSeedSetScaleInBlocked).Status)
	}, eventually, tick)

	// 1 → 3: new ordinals, the gaps are never filled.
	scale(ctx, t, key, 3)
	s = requireSettled(ctx, t, key, 3)
	assert.Equal(t, names(set, 3, 5, 6), replicaNames(ctx, t, key))
	assert.Equal(t, int32(7), s.Status.NextReplicaNumber)

	// 3 → 2 when set-6's gardenlet stops: NotReady goes before the older set-5.
	gardenlet.stopHeartbeat(set+"-6", true)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		require.False(c, seedIsReady(ctx, c, set+"-6"))
		require.Equal(c, int32(2), getSet(ctx, c, key).Status.ReadyReplicas)
	}, eventually, tick)
	scale(ctx, t, key, 2)
	requireSettled(ctx, t, key, 2)
	assert.Equal(t, names(set, 3, 5), replicaNames(ctx, t, key))
	removed, _ = hist.removals("ManagedSeed", set)
	assert.Equal(t, []string{ns + "/" + set + "-4", ns + "/" + set + "-0", ns + "/" + set + "-2", ns + "/" + set + "-1", ns + "/" + set + "-6"}, removed)
	assertInvariants(t, set)
}

func TestFailingShootIsRetriedBoundedlyThenTheSetMovesOn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := namespace(ctx, t, "retry")
	set := testenv.Unique("retry")
	failing := client.ObjectKey{Namespace: ns, Name: set + "-0"}
	gardenlet.setFailing(failing, true)
	key := createSet(ctx, t, ns, set, 1)

	require.EventuallyWithT(t, func(c *assert.CollectT) {
		s := getSet(ctx, c, key)
		p := s.Status.PendingReplica
		require.NotNil(c, p)
		assert.Equal(c, set+"-0", p.Name)
		require.Equal(c, seedmanagementv1alpha1.ShootReconcileFailedReason, p.Reason)
		assert.Equal(c, ptr.To[int32](testMaxRetries), p.Retries)
		cond := setCondition(s, ConditionReplicaFailed)
		require.NotNil(c, cond)
		assert.Equal(c, metav1.ConditionTrue, cond.Status)
		assert.Contains(c, cond.Message, set+"-0")
		require.NotEmpty(c, eventNotes(ctx, c, key, EventNotRetryingShoot))
	}, eventually, tick)
	shoot := &gardencorev1beta1.Shoot{}
	require.NoError(t, env.Client.Get(ctx, failing, shoot))
	assert.Equal(t, "2", shoot.Annotations[AnnotationReconcileRetries])
	retries := eventNotes(ctx, t, key, EventRetryingShoot)
	assert.Len(t, retries, testMaxRetries, "one retry event per retry: %v", retries)
	assert.Empty(t, managedSeedNames(ctx, t, key), "a failed shoot gets no ManagedSeed")

	// The set moves on: a second replica comes up although the first failed.
	scale(ctx, t, key, 2)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		s := getSet(ctx, c, key)
		require.Nil(c, s.Status.PendingReplica)
		require.Equal(c, int32(2), s.Status.Replicas)
		require.Equal(c, int32(1), s.Status.ReadyReplicas)
		require.Equal(c, names(set, 1), managedSeedNames(ctx, c, key))
		assert.Equal(c, metav1.ConditionTrue, setCondition(s, ConditionReplicaFailed).Status)
	}, eventually, tick)

	// Fixed and retried by hand, the first replica completes and its counter is reset.
	gardenlet.setFailing(failing, false)
	require.NoError(t, env.Client.Get(ctx, failing, shoot))
	patch := client.MergeFrom(shoot.DeepCopy())
	shoot.Annotations[seedmanagementv1alpha1.AnnotationOperation] = seedmanagementv1alpha1.OperationRetry
	require.NoError(t, env.Client.Patch(ctx, shoot, patch))
	s := requireSettled(ctx, t, key, 2)
	assert.Equal(t, metav1.ConditionFalse, setCondition(s, ConditionReplicaFailed).Status)
	require.NoError(t, env.Client.Get(ctx, failing, shoot))
	assert.NotContains(t, shoot.Annotations, AnnotationReconcileRetries)
	assertInvariants(t, set)
}

func TestRollingUpdateWithPartitionRevisionsAndRollback(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := namespace(ctx, t, "roll")
	set := testenv.Unique("roll")
	key := createSet(ctx, t, ns, set, 4)
	updateSet(ctx, t, key, func(s *seedmanagementv1alpha1.ManagedSeedSet) {
		s.Spec.UpdateStrategy.RollingUpdate.Partition = ptr.To[int32](2)
	})
	s := requireSettled(ctx, t, key, 4)
	rev1 := s.Status.UpdateRevision
	require.NotEmpty(t, rev1)
	assert.Equal(t, rev1, s.Status.CurrentRevision)

	version := func(name string) (string, string) {
		shoot := &gardencorev1beta1.Shoot{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, shoot))
		ms := &seedmanagementv1alpha1.ManagedSeed{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, ms))
		assert.Equal(t, shoot.Labels[seedmanagementv1alpha1.LabelControllerRevisionHash], ms.Labels[seedmanagementv1alpha1.LabelControllerRevisionHash], name)
		return shoot.Spec.Kubernetes.Version, shoot.Labels[seedmanagementv1alpha1.LabelControllerRevisionHash]
	}
	newVersion := func(v string) func(*seedmanagementv1alpha1.ManagedSeedSet) {
		return func(s *seedmanagementv1alpha1.ManagedSeedSet) {
			s.Spec.ShootTemplate.Spec.Kubernetes.Version = v
			s.Spec.Template.Annotations = map[string]string{"example.com/kubernetes": v}
		}
	}
	// updatedAt is when the replica's shoot reached the revision, and reconciledAt when it
	// had also reconciled the new spec.
	at := func(name, rev string, reconciled bool) uint64 {
		rv, ok := hist.firstAt("Shoot", ns+"/"+name, func(r record) bool { return r.revision == rev && (!reconciled || r.reconcile) })
		require.True(t, ok, "%s never reached revision %s", name, rev)
		return rv
	}

	// A template change reaches only ordinals >= 2, from the highest down.
	updateSet(ctx, t, key, newVersion("1.34.1"))
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		s = getSet(ctx, c, key)
		require.NotEqual(c, rev1, s.Status.UpdateRevision)
		require.Equal(c, int32(2), s.Status.UpdatedReplicas)
		require.Equal(c, int32(4), s.Status.ReadyReplicas)
		require.Nil(c, s.Status.PendingReplica)
	}, eventually, tick)
	rev2 := s.Status.UpdateRevision
	assert.Equal(t, rev1, s.Status.CurrentRevision)
	assert.Equal(t, int32(2), s.Status.CurrentReplicas)
	for _, name := range names(set, 0, 1) {
		v, rev := version(name)
		assert.Equal(t, "1.33.4", v, name)
		assert.Equal(t, rev1, rev, name)
	}
	for _, name := range names(set, 2, 3) {
		v, rev := version(name)
		assert.Equal(t, "1.34.1", v, name)
		assert.Equal(t, rev2, rev, name)
	}
	assert.Less(t, at(set+"-3", rev2, true), at(set+"-2", rev2, false), "roll-2 is updated after roll-3 reconciled its update")

	revisions := func() map[string]int64 {
		list := &appsv1.ControllerRevisionList{}
		require.NoError(t, env.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{seedmanagementv1alpha1.LabelManagedSeedSet: set}))
		out := map[string]int64{}
		for _, rev := range list.Items {
			out[rev.Name] = rev.Revision
		}
		return out
	}
	assert.Equal(t, map[string]int64{rev1: 1, rev2: 2}, revisions())

	// Partition 0 completes the rollout.
	updateSet(ctx, t, key, func(s *seedmanagementv1alpha1.ManagedSeedSet) {
		s.Spec.UpdateStrategy.RollingUpdate.Partition = ptr.To[int32](0)
	})
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		s = getSet(ctx, c, key)
		require.Equal(c, int32(4), s.Status.UpdatedReplicas)
		require.Equal(c, int32(4), s.Status.ReadyReplicas)
		require.Equal(c, rev2, s.Status.CurrentRevision)
		require.Equal(c, int32(4), s.Status.CurrentReplicas)
	}, eventually, tick)
	assert.Less(t, at(set+"-1", rev2, true), at(set+"-0", rev2, false))

	// Rollback: apply the templates stored in the old revision.
	old := &appsv1.ControllerRevision{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: rev1}, old))
	data, err := decodeRevision(old)
	require.NoError(t, err)
	updateSet(ctx, t, key, func(s *seedmanagementv1alpha1.ManagedSeedSet) {
		s.Spec.Template = data.Template
		s.Spec.ShootTemplate = data.ShootTemplate
	})
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		s = getSet(ctx, c, key)
		require.Equal(c, rev1, s.Status.UpdateRevision, "the old revision is the update revision again")
		require.Equal(c, int32(4), s.Status.UpdatedReplicas)
		require.Equal(c, int32(4), s.Status.ReadyReplicas)
		require.Equal(c, rev1, s.Status.CurrentRevision)
	}, eventually, tick)
	for _, name := range names(set, 0, 1, 2, 3) {
		v, rev := version(name)
		assert.Equal(t, "1.33.4", v, name)
		assert.Equal(t, rev1, rev, name)
	}
	assert.Equal(t, map[string]int64{rev1: 3, rev2: 2}, revisions(), "the rolled-back revision is the newest")

	// revisionHistoryLimit 0 keeps only the live revision.
	updateSet(ctx, t, key, func(s *seedmanagementv1alpha1.ManagedSeedSet) { s.Spec.RevisionHistoryLimit = ptr.To[int32](0) })
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		list := &appsv1.ControllerRevisionList{}
		require.NoError(c, env.Client.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{seedmanagementv1alpha1.LabelManagedSeedSet: set}))
		require.Len(c, list.Items, 1)
		assert.Equal(c, rev1, list.Items[0].Name)
	}, eventually, tick)
	assertInvariants(t, set)
}

func TestDeletingTheSetScalesItToZeroUnderTheSameRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := namespace(ctx, t, "del")
	set := testenv.Unique("del")
	key := createSet(ctx, t, ns, set, 3)
	requireSettled(ctx, t, key, 3)
	annotateManagedSeed(ctx, t, ns, set+"-1", seedmanagementv1alpha1.AnnotationProtectFromDeletion, "true")
	placeShoot(ctx, t, ns, "tenant", set+"-2")

	require.NoError(t, env.Client.Delete(ctx, getSet(ctx, t, key)))
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		s := getSet(ctx, c, key)
		require.NotNil(c, s.DeletionTimestamp)
		require.Equal(c, names(set, 1, 2), replicaNames(ctx, c, key))
		require.Equal(c, int32(2), s.Status.Replicas)
		cond := setCondition(s, seedmanagementv1alpha1.ManagedSeedSetScaleInBlocked)
		require.NotNil(c, cond)
		require.Equal(c, metav1.ConditionTrue, cond.Status)
		assert.Contains(c, cond.Message, "2 of 2 replicas to remove cannot be removed")
		require.NotEmpty(c, eventNotes(ctx, c, key, EventWaitingForReplicasToBeRemoved))
	}, eventually, tick)
	assert.False(t, seedExists(ctx, t, set+"-0"))

	annotateManagedSeed(ctx, t, ns, set+"-1", seedmanagementv1alpha1.AnnotationProtectFromDeletion, "")
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		require.Equal(c, names(set, 2), replicaNames(ctx, c, key))
		require.Equal(c, int32(1), getSet(ctx, c, key).Status.Replicas)
	}, eventually, tick)

	deleteShoot(ctx, t, ns, "tenant")
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		err := env.Client.Get(ctx, key, &seedmanagementv1alpha1.ManagedSeedSet{})
		require.True(c, apierrors.IsNotFound(err), "the set is gone once its last replica is: %v", err)
	}, eventually, tick)
	assert.Empty(t, replicaNames(ctx, t, key))
	assert.Empty(t, managedSeedNames(ctx, t, key))
	for _, name := range names(set, 0, 1, 2) {
		assert.False(t, seedExists(ctx, t, name), name)
	}
	assertInvariants(t, set)
}

func TestPendingReplicaWaitsForItsSeedAndItsShootsHealth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := namespace(ctx, t, "pending")
	set := testenv.Unique("pending")
	replica := client.ObjectKey{Namespace: ns, Name: set + "-0"}
	gardenlet.stopHeartbeat(replica.Name, true)
	gardenlet.setUnhealthy(replica, true)
	key := createSet(ctx, t, ns, set, 1)

	pendingFor := func(reason seedmanagementv1alpha1.PendingReplicaReason) {
		t.Helper()
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			p := getSet(ctx, c, key).Status.PendingReplica
			require.NotNil(c, p)
			assert.Equal(c, replica.Name, p.Name)
			require.Equal(c, reason, p.Reason)
			require.Contains(c, eventNotes(ctx, c, key, EventWaiting), "Waiting for replica "+replica.Name+": "+describe(reason))
		}, eventually, tick)
	}
	pendingFor(seedmanagementv1alpha1.SeedNotReadyReason)
	gardenlet.stopHeartbeat(replica.Name, false)
	pendingFor(seedmanagementv1alpha1.ShootNotHealthyReason)
	s := getSet(ctx, t, key)
	assert.Equal(t, int32(1), s.Status.ReadyReplicas, "Ready (shoot reconciled, seed ready) while not yet healthy")
	gardenlet.setUnhealthy(replica, false)
	shoot := &gardencorev1beta1.Shoot{}
	require.NoError(t, env.Client.Get(ctx, replica, shoot))
	patch := client.MergeFrom(shoot.DeepCopy())
	shoot.Labels["example.com/health-checked"] = "now" // any change makes the gardenlet look again
	require.NoError(t, env.Client.Patch(ctx, shoot, patch))
	requireSettled(ctx, t, key, 1)
	assert.NotEmpty(t, eventNotes(ctx, t, key, EventReplicaReady))
	assertInvariants(t, set)
}
