package autoscaler

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/disruption"
)

func TestBudgetStatusNamesTheBudgetThatHoldsBack(t *testing.T) {
	oneSeed := disruption.Limit{Bounded: true, Max: 1, Index: 0, Budget: `budgets[0] (seeds "1")`}
	noShoots := disruption.Limit{Bounded: true, Max: 0, Index: 2, Budget: `budgets[2] (shoots "0", from "0 9 * * mon-fri" for 8h0m0s)`}
	tenShoots := disruption.Limit{Bounded: true, Max: 10, Index: 1, Budget: `budgets[1] (shoots "10%")`}
	quiet := disruption.Set{Seeds: 4, Shoots: 100}
	oneDrained := disruption.Set{Seeds: 4, Shoots: 100, Drained: []disruption.DrainedSeed{{Name: "s-2", Started: true}}}
	twoWaiting := disruption.Set{Seeds: 4, Shoots: 100, Drained: []disruption.DrainedSeed{{Name: "s-3"}, {Name: "s-1"}}}
	tests := []struct {
		name   string
		reason autoscalingv1alpha1.DisruptionReason
		seeds  disruption.Limit
		shoots disruption.Limit
		set    disruption.Set
		want   autoscalingv1alpha1.DisruptionBudgetStatus
	}{
		{"no active budget", autoscalingv1alpha1.DisruptionConsolidation, disruption.Limit{}, disruption.Limit{}, oneDrained,
			autoscalingv1alpha1.DisruptionBudgetStatus{Reason: autoscalingv1alpha1.DisruptionConsolidation, Message: "no active budget holds Consolidation back"}},
		{"room left", autoscalingv1alpha1.DisruptionConsolidation, oneSeed, tenShoots, quiet, autoscalingv1alpha1.DisruptionBudgetStatus{
			Reason: autoscalingv1alpha1.DisruptionConsolidation, Seeds: ptr.To[int32](1), Shoots: ptr.To[int32](10),
			Message: `budgets[0] (seeds "1") allows 1 more of the set's 4 seeds to be disrupted (0 are); budgets[1] (shoots "10%") lets 10 of the set's 100 shoots migrate at once`}},
		{"a drain under way uses the seeds budget up", autoscalingv1alpha1.DisruptionConsolidation, oneSeed, disruption.Limit{}, oneDrained,
			autoscalingv1alpha1.DisruptionBudgetStatus{Reason: autoscalingv1alpha1.DisruptionConsolidation, Seeds: ptr.To[int32](0), HeldBy: ptr.To[int32](0),
				Message: `budgets[0] (seeds "1") allows 0 more of the set's 4 seeds to be disrupted (1 are)`}},
		{"no shoot may migrate", autoscalingv1alpha1.DisruptionOperatorDrain, disruption.Limit{}, noShoots, quiet,
			autoscalingv1alpha1.DisruptionBudgetStatus{Reason: autoscalingv1alpha1.DisruptionOperatorDrain, Shoots: ptr.To[int32](0), HeldBy: ptr.To[int32](2),
				Message: `budgets[2] (shoots "0", from "0 9 * * mon-fri" for 8h0m0s) lets 0 of the set's 100 shoots migrate at once`}},
		{"an operator's drains wait by name", autoscalingv1alpha1.DisruptionOperatorDrain, oneSeed, disruption.Limit{}, twoWaiting,
			autoscalingv1alpha1.DisruptionBudgetStatus{Reason: autoscalingv1alpha1.DisruptionOperatorDrain, Seeds: ptr.To[int32](0), HeldBy: ptr.To[int32](0),
				Message: `budgets[0] (seeds "1") allows 0 more of the set's 4 seeds to be disrupted (2 are); the drained seeds s-3 wait for it`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, budgetStatus(tt.reason, tt.seeds, tt.shoots, tt.set))
		})
	}
}

func TestBudgetsHoldRemovalsBeyondTheEmptiedDrainedSeeds(t *testing.T) {
	decision := recommend.Decision{DesiredReplicas: 2, Reason: "utilization below the target",
		ScalingLimited: controllerutils.False(recommend.ReasonDesiredWithinRange, "within range")}
	oneAtATime := []autoscalingv1alpha1.DisruptionBudget{{Seeds: "1", Reasons: []autoscalingv1alpha1.DisruptionReason{autoscalingv1alpha1.DisruptionEmptySeedRemoval}}}
	now := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		spec        []autoscalingv1alpha1.DisruptionBudget
		set         disruption.Set
		wantDesired int32
	}{
		{"one removal at a time", oneAtATime, disruption.Set{Seeds: 5}, 4},
		{"a seed being deleted uses the budget up", oneAtATime, disruption.Set{Seeds: 5, Deleting: 1}, 5},
		{"an emptied drained seed costs nothing more", oneAtATime,
			disruption.Set{Seeds: 5, Drained: []disruption.DrainedSeed{{Name: "a", Started: true}}, DrainedEmpty: 1}, 4},
		{"a removal the set has not begun uses the budget up", oneAtATime, disruption.Set{Seeds: 5, Removing: 1}, 5},
		{"an emptied drained seed being removed is no more room", oneAtATime,
			disruption.Set{Seeds: 5, Drained: []disruption.DrainedSeed{{Name: "a", Started: true}}, DrainedEmpty: 1, Removing: 1}, 5},
		{"a budget of another reason holds nothing", []autoscalingv1alpha1.DisruptionBudget{{Seeds: "0",
			Reasons: []autoscalingv1alpha1.DisruptionReason{autoscalingv1alpha1.DisruptionConsolidation}}}, disruption.Set{Seeds: 5}, 2},
		{"outside its schedule", []autoscalingv1alpha1.DisruptionBudget{{Seeds: "0", Schedule: "0 22 * * *",
			DurationSeconds: 8 * 3600, Reasons: autoscalingv1alpha1.DisruptionReasons}}, disruption.Set{Seeds: 5}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &budgets{spec: tt.spec, set: tt.set, now: now}
			assert.Equal(t, tt.wantDesired, b.holdRemovals(5, decision).DesiredReplicas)
		})
	}
	var none *budgets
	assert.Equal(t, decision, none.holdRemovals(5, decision), "without budgets nothing is held")
}

// A SeedAutoscaler's series go when it is forgotten, and when no evaluation renewed them
// for their maximum age (another replica evaluates it now).
func TestObjectGaugeServesOnlyRenewedSeries(t *testing.T) {
	now := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	g := newObjectGauge("test_allowed", "help", 5*time.Minute, "reason")
	g.now = func() time.Time { return now }
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(g))
	a, b := types.NamespacedName{Namespace: "garden", Name: "a"}, types.NamespacedName{Namespace: "garden", Name: "b"}
	g.set(a, []objectSample{{labels: []string{"Consolidation"}, value: 0}, {labels: []string{"OperatorDrain"}, value: 2}})
	g.set(b, []objectSample{{labels: []string{"Consolidation"}, value: 1}})
	assert.Equal(t, 3, testutil.CollectAndCount(g))

	g.set(a, []objectSample{{labels: []string{"Consolidation"}, value: 1}})
	assert.Equal(t, 2, testutil.CollectAndCount(g), "an evaluation replaces the series of its SeedAutoscaler whole")
	g.set(b, nil)
	assert.Equal(t, 1, testutil.CollectAndCount(g))

	now = now.Add(6 * time.Minute)
	assert.Equal(t, 0, testutil.CollectAndCount(g), "a series no evaluation renewed goes")
}
