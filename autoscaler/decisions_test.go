//go:build integration

package autoscaler_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// markDeleting gives obj a finalizer and deletes it, so that it stays with a
// deletionTimestamp as while its controller cleans up.
func (f *fixture) markDeleting(obj client.Object) {
	f.t.Helper()
	require.NoError(f.t, env.Client.Get(f.ctx, client.ObjectKeyFromObject(obj), obj))
	obj.SetFinalizers(append(obj.GetFinalizers(), "test.seedscaler.io/hold"))
	require.NoError(f.t, env.Client.Update(f.ctx, obj))
	require.NoError(f.t, env.Client.Delete(f.ctx, obj))
}

// replicaName is the name of a set's replica with the given ordinal.
func replicaName(set string, ordinal int) string { return fmt.Sprintf("%s-%d", set, ordinal) }

// waitForTargets waits until the autoscaler has evaluated and shows the given TARGETS.
func (f *fixture) waitForTargets(want string) {
	f.t.Helper()
	f.waitForStatus(fmt.Sprintf("TARGETS %q", want), func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		return st.Targets == want
	})
}

// eventsOnceThere returns the notes of the events with the given reason once there are
// want of them: events are written asynchronously to the decision.
func (f *fixture) eventsOnceThere(reason string, want int) []string {
	f.t.Helper()
	require.Eventually(f.t, func() bool { return len(f.events(reason)) >= want }, timeout, tick, "fewer than %d %s events", want, reason)
	return f.events(reason)
}

// waitForEvaluation waits until the autoscaler has evaluated at the fake clock's time: its
// latest recommendation carries that time.
func (f *fixture) waitForEvaluation() {
	f.t.Helper()
	now := f.clock.Now()
	f.waitForStatus("an evaluation at "+now.String(), func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		recs := st.Recommendations
		return len(recs) > 0 && !recs[len(recs)-1].Timestamp.Time.Before(now)
	})
}

// waitForStatus waits until the autoscaler's status satisfies cond, and fails naming what
// it waited for and what the status and rescale events were at the end.
func (f *fixture) waitForStatus(what string, cond func(autoscalingv1alpha1.SeedAutoscalerStatus) bool) {
	f.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		sa := &autoscalingv1alpha1.SeedAutoscaler{}
		require.NoError(f.t, env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: f.name}, sa))
		if cond(sa.Status) {
			return
		}
		if time.Now().After(deadline) {
			require.FailNow(f.t, "the status never showed "+what, "targets %q, desired %d, conditions %+v, rescales %q",
				sa.Status.Targets, sa.Status.DesiredReplicas, sa.Status.Conditions, f.events("SuccessfulRescale"))
		}
		time.Sleep(tick)
	}
}

// A replica on its way out is not measured: neither its ManagedSeed nor its Seed being
// deleted may dilute the ratio into a scale-out that utilization below target explains.
func TestDeletingSeedsAreNotMeasured(t *testing.T) {
	for _, tc := range []struct {
		name   string
		delete func(f *fixture, name string)
	}{
		{"managedseed", func(f *fixture, name string) {
			f.markDeleting(&seedmanagementv1alpha1.ManagedSeed{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name}})
		}},
		{"seed", func(f *fixture, name string) {
			f.markDeleting(&gardencorev1beta1.Seed{ObjectMeta: metav1.ObjectMeta{Name: name}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "deleting-"+tc.name)
			set := f.createSet(3, nil)
			for i, shoots := range []float64{73, 73, 74, 0} {
				f.addReplica(set, replicaName(f.name, i), shoots, false)
			}
			tc.delete(f, replicaName(f.name, 3))
			f.metrics.setPending(f.name, 0)
			f.createAutoscaler(1, 10, 70, nil)
			f.start(false)

			// 220 shoots on three seeds of 100 at 70%: within the tolerance. Counting the
			// empty fourth seed, 55% of target 70% proposed ceil(220 × 4 / 280) = 4.
			f.waitForTargets("73%/70%")
			assert.Equal(t, int32(3), f.specReplicas())
			assert.Empty(t, f.events("SuccessfulRescale"))
		})
	}
}

