package autoscaling

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
)

// longLivedConfig is the long-lived week with Gardener's spreading placement, cut to days.
func longLivedConfig(days int, consolidation bool) Config {
	cfg := LongLivedConfig()
	cfg.Trace = Trace{Shoots: make([]int, days*24*60)}
	if !consolidation {
		cfg.Consolidation = nil
	}
	return cfg
}

// Consolidation drains seeds of a set that thins out, costs fewer seed-hours than removing
// empty seeds only, and keeps the invariants: no seed above its allocatable (a migrating
// shoot counting on both seeds), no opted-out shoot moved, the hourly budget held; with
// packing placement and scale-ahead too.
func TestConsolidationSavesSeedHoursWithinItsBounds(t *testing.T) {
	const days, target = 3, 80
	without, err := Run(longLivedConfig(days, false), PolicyReactive, target)
	require.NoError(t, err)
	with, err := Run(longLivedConfig(days, true), PolicyReactive, target)
	require.NoError(t, err)

	assert.Zero(t, without.Migrations, "without consolidation nothing moves")
	assert.Positive(t, with.Drains)
	assert.Positive(t, with.Migrations)
	assert.Less(t, with.SeedHours, without.SeedHours, "draining saves seed-hours")
	cfg := LongLivedConfig()
	assert.LessOrEqual(t, with.Migrations, cfg.Consolidation.Rules.MaxMigrationsPerHour*days*24+cfg.AllocatablePerSeed,
		"the hourly budget bounds the migrations, plus the seed a drain empties at once")
	packing := longLivedConfig(days, true)
	packing.Spread = false
	packed, err := Run(packing, PolicyAhead, 95)
	require.NoError(t, err)
	assert.Positive(t, packed.Migrations, "consolidation drains packed seeds too")
	for _, r := range []Result{without, with, packed} {
		assert.Zero(t, r.Overcommits)
		assert.Zero(t, r.ProtectedMoved)
	}
	again, err := Run(longLivedConfig(days, true), PolicyReactive, target)
	require.NoError(t, err)
	assert.Equal(t, with.SeedHours, again.SeedHours, "same seed, same run")
	assert.Equal(t, with.Migrations, again.Migrations)
}

// Scored by migration cost, consolidation drains seeds of lighter shoots than the seed of
// the fewest shoots: highly available ones weigh a fifth. A budget starts no drain while its
// schedule is active: in this week drains start in the evening, when the testing shoots
// leave, so an evening budget moves them to the night.
func TestMigrationCostAndBudgets(t *testing.T) {
	const days, target = 3, 80
	evening := []autoscalingv1alpha1.DisruptionBudget{{
		Reasons: []autoscalingv1alpha1.DisruptionReason{autoscalingv1alpha1.DisruptionConsolidation},
		Seeds:   "0", Schedule: "0 18 * * *", DurationSeconds: 6 * 3600,
	}}
	run := func(cost bool, budgets []autoscalingv1alpha1.DisruptionBudget) Result {
		t.Helper()
		cfg := longLivedConfig(days, true)
		model := *cfg.Consolidation
		model.MigrationCost, model.Budgets = cost, budgets
		cfg.Consolidation = &model
		r, err := Run(cfg, PolicyReactive, target)
		require.NoError(t, err)
		require.Positive(t, r.Migrations)
		return r
	}
	fewest, cost := run(false, nil), run(true, nil)
	workingHours, evenings := run(true, WorkingHoursBudget()), run(true, evening)

	perMigration := func(r Result) float64 { return r.MigratedWeight / float64(r.Migrations) }
	assert.Less(t, perMigration(fewest), 1.0, "30% of the shoots weigh 0.2")
	assert.Greater(t, perMigration(fewest), 0.2)
	assert.Less(t, perMigration(cost), perMigration(fewest), "the cost drains lighter shoots")
	inEvenings := func(r Result) int {
		n := 0
		for _, at := range r.DrainStarts {
			if h := (at % (24 * time.Hour)).Hours(); h >= 18 {
				n++
			}
		}
		return n
	}
	assert.Positive(t, inEvenings(cost))
	assert.Zero(t, inEvenings(evenings), "the evening budget holds consolidation then")
	assert.Positive(t, evenings.Drains, "and lets it drain at other times")
	assert.Zero(t, workingHours.DrainsInWorkingHours())
	for _, r := range []Result{fewest, cost, workingHours, evenings} {
		assert.Zero(t, r.Overcommits)
		assert.Zero(t, r.ProtectedMoved)
		assert.InDelta(t, r.MigratedWeight/days, r.WeightedMigrationsPerDay(), 1e-9)
	}
}

func TestDrainsInWorkingHours(t *testing.T) {
	h := time.Hour
	r := Result{DrainStarts: []time.Duration{
		7*h + 59*time.Minute, // Monday, before
		8 * h,                // Monday 08:00
		24*h + 17*h,          // Tuesday 17:00
		24*h + 18*h,          // Tuesday 18:00, after
		5*24*h + 10*h,        // Saturday
		7*24*h + 9*h,         // the next Monday
	}}
	assert.Equal(t, 3, r.DrainsInWorkingHours())
}
