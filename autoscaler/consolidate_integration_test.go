//go:build integration

package autoscaler_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// A set above its needs (55 shoots on three seeds of 100 at a 70% target: one seed would do)
// that cannot shrink, since every seed hosts shoots: after the window, consolidation drains
// the cheapest seed whose shoots may all move (not the one with an opted-out shoot), records
// it, and gives it up when the scheduler reports the drain stuck.
func TestConsolidationDrainsTheCheapestSeed(t *testing.T) {
	f := newFixture(t, "consolidation")
	set := f.createSet(3, nil)
	f.addReplica(set, "consolidation-0", 30, false)
	f.addReplica(set, "consolidation-1", 5, false)
	f.addReplica(set, "consolidation-2", 20, false)
	optedOut := builders.MakeShoot(f.ns, "stays").SeedName("consolidation-1").
		Annotations(gardencorev1beta1.AnnotationMigration, gardencorev1beta1.MigrationDisabled).Obj()
	require.NoError(t, env.Client.Create(f.ctx, optedOut))
	f.createAutoscaler(1, 5, 70, &autoscalingv1alpha1.SeedAutoscalerBehavior{
		ScaleDown: &autoscalingv1alpha1.ScalingRules{StabilizationWindowSeconds: ptr.To[int32](0), Consolidation: &autoscalingv1alpha1.Consolidation{
			WindowSeconds: 60, MaxMigrationsPerHour: 25,
		}},
	})
	f.metrics.setPending(f.name, 0)
	f.start(false)

	require.Eventually(t, func() bool {
		c := f.get().Status.Consolidation
		return c != nil && c.AboveNeedsSince != nil
	}, timeout, tick, "the set is seen above its needs")
	assert.Empty(t, drainAnnotation(t, f, "consolidation-2"), "nothing is drained within the window")
	assert.Equal(t, int32(3), f.specReplicas())

	f.clock.Step(61 * time.Second)
	require.Eventually(t, func() bool { return drainAnnotation(t, f, "consolidation-2") == "true" }, timeout, tick,
		"after the window the cheapest seed whose shoots may move is drained")
	assert.Empty(t, drainAnnotation(t, f, "consolidation-1"), "the cheapest seed holds an opted-out shoot")
	assert.Empty(t, drainAnnotation(t, f, "consolidation-0"))
	ms := &seedmanagementv1alpha1.ManagedSeed{}
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: "consolidation-2"}, ms))
	assert.Equal(t, gardencorev1beta1.DrainReasonConsolidation, ms.Annotations[gardencorev1beta1.AnnotationDrainReason])
	require.Eventually(t, func() bool {
		c := f.get().Status.Consolidation
		return c != nil && len(c.Drains) == 1
	}, timeout, tick)
	drain := f.get().Status.Consolidation.Drains[0]
	assert.Equal(t, "consolidation-2", drain.Seed)
	assert.Equal(t, ptr.To[int32](20), drain.Shoots)
	assert.NotNil(t, consolidationEvent(t, f, "ConsolidationStarted", "drains seed consolidation-2: its 20 shoots move to the other seeds"))

	// The scheduler finds no place for a shoot: consolidation gives the drain up.
	seed := &gardencorev1beta1.Seed{}
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKey{Name: "consolidation-2"}, seed))
	meta.SetStatusCondition(&seed.Status.Conditions, metav1.Condition{Type: gardencorev1beta1.SeedDrained, Status: metav1.ConditionFalse,
		Reason: "DrainStuck", Message: "The drain is stuck: 20 shoot(s) remain and none can leave."})
	require.NoError(t, env.Client.Status().Update(f.ctx, seed))
	require.Eventually(t, func() bool { return drainAnnotation(t, f, "consolidation-2") == "" }, timeout, tick, "the stuck drain is canceled")
	require.Eventually(t, func() bool {
		c := f.get().Status.Consolidation
		return c != nil && len(c.Drains) == 1 && strings.HasPrefix(c.Drains[0].Canceled, "the scheduler cannot empty the seed: The drain is stuck")
	}, timeout, tick)
	assert.NotNil(t, consolidationEvent(t, f, "ConsolidationCanceled", "Consolidation gave up draining seed consolidation-2"))
	// The canceled seed is left alone for an hour, the cheapest holds the opted-out shoot,
	// and the budget of 25 migrations per hour pays for the 20 shoots of the canceled drain
	// for 48 minutes from its start: until then the last seed is not drained.
	f.clock.Step(40 * time.Minute)
	require.Never(t, func() bool { return drainAnnotation(t, f, "consolidation-0") != "" }, 2*time.Second, tick)
	// Once it has paid, the last seed is drained, although its 30 shoots exceed the hourly
	// budget: the budget spaces drains out, it does not forbid large seeds.
	f.clock.Step(10 * time.Minute)
	require.Eventually(t, func() bool { return drainAnnotation(t, f, "consolidation-0") == "true" }, timeout, tick,
		"a seed larger than the budget is drained once the budget has paid for the last drain")
	assert.Empty(t, drainAnnotation(t, f, "consolidation-2"), "the canceled seed waits out its hour")
}