// HPA's rule for a seed without a fresh sample (full on a scale-in) is conservative enough
// to act on: one stale seed must not hold every scale-in of the set for as long as it lasts.
func TestSeedWithoutSampleDoesNotFreezeScaleIn(t *testing.T) {
	f := newFixture(t, "stale-seed")
	set := f.createSet(4, nil)
	for i := range 4 {
		f.addReplica(set, replicaName(f.name, i), 0, false)
	}
	f.metrics.dropUsage(gardencorev1beta1.ResourceShoots, replicaName(f.name, 3))
	f.metrics.setPending(f.name, 0)
	f.createAutoscaler(1, 10, 50, &autoscalingv1alpha1.SeedAutoscalerBehavior{
		ScaleDown: &autoscalingv1alpha1.ScalingRules{StabilizationWindowSeconds: ptr.To[int32](0)},
	})
	f.start(false)

	// Three empty seeds and one counted full at 100 of 100: ceil(100 × 4 / 200) = 2.
	require.Eventually(t, func() bool { return f.specReplicas() == 2 }, timeout, tick)
	assert.Equal(t, []string{"4 → 2: resource/shoots is 0% of target 50%"}, f.eventsOnceThere("SuccessfulRescale", 1))
	c := f.condition(autoscalingv1alpha1.SeedAutoscalerScalingActive)
	assert.Equal(t, metav1.ConditionTrue, c.Status)
	assert.Contains(t, c.Message, "1 of 4 seeds have no fresh metric")
	assert.Empty(t, f.events("MetricsUnavailable"))
}

// A seed that does not exist yet, is not Ready yet, or just became Ready and has not been
// scraped yet is bootstrapping, not a failed fetch: no MetricsUnavailable, and no fallback
// that creates seed clusters for nothing.
func TestScaleFromZeroBootstrapsWithoutFalseAlarms(t *testing.T) {
	f := newFixture(t, "bootstrap")
	set := f.createSet(0, map[string]string{seedmanagementv1alpha1.AnnotationCapacityPrefix + "shoots": "40"})
	f.metrics.setPending(f.name, 1)
	sa := f.createAutoscaler(0, 10, 50, nil)
	sa.Spec.Metrics[0].Fallback = &autoscalingv1alpha1.MetricFallback{FailureDurationSeconds: 300, Replicas: ptr.To[int32](3)}
	require.NoError(t, env.Client.Update(f.ctx, sa))
	f.start(false)
	require.Eventually(t, func() bool { return f.specReplicas() == 1 }, timeout, tick)

	// Six minutes without a registered seed: longer than the fallback's 5 minutes.
	for range 24 {
		f.clock.Step(15 * time.Second)
		f.waitForEvaluation()
	}
	assert.Equal(t, int32(1), f.specReplicas(), "no fallback while the seed bootstraps")
	assert.Equal(t, "WaitingForSeeds", f.condition(autoscalingv1alpha1.SeedAutoscalerScalingActive).Reason)

	// Registered and Ready this very moment, not scraped yet.
	f.addManagedSeed(set, replicaName(f.name, 0), false)
	f.createSeed(replicaName(f.name, 0), f.clock.Now(), "foo", "bar", "set", f.name)
	f.clock.Step(15 * time.Second)
	f.waitForEvaluation()
	assert.Equal(t, "WaitingForSeeds", f.condition(autoscalingv1alpha1.SeedAutoscalerScalingActive).Reason)

	// The shoot is bound to it and the seed scraped: measured from now on.
	f.metrics.setPending(f.name, 0)
	f.metrics.setUsage(gardencorev1beta1.ResourceShoots, replicaName(f.name, 0), 1)
	f.clock.Step(15 * time.Second)
	f.waitForTargets("1%/50%")
	assert.Equal(t, "ValidMetricFound", f.condition(autoscalingv1alpha1.SeedAutoscalerScalingActive).Reason)
	assert.Equal(t, int32(1), f.specReplicas())
	assert.Empty(t, f.events("MetricsUnavailable"))
	assert.Empty(t, f.get().Status.MetricFailures)
}

// The capacity annotation has one reading: an invalid value is ignored by the scheduler and
// the autoscaler alike (new replicas are sized as without it, here the default of 250), and
// the autoscaler says so in a condition naming the annotation and its value.
func TestInvalidCapacityAnnotationIsReportedAndReadAsTheScheduler(t *testing.T) {
	f := newFixture(t, "invalid-capacity")
	f.createSet(0, map[string]string{seedmanagementv1alpha1.AnnotationCapacityPrefix + "shoots": "abc"})
	f.metrics.setPending(f.name, 400)
	f.createAutoscaler(0, 10, 70, nil)
	f.start(false)

	// 400 pending shoots on seeds of 250 at 70%: ceil(400 / 175) = 3.
	require.Eventually(t, func() bool { return f.specReplicas() == 3 }, timeout, tick)
	require.Eventually(t, func() bool {
		return f.condition(autoscalingv1alpha1.SeedAutoscalerScalingActive).Reason == "InvalidCapacityAnnotation"
	}, timeout, tick)
	c := f.condition(autoscalingv1alpha1.SeedAutoscalerScalingActive)
	assert.Equal(t, metav1.ConditionFalse, c.Status)
	assert.Contains(t, c.Message, `annotation capacity.seedmanagement.gardener.cloud/shoots="abc" of ManagedSeedSet invalid-capacity/invalid-capacity is not a whole number of shoots`)
	assert.Contains(t, c.Message, "the default of 250 shoots per seed")
}

