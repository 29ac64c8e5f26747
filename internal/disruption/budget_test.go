package disruption

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

const (
	consolidation = autoscalingv1alpha1.DisruptionConsolidation
	operatorDrain = autoscalingv1alpha1.DisruptionOperatorDrain
	emptyRemoval  = autoscalingv1alpha1.DisruptionEmptySeedRemoval
)

func seeds(v string, reasons ...autoscalingv1alpha1.DisruptionReason) autoscalingv1alpha1.DisruptionBudget {
	return autoscalingv1alpha1.DisruptionBudget{Seeds: v, Reasons: reasons}
}

func shoots(v string, reasons ...autoscalingv1alpha1.DisruptionReason) autoscalingv1alpha1.DisruptionBudget {
	return autoscalingv1alpha1.DisruptionBudget{Shoots: v, Reasons: reasons}
}

func scheduled(b autoscalingv1alpha1.DisruptionBudget, schedule string, d time.Duration) autoscalingv1alpha1.DisruptionBudget {
	b.Schedule, b.DurationSeconds = schedule, int32(d/time.Second)
	return b
}

// all is every reason.
var all = autoscalingv1alpha1.DisruptionReasons

func TestEvaluateTakesTheMostRestrictiveActiveBudget(t *testing.T) {
	monday10 := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	businessHours := scheduled(seeds("0", consolidation), "0 9 * * mon-fri", 8*time.Hour)
	tests := []struct {
		name    string
		budgets []autoscalingv1alpha1.DisruptionBudget
		reason  autoscalingv1alpha1.DisruptionReason
		unit    Unit
		total   int
		now     time.Time
		want    Limit
	}{
		{"no budgets bound nothing", nil, consolidation, Seeds, 10, monday10, Limit{}},
		{"a count", []autoscalingv1alpha1.DisruptionBudget{seeds("2", all...)}, consolidation, Seeds, 10, monday10,
			Limit{Bounded: true, Max: 2, Index: 0, Budget: `budgets[0] (seeds "2")`}},
		{"a percentage rounds up", []autoscalingv1alpha1.DisruptionBudget{seeds("10%", all...)}, consolidation, Seeds, 3, monday10,
			Limit{Bounded: true, Max: 1, Index: 0, Budget: `budgets[0] (seeds "10%")`}},
		{"a percentage of the shoots", []autoscalingv1alpha1.DisruptionBudget{shoots("5%", all...)}, operatorDrain, Shoots, 250, monday10,
			Limit{Bounded: true, Max: 13, Index: 0, Budget: `budgets[0] (shoots "5%")`}},
		{"the most restrictive wins", []autoscalingv1alpha1.DisruptionBudget{seeds("3", all...), seeds("50%", all...), seeds("1", all...)}, consolidation, Seeds, 10, monday10,
			Limit{Bounded: true, Max: 1, Index: 2, Budget: `budgets[2] (seeds "1")`}},
		{"a tie goes to the first", []autoscalingv1alpha1.DisruptionBudget{seeds("1", all...), seeds("10%", all...)}, consolidation, Seeds, 10, monday10,
			Limit{Bounded: true, Max: 1, Index: 0, Budget: `budgets[0] (seeds "1")`}},
		{"a budget of other reasons does not apply", []autoscalingv1alpha1.DisruptionBudget{seeds("0", operatorDrain, emptyRemoval)}, consolidation, Seeds, 10, monday10,
			Limit{}},
		{"a budget of one reason holds only that reason", []autoscalingv1alpha1.DisruptionBudget{seeds("0", emptyRemoval)}, emptyRemoval, Seeds, 10, monday10,
			Limit{Bounded: true, Max: 0, Index: 0, Budget: `budgets[0] (seeds "0")`}},
		{"a budget of shoots does not bound seeds", []autoscalingv1alpha1.DisruptionBudget{shoots("0", all...)}, consolidation, Seeds, 10, monday10, Limit{}},
		{"within its schedule", []autoscalingv1alpha1.DisruptionBudget{seeds("1", all...), businessHours}, consolidation, Seeds, 10, monday10,
			Limit{Bounded: true, Max: 0, Index: 1, Budget: `budgets[1] (seeds "0", from "0 9 * * mon-fri" for 8h0m0s)`}},
		{"at the start of its schedule", []autoscalingv1alpha1.DisruptionBudget{businessHours}, consolidation, Seeds, 10, monday10.Add(-time.Hour),
			Limit{Bounded: true, Max: 0, Index: 0, Budget: `budgets[0] (seeds "0", from "0 9 * * mon-fri" for 8h0m0s)`}},
		{"at the end of its duration", []autoscalingv1alpha1.DisruptionBudget{seeds("1", all...), businessHours}, consolidation, Seeds, 10, monday10.Add(7 * time.Hour),
			Limit{Bounded: true, Max: 1, Index: 0, Budget: `budgets[0] (seeds "1")`}},
		{"outside its schedule", []autoscalingv1alpha1.DisruptionBudget{businessHours}, consolidation, Seeds, 10, monday10.Add(-2 * time.Hour), Limit{}},
		{"on a Sunday", []autoscalingv1alpha1.DisruptionBudget{businessHours}, consolidation, Seeds, 10, monday10.Add(-24 * time.Hour), Limit{}},
		{"a schedule that does not parse allows nothing", []autoscalingv1alpha1.DisruptionBudget{seeds("5", all...), scheduled(seeds("3", all...), "0 25 * * *", time.Hour)},
			consolidation, Seeds, 10, monday10, Limit{Bounded: true, Max: 0, Index: 1, Budget: `budgets[1] (seeds "3", from "0 25 * * *" for 1h0m0s)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Evaluate(tt.budgets, tt.reason, tt.unit, tt.total, tt.now))
		})
	}
}

func TestProblemsNameTheField(t *testing.T) {
	budgets := []autoscalingv1alpha1.DisruptionBudget{
		seeds("1", all...),
		scheduled(seeds("0", all...), "0 9 * * mon-fri", 8*time.Hour),
		scheduled(shoots("0", all...), "0 9 * * sat-sun", 0),
		scheduled(seeds("0", all...), "60 9 * * *", time.Hour),
	}
	assert.Equal(t, []string{
		"spec.behavior.scaleDown.consolidation.budgets[2].schedule: day of week \"sat-sun\": the range runs backwards, write it from the smaller value, e.g. 0-6; " +
			"write five fields in UTC, e.g. \"0 9 * * mon-fri\" (09:00 on weekdays); until then the budget allows no disruption of its reasons",
		"spec.behavior.scaleDown.consolidation.budgets[2].durationSeconds: a schedule needs a duration above 0, e.g. durationSeconds: 28800 (8 hours); until then the budget allows no disruption of its reasons",
		"spec.behavior.scaleDown.consolidation.budgets[3].schedule: minute \"60\" is not a number from 0 to 59; " +
			"write five fields in UTC, e.g. \"0 9 * * mon-fri\" (09:00 on weekdays); until then the budget allows no disruption of its reasons",
	}, Problems(budgets))
	assert.Empty(t, Problems(budgets[:2]))
}

func TestLimitRoom(t *testing.T) {
	_, bounded := Limit{}.Room(5)
	assert.False(t, bounded, "no budget, no bound")
	room, bounded := Limit{Bounded: true, Max: 2}.Room(1)
	assert.True(t, bounded)
	assert.Equal(t, 1, room)
	room, _ = Limit{Bounded: true, Max: 2}.Room(3)
	assert.Equal(t, 0, room, "more under way than the budget allows is no room, not less")
}

func TestAdmit(t *testing.T) {
	one := Limit{Bounded: true, Max: 1}
	two := Limit{Bounded: true, Max: 2}
	tests := []struct {
		name         string
		limit        Limit
		deleting     int
		drained      []DrainedSeed
		wantAdmitted []string
		wantWaiting  []string
	}{
		{"no bound admits every drain", Limit{}, 3, []DrainedSeed{{Name: "b"}, {Name: "a"}}, []string{"a", "b"}, nil},
		{"waiting drains by name", one, 0, []DrainedSeed{{Name: "c"}, {Name: "b"}}, []string{"b"}, []string{"c"}},
		{"a drain under way keeps its place", one, 0, []DrainedSeed{{Name: "b"}, {Name: "c", Started: true}}, []string{"c"}, []string{"b"}},
		{"a seed being deleted takes a place", two, 1, []DrainedSeed{{Name: "a"}, {Name: "b"}}, []string{"a"}, []string{"b"}},
		{"drains under way beyond the budget go on", one, 1, []DrainedSeed{{Name: "a", Started: true}, {Name: "b", Started: true}, {Name: "c"}},
			[]string{"a", "b"}, []string{"c"}},
		{"a budget of none holds every new drain", Limit{Bounded: true}, 0, []DrainedSeed{{Name: "a"}}, nil, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			admitted, waiting := Admit(tt.limit, tt.deleting, tt.drained)
			assert.Equal(t, tt.wantAdmitted, admitted)
			assert.Equal(t, tt.wantWaiting, waiting)
		})
	}
}

func TestCountTheDisruptionsOfASet(t *testing.T) {
	now := metav1.Now()
	seed := func(name string, annotations map[string]string, drained string) *gardencorev1beta1.Seed {
		s := &gardencorev1beta1.Seed{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations}}
		if drained != "" {
			s.Status.Conditions = []metav1.Condition{{Type: gardencorev1beta1.SeedDrained, Status: metav1.ConditionFalse, Reason: drained}}
		}
		return s
	}
	managed := func(name string, annotations map[string]string, deleting bool) *seedmanagementv1alpha1.ManagedSeed {
		ms := &seedmanagementv1alpha1.ManagedSeed{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations}}
		if deleting {
			ms.DeletionTimestamp = &now
		}
		return ms
	}
	drain := map[string]string{gardencorev1beta1.AnnotationDrain: "true"}
	consolidating := map[string]string{gardencorev1beta1.AnnotationDrain: "true", gardencorev1beta1.AnnotationDrainReason: gardencorev1beta1.DrainReasonConsolidation}
	deletedSeed := seed("deleted", nil, "")
	deletedSeed.DeletionTimestamp = &now
	got := Count([]Member{
		{Seed: seed("idle", nil, ""), Shoots: 10},
		{Seed: deletedSeed},
		{Seed: seed("leaving", nil, ""), ManagedSeed: managed("leaving", drain, true), Shoots: 3},
		{Seed: seed("by-seed", drain, ""), Shoots: 5},
		{Seed: seed("by-managed-seed", nil, "Draining"), ManagedSeed: managed("by-managed-seed", drain, false), Shoots: 4},
		{Seed: seed("waits", nil, ReasonDrainWaiting), ManagedSeed: managed("waits", drain, false), Shoots: 2},
		{Seed: seed("migrating", drain, ReasonDrainWaiting), Shoots: 1, Migrating: true},
		{Seed: seed("consolidated", nil, ""), ManagedSeed: managed("consolidated", consolidating, false)},
	})
	assert.Equal(t, Set{Seeds: 8, Shoots: 25, Deleting: 2, DrainedEmpty: 1, Drained: []DrainedSeed{
		{Name: "by-seed"}, {Name: "by-managed-seed", Started: true}, {Name: "waits"}, {Name: "migrating", Started: true}, {Name: "consolidated", Started: true},
	}}, got)
	assert.Equal(t, 7, got.Disrupted())
}

func TestHoldConsolidation(t *testing.T) {
	monday10 := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	sunday10 := monday10.Add(-24 * time.Hour)
	workingHours := scheduled(seeds("0", consolidation), "0 8 * * mon-fri", 10*time.Hour)
	set := Set{Seeds: 10, Shoots: 300}
	tests := []struct {
		name    string
		budgets []autoscalingv1alpha1.DisruptionBudget
		set     Set
		now     time.Time
		held    string // a part of the reason; empty when a drain may start
	}{
		{name: "no budget", set: set, now: monday10},
		{name: "a budget of another reason", budgets: []autoscalingv1alpha1.DisruptionBudget{seeds("0", operatorDrain)}, set: set, now: monday10},
		{name: "within working hours", budgets: []autoscalingv1alpha1.DisruptionBudget{workingHours}, set: set, now: monday10,
			held: `budgets[0] (seeds "0", from "0 8 * * mon-fri" for 10h0m0s) allows no more of the set's seeds to be disrupted: 0 are`},
		{name: "on a weekend", budgets: []autoscalingv1alpha1.DisruptionBudget{workingHours}, set: set, now: sunday10},
		{name: "after working hours", budgets: []autoscalingv1alpha1.DisruptionBudget{workingHours}, set: set, now: monday10.Add(8 * time.Hour)},
		{name: "room beside the seeds disrupted", budgets: []autoscalingv1alpha1.DisruptionBudget{seeds("2", consolidation)},
			set: Set{Seeds: 10, Deleting: 1}, now: monday10},
		{name: "no room beside the seeds disrupted", budgets: []autoscalingv1alpha1.DisruptionBudget{seeds("2", consolidation)},
			set: Set{Seeds: 10, Deleting: 1, Drained: []DrainedSeed{{Name: "a", Started: true}}}, now: monday10, held: "2 are"},
		{name: "shoots paused", budgets: []autoscalingv1alpha1.DisruptionBudget{shoots("0", all...)}, set: set, now: monday10,
			held: `budgets[0] (shoots "0") lets no shoot of the set migrate`},
		{name: "shoots allowed", budgets: []autoscalingv1alpha1.DisruptionBudget{shoots("5%", consolidation)}, set: set, now: monday10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HoldConsolidation(tt.budgets, tt.set, tt.now)
			if tt.held == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, tt.held)
		})
	}
}