func drainAnnotation(t *testing.T, f *fixture, name string) string {
	t.Helper()
	ms := &seedmanagementv1alpha1.ManagedSeed{}
	// Not the test's context: require.Never may call this once more after the test ended.
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: f.ns, Name: name}, ms))
	return ms.Annotations[gardencorev1beta1.AnnotationDrain]
}

func consolidationEvent(t *testing.T, f *fixture, reason, note string) *eventsv1.Event {
	t.Helper()
	var found *eventsv1.Event
	require.Eventually(t, func() bool {
		list := &eventsv1.EventList{}
		if err := env.Client.List(f.ctx, list, client.InNamespace(f.ns)); err != nil {
			return false
		}
		for i := range list.Items {
			if list.Items[i].Reason == reason && strings.Contains(list.Items[i].Note, note) {
				found = &list.Items[i]
				return true
			}
		}
		return false
	}, timeout, tick, "no %s event with %q", reason, note)
	return found
}

// Consolidation drains the seed whose migrations weigh least for the seed freed, not the one
// of the fewest shoots: ten highly available control planes (0.2 each) weigh 2, four
// ordinary ones 4. With a minimum score above the best it moves nothing, says so with the
// score, and scores again only after the window.
func TestConsolidationDrainsTheSeedOfTheHighestScore(t *testing.T) {
	f := newFixture(t, "consolidation-score")
	set := f.createSet(3, nil)
	f.addReplica(set, "consolidation-score-0", 10, false)
	f.addReplica(set, "consolidation-score-1", 4, false)
	f.addReplica(set, "consolidation-score-2", 40, false)
	for i := range 10 {
		shoot := builders.MakeShoot(f.ns, fmt.Sprintf("live-%d", i)).SeedName("consolidation-score-0").ZoneFailureTolerance().Obj()
		require.NoError(t, env.Client.Create(f.ctx, shoot))
	}
	for i := range 4 {
		shoot := builders.MakeShoot(f.ns, fmt.Sprintf("plain-%d", i)).SeedName("consolidation-score-1").Obj()
		require.NoError(t, env.Client.Create(f.ctx, shoot))
	}
	minScore := resource.MustParse("0.6")
	f.createAutoscaler(1, 5, 70, &autoscalingv1alpha1.SeedAutoscalerBehavior{
		ScaleDown: &autoscalingv1alpha1.ScalingRules{StabilizationWindowSeconds: ptr.To[int32](0), Consolidation: &autoscalingv1alpha1.Consolidation{
			WindowSeconds: 60, MinScore: &minScore,
		}},
	})
	f.metrics.setPending(f.name, 0)
	f.start(false)
	require.Eventually(t, func() bool {
		c := f.get().Status.Consolidation
		return c != nil && c.AboveNeedsSince != nil
	}, timeout, tick, "the set is seen above its needs")

	f.clock.Step(61 * time.Second)
	require.Eventually(t, func() bool {
		c := f.get().Status.Consolidation
		return c != nil && len(c.Scores) > 0
	}, timeout, tick, "the seeds are scored after the window")
	rejected := f.get().Status.Consolidation.Scores[0]
	assert.Equal(t, autoscalingv1alpha1.ConsolidationRejected, rejected.Decision)
	assert.Equal(t, "consolidation-score-0", rejected.Seed)
	assert.Equal(t, "0.5", rejected.Score)
	assert.Equal(t, "2", rejected.Weight, "10 × 0.2")
	assert.NotNil(t, consolidationEvent(t, f, "ConsolidationRejected",
		"seed consolidation-score-0 scores 0.5 (1 seed freed / 2 weighted migrations of 10 shoots), below the minimum score 0.6"))
	assert.Never(t, func() bool { return drainAnnotation(t, f, "consolidation-score-0") != "" }, 2*time.Second, tick, "a rejected seed is not drained")

	// A lower minimum applies from the next scoring, once the window after the rejection
	// has passed.
	f.updateAutoscaler(func(sa *autoscalingv1alpha1.SeedAutoscaler) {
		sa.Spec.Behavior.ScaleDown.Consolidation.MinScore = ptr.To(resource.MustParse("0.3"))
	})
	f.waitForEvaluation()
	assert.Never(t, func() bool { return drainAnnotation(t, f, "consolidation-score-0") != "" }, time.Second, tick, "no scoring within the window")
	f.clock.Step(61 * time.Second)
	require.Eventually(t, func() bool { return drainAnnotation(t, f, "consolidation-score-0") == "true" }, timeout, tick,
		"the seed of the highest score is drained, not the one of the fewest shoots")
	assert.Empty(t, drainAnnotation(t, f, "consolidation-score-1"))
	f.waitForStatus("the approved scoring", func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		c := st.Consolidation
		return c != nil && len(c.Scores) > 0 && c.Scores[len(c.Scores)-1].Decision == autoscalingv1alpha1.ConsolidationApproved
	})
	scores := f.get().Status.Consolidation.Scores
	require.Len(t, scores, 2, "one rejected scoring, then one approved: none within the window")
	assert.Equal(t, "0.5", scores[1].Score)
	assert.NotNil(t, consolidationEvent(t, f, "ConsolidationApproved", "seed consolidation-score-0 scores 0.5"))
	assert.NotNil(t, consolidationEvent(t, f, "ConsolidationStarted", "drains seed consolidation-score-0: its 10 shoots move to the other seeds (score 0.5)"))
}