// The price annotation only ranks the set in the scheduler's choice among sets: an invalid
// value changes no replica count, and the set's autoscaler says which annotation to fix in
// its condition and a Warning event.
func TestInvalidPriceAnnotationIsReported(t *testing.T) {
	f := newFixture(t, "invalid-price")
	f.createSet(0, map[string]string{
		seedmanagementv1alpha1.AnnotationCapacityPrefix + "shoots": "100",
		seedmanagementv1alpha1.AnnotationSeedHourPrice:             "1,85",
	})
	f.metrics.setPending(f.name, 150)
	f.createAutoscaler(0, 10, 70, nil)
	f.start(false)

	// 150 pending shoots on seeds of 100 at 70%: ceil(150 / 70) = 3, price or not.
	require.Eventually(t, func() bool { return f.specReplicas() == 3 }, timeout, tick)
	require.Eventually(t, func() bool {
		return f.condition(autoscalingv1alpha1.SeedAutoscalerScalingActive).Reason == "InvalidPriceAnnotation"
	}, timeout, tick)
	c := f.condition(autoscalingv1alpha1.SeedAutoscalerScalingActive)
	assert.Equal(t, metav1.ConditionFalse, c.Status)
	assert.Contains(t, c.Message, `annotation seedmanagement.gardener.cloud/seed-hour-price="1,85" of ManagedSeedSet invalid-price/invalid-price is not a price per seed-hour (a plain decimal number of 0 or more, such as "1.85")`)
	assert.NotEmpty(t, f.eventsOnceThere("InvalidPriceAnnotation", 1))
}

// A set whose gardenlet template names no capacity takes its parent gardenlet's
// (mergeWithParent, on by default): while the parent seed is not registered the size of a new
// seed cannot be known, and the autoscaler says so, naming the fields; once the parent is
// registered, new seeds are sized from its capacity less its reserved shoots.
func TestReplicaCapacityFromTheParentGardenlet(t *testing.T) {
	f := newFixture(t, "parent-capacity")
	parent := f.name + "-soil"
	f.createSetWith(0, nil, func(set *seedmanagementv1alpha1.ManagedSeedSet) {
		set.Spec.Template.Spec.Gardenlet = &seedmanagementv1alpha1.Gardenlet{Config: &seedmanagementv1alpha1.GardenletConfiguration{
			TypeMeta:   metav1.TypeMeta{APIVersion: "gardenlet.config.gardener.cloud/v1alpha1", Kind: "GardenletConfiguration"},
			SeedConfig: set.Spec.Template.Spec.SeedTemplate,
		}}
		set.Spec.Template.Spec.SeedTemplate = nil
		set.Spec.ShootTemplate.Spec.SeedName = ptr.To(parent)
	})
	f.metrics.setPending(f.name, 400)
	f.createAutoscaler(0, 10, 70, nil)
	f.start(false)

	// 400 pending shoots on seeds of 250 (the default) at 70%: ceil(400 / 175) = 3.
	require.Eventually(t, func() bool { return f.specReplicas() == 3 }, timeout, tick)
	require.Eventually(t, func() bool {
		return f.condition(autoscalingv1alpha1.SeedAutoscalerScalingActive).Reason == "UnknownReplicaCapacity"
	}, timeout, tick)
	c := f.condition(autoscalingv1alpha1.SeedAutoscalerScalingActive)
	assert.Equal(t, metav1.ConditionFalse, c.Status)
	assert.Contains(t, c.Message, "has parent seed "+parent+" (shootTemplate.spec.seedName), which is not registered")
	assert.Contains(t, c.Message, "set template.spec.gardenlet.config.resources.capacity (and reserved) for shoots, or register the parent seed")
	assert.NotEmpty(t, f.eventsOnceThere("UnknownReplicaCapacity", 1))

	// The parent registers 20 shoots, 5 reserved: new seeds take 15, 400 / (15 × 70%) = 39
	// seeds, at most 10, reached in steps of the scale-up policy (4 seeds or 100% per 15 s).
	seed := builders.MakeSeed(parent).Allocatable(15).Ready().Obj()
	seed.Status.Capacity = corev1.ResourceList{gardencorev1beta1.ResourceShoots: resource.MustParse("20")}
	status := seed.Status
	require.NoError(t, env.Client.Create(f.ctx, seed))
	seed.Status = status
	require.NoError(t, env.Client.Status().Update(f.ctx, seed))
	require.Eventually(t, func() bool {
		f.clock.Step(15 * time.Second)
		return f.specReplicas() == 10
	}, timeout, tick)
	assert.NotEqual(t, "UnknownReplicaCapacity", f.condition(autoscalingv1alpha1.SeedAutoscalerScalingActive).Reason)
}

