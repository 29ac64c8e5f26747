//go:build integration

package autoscaler_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
)

// budgetStatus is the status of the budgets of one reason; the zero value when there is none.
func budgetStatus(sa *autoscalingv1alpha1.SeedAutoscaler, reason autoscalingv1alpha1.DisruptionReason) autoscalingv1alpha1.DisruptionBudgetStatus {
	if sa.Status.Consolidation == nil {
		return autoscalingv1alpha1.DisruptionBudgetStatus{}
	}
	for _, st := range sa.Status.Consolidation.Budgets {
		if st.Reason == reason {
			return st
		}
	}
	return autoscalingv1alpha1.DisruptionBudgetStatus{}
}

// A budget of no consolidation from 12:00 for an hour (UTC, the test clock starts at 12:00)
// holds the drain back, and status names it; once its hour has passed, the cheapest seed is
// drained.
func TestDisruptionBudgetHoldsConsolidationWithinItsSchedule(t *testing.T) {
	f := newFixture(t, "budget-schedule")
	set := f.createSet(3, nil)
	f.addReplica(set, "budget-schedule-0", 30, false)
	f.addReplica(set, "budget-schedule-1", 5, false)
	f.addReplica(set, "budget-schedule-2", 20, false)
	f.createAutoscaler(1, 5, 70, &autoscalingv1alpha1.SeedAutoscalerBehavior{
		ScaleDown: &autoscalingv1alpha1.ScalingRules{StabilizationWindowSeconds: ptr.To[int32](0), Consolidation: &autoscalingv1alpha1.Consolidation{
			WindowSeconds: 60,
			Budgets: []autoscalingv1alpha1.DisruptionBudget{{
				Seeds: "0", Schedule: "0 12 * * *", DurationSeconds: 3600,
				Reasons: []autoscalingv1alpha1.DisruptionReason{autoscalingv1alpha1.DisruptionConsolidation},
			}},
		}},
	})
	f.metrics.setPending(f.name, 0)
	f.start(false)

	f.waitForStatus("the budget holding consolidation back", func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		return st.Consolidation != nil && st.Consolidation.AboveNeedsSince != nil && len(st.Consolidation.Budgets) == 3
	})
	held := budgetStatus(f.get(), autoscalingv1alpha1.DisruptionConsolidation)
	assert.Equal(t, ptr.To[int32](0), held.HeldBy)
	assert.Equal(t, ptr.To[int32](0), held.Seeds)
	assert.Equal(t, `budgets[0] (seeds "0", from "0 12 * * *" for 1h0m0s) allows 0 more of the set's 3 seeds to be disrupted (0 are)`, held.Message)
	assert.Equal(t, "no active budget holds OperatorDrain back", budgetStatus(f.get(), autoscalingv1alpha1.DisruptionOperatorDrain).Message,
		"a budget of other reasons holds no operator's drain")
	assert.Equal(t, metav1.ConditionTrue, f.condition(autoscalingv1alpha1.SeedAutoscalerDisruptionBudgetsValid).Status)

	f.clock.Step(61 * time.Second)
	f.waitForEvaluation()
	assert.Never(t, func() bool { return drainAnnotation(t, f, "budget-schedule-1") != "" }, 2*time.Second, tick,
		"after the window, the budget still holds the drain back")

	f.clock.Step(time.Hour) // 13:01: the budget's hour is over
	require.Eventually(t, func() bool { return drainAnnotation(t, f, "budget-schedule-1") == "true" }, timeout, tick,
		"once the budget no longer applies, the cheapest seed is drained")
	f.waitForStatus("the budget no longer holding consolidation back", func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		return st.Consolidation != nil && len(st.Consolidation.Budgets) == 3 && st.Consolidation.Budgets[0].HeldBy == nil
	})
}