// Shoots that no seed of the set accepts need new seeds: the headroom of the existing
// seeds cannot take them.
func TestPendingShootsGetNewSeedsDespiteHeadroom(t *testing.T) {
	f := newFixture(t, "pending-headroom")
	set := f.createSet(3, map[string]string{seedmanagementv1alpha1.AnnotationCapacityPrefix + "shoots": "100"})
	for i := range 3 {
		f.addReplica(set, replicaName(f.name, i), 20, false)
	}
	f.metrics.setPending(f.name, 5)
	f.createAutoscaler(1, 10, 70, nil)
	f.start(false)

	require.Eventually(t, func() bool { return f.specReplicas() == 4 }, timeout, tick)
	assert.Equal(t, []string{"3 → 4: 5 pending shoots fit no seed of the target and need 1 new replicas (100 allocatable shoots per new seed at target 70%)"},
		f.eventsOnceThere("SuccessfulRescale", 1))
	// The new replica has no seed yet; it takes the pending shoots once it has.
	f.clock.Step(30 * time.Second)
	f.waitForEvaluation()
	assert.Equal(t, int32(4), f.specReplicas())
	assert.NotEqual(t, "TooFewRemovableSeeds", f.condition(autoscalingv1alpha1.SeedAutoscalerScalingLimited).Reason)
}

// The set controller keeps a replica whose Shoot carries protect-from-deletion as it keeps
// one whose ManagedSeed does; the autoscaler counts it as not removable alike, rather than
// ask for a scale-in the set cannot perform.
func TestShootProtectedFromDeletionIsNotRemovable(t *testing.T) {
	f := newFixture(t, "protected-shoot")
	set := f.createSet(3, nil)
	for i := range 3 {
		f.addReplica(set, replicaName(f.name, i), 0, false)
	}
	for i := range 2 {
		shoot := builders.MakeShoot(f.ns, replicaName(f.name, i)).Obj()
		shoot.Annotations = map[string]string{seedmanagementv1alpha1.AnnotationProtectFromDeletion: "true"}
		require.NoError(t, env.Client.Create(f.ctx, shoot))
	}
	f.metrics.setPending(f.name, 0)
	f.createAutoscaler(1, 10, 50, &autoscalingv1alpha1.SeedAutoscalerBehavior{
		ScaleDown: &autoscalingv1alpha1.ScalingRules{StabilizationWindowSeconds: ptr.To[int32](0)},
	})
	f.start(false)

	require.Eventually(t, func() bool {
		return f.condition(autoscalingv1alpha1.SeedAutoscalerScalingLimited).Reason == "TooFewRemovableSeeds"
	}, timeout, tick)
	assert.Equal(t, int32(2), f.specReplicas(), "two replicas are protected by their Shoots")
	assert.Equal(t, []string{"3 → 2: resource/shoots is 0% of target 50%"}, f.eventsOnceThere("SuccessfulRescale", 1))
}

// Without the pending-fit series the autoscaler cannot know whether shoots wait for the
// set, and holds every scale-in. The scheduler serves the series, 0 included, for every set
// from the moment its caches have synced, so after a scheduler restart, a failover or a fresh
// install the hold lasts only until then.
func TestScalesInOnceThePendingSeriesIsServed(t *testing.T) {
	f := newFixture(t, "pending-series")
	set := f.createSet(4, nil)
	for i := range 4 {
		f.addReplica(set, replicaName(f.name, i), 0, false)
	}
	f.createAutoscaler(1, 10, 50, &autoscalingv1alpha1.SeedAutoscalerBehavior{
		ScaleDown: &autoscalingv1alpha1.ScalingRules{StabilizationWindowSeconds: ptr.To[int32](0)},
	})
	f.start(false)

	// The scheduler restarted and has not synced yet: no series.
	f.waitForReason(autoscalingv1alpha1.SeedAutoscalerScalingActive, "FailedGetPendingMetric")
	assert.Equal(t, int32(4), f.specReplicas(), "no scale-in while pending shoots are unknown")

	// Synced: 0 for the set.
	f.metrics.setPending(f.name, 0)
	require.Eventually(t, func() bool { return f.specReplicas() == 1 }, timeout, tick)
	require.Eventually(t, func() bool {
		return f.condition(autoscalingv1alpha1.SeedAutoscalerScalingActive).Status == metav1.ConditionTrue
	}, timeout, tick)
}