// A budget of one seed removed at a time holds a scale-in that would remove two empty seeds
// to one, says so in ScalingLimited, and lets the next removal through once the first seed
// is gone. A schedule that does not parse turns DisruptionBudgetsValid False, naming it.
func TestDisruptionBudgetHoldsTheRemovalOfEmptySeeds(t *testing.T) {
	f := newFixture(t, "budget-removal")
	set := f.createSet(3, nil)
	f.addReplica(set, "budget-removal-0", 0, false)
	f.addReplica(set, "budget-removal-1", 0, false)
	f.addReplica(set, "budget-removal-2", 10, false)
	f.createAutoscaler(1, 5, 70, &autoscalingv1alpha1.SeedAutoscalerBehavior{
		ScaleDown: &autoscalingv1alpha1.ScalingRules{StabilizationWindowSeconds: ptr.To[int32](0), Consolidation: &autoscalingv1alpha1.Consolidation{
			Budgets: []autoscalingv1alpha1.DisruptionBudget{
				{Seeds: "1", Reasons: []autoscalingv1alpha1.DisruptionReason{autoscalingv1alpha1.DisruptionEmptySeedRemoval}},
				{Seeds: "0", Reasons: []autoscalingv1alpha1.DisruptionReason{autoscalingv1alpha1.DisruptionConsolidation}},
			},
		}},
	})
	f.metrics.setPending(f.name, 0)
	f.start(false)

	require.Eventually(t, func() bool { return f.specReplicas() == 2 }, timeout, tick, "one empty seed is removed")
	assert.Contains(t, strings.Join(f.eventsOnceThere("ScalingLimited", 1), "\n"),
		`the autoscaler wants 1 replicas, but budgets[0] (seeds "1") allows 1 more of the set's 3 seeds to be disrupted (0 are: drained, being deleted or being removed): holding at 2`)
	// Until the set controller begins the removal, the replica it was asked to remove counts.
	require.Eventually(t, func() bool {
		limited := f.condition(autoscalingv1alpha1.SeedAutoscalerScalingLimited)
		return limited.Reason == string(recommend.ReasonDisruptionBudget) && strings.Contains(limited.Message,
			`budgets[0] (seeds "1") allows 0 more of the set's 3 seeds to be disrupted (1 are: drained, being deleted or being removed): holding at 2`)
	}, timeout, tick, "the budget is used up by the removal")

	// The set controller has not removed the replica yet, then removes it: until its
	// ManagedSeed is gone, the budget is used up; then the next empty seed may go.
	f.waitForEvaluation()
	assert.Never(t, func() bool { return f.specReplicas() < 2 }, time.Second, tick, "no second removal before the first replica is removed")
	ms := &seedmanagementv1alpha1.ManagedSeed{}
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: "budget-removal-0"}, ms))
	f.markDeleting(ms)
	f.metrics.dropUsage("shoots", "budget-removal-0")
	f.waitForStatus("the seed being deleted counted", func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		return st.Consolidation != nil && len(st.Consolidation.Budgets) == 3 && st.Consolidation.Budgets[2].Seeds != nil && *st.Consolidation.Budgets[2].Seeds == 0
	})
	assert.Never(t, func() bool { return f.specReplicas() < 2 }, 2*time.Second, tick, "no second removal while the first seed is being deleted")
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKeyFromObject(ms), ms))
	ms.Finalizers = nil
	require.NoError(t, env.Client.Update(f.ctx, ms))
	require.Eventually(t, func() bool { return f.specReplicas() == 1 }, timeout, tick, "the next empty seed goes once the first is gone")

	// A schedule the apiserver's pattern lets through but cron does not read.
	f.updateAutoscaler(func(sa *autoscalingv1alpha1.SeedAutoscaler) {
		sa.Spec.Behavior.ScaleDown.Consolidation.Budgets[1].Schedule = "0 25 * * *"
		sa.Spec.Behavior.ScaleDown.Consolidation.Budgets[1].DurationSeconds = 3600
	})
	require.Eventually(t, func() bool {
		return f.condition(autoscalingv1alpha1.SeedAutoscalerDisruptionBudgetsValid).Reason == "InvalidDisruptionBudget"
	}, timeout, tick)
	assert.True(t, strings.HasPrefix(f.condition(autoscalingv1alpha1.SeedAutoscalerDisruptionBudgetsValid).Message,
		`spec.behavior.scaleDown.consolidation.budgets[1].schedule: hour "25" is not a number from 0 to 23`))
	assert.NotEmpty(t, f.events("InvalidDisruptionBudget"))
}

// The apiserver refuses budgets that give both units or none, no reasons, a schedule
// without duration, and values that are neither a count nor a percentage.
func TestDisruptionBudgetsAreValidatedByTheAPIServer(t *testing.T) {
	f := newFixture(t, "budget-validation")
	all := autoscalingv1alpha1.DisruptionReasons
	sa := f.createAutoscaler(1, 5, 70, &autoscalingv1alpha1.SeedAutoscalerBehavior{
		ScaleDown: &autoscalingv1alpha1.ScalingRules{Consolidation: &autoscalingv1alpha1.Consolidation{
			Budgets: []autoscalingv1alpha1.DisruptionBudget{{Seeds: "1", Reasons: all}},
		}},
	})
	tests := []struct {
		name   string
		budget autoscalingv1alpha1.DisruptionBudget
		want   string
	}{
		{"both units", autoscalingv1alpha1.DisruptionBudget{Seeds: "1", Shoots: "10%", Reasons: all}, "a disruption budget gives exactly one of seeds and shoots"},
		{"no unit", autoscalingv1alpha1.DisruptionBudget{Reasons: all}, "a disruption budget gives exactly one of seeds and shoots"},
		{"no reasons", autoscalingv1alpha1.DisruptionBudget{Seeds: "1"}, "spec.behavior.scaleDown.consolidation.budgets[0].reasons"},
		{"a schedule without duration", autoscalingv1alpha1.DisruptionBudget{Seeds: "0", Schedule: "0 9 * * mon-fri", Reasons: all},
			"a disruption budget takes schedule and durationSeconds together"},
		{"a percentage above 100", autoscalingv1alpha1.DisruptionBudget{Shoots: "150%", Reasons: all}, "spec.behavior.scaleDown.consolidation.budgets[0].shoots"},
		{"a schedule of four fields", autoscalingv1alpha1.DisruptionBudget{Seeds: "0", Schedule: "0 9 * *",
			DurationSeconds: 3600, Reasons: all}, "spec.behavior.scaleDown.consolidation.budgets[0].schedule"},
		{"a duration below cron's minute", autoscalingv1alpha1.DisruptionBudget{Seeds: "0", Schedule: "@daily",
			DurationSeconds: 30, Reasons: all}, "spec.behavior.scaleDown.consolidation.budgets[0].durationSeconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changed := sa.DeepCopy()
			changed.Spec.Behavior.ScaleDown.Consolidation.Budgets = []autoscalingv1alpha1.DisruptionBudget{tt.budget}
			err := env.Client.Update(f.ctx, changed)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
