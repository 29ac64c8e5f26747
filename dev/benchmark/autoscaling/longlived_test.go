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

// A budget over the hours in which the set wants consolidation binds: the week's set is
// above its needs once the testing shoots leave in the evening, so a budget from 08:00 to
// midnight on weekdays moves the drains into the night. It buys fewer migrations in its
// window with seed-hours, and the set keeps seeds it does not need for longer. The budget
// holds the start of a drain, not the migrations of one under way: with spread placement a
// seed's drain takes hours, and a drain started at night runs on into the morning.
func TestAnEveningBudgetTradesSeedHoursForMigrationsInItsWindow(t *testing.T) {
	const days = 3
	run := func(spread bool, policy Policy, budget ArmBudget) Result {
		t.Helper()
		arm := LongLivedArm{Spread: spread, Consolidation: true, MigrationCost: true, Budget: budget}
		r, err := Run(arm.config(longLivedConfig(days, true)), policy, 95)
		require.NoError(t, err)
		require.Positive(t, r.Migrations)
		return r
	}
	window := UntilMidnightBudget()

	free, held := run(false, PolicyAhead, NoBudget), run(false, PolicyAhead, BudgetUntilMidnight)
	require.Positive(t, free.MigrationsDuring(window), "without the budget consolidation drains in the evening")
	assert.Zero(t, held.MigrationsDuring(window), "with packing a drain is over within the hours before 08:00")
	assert.Less(t, held.Migrations, free.Migrations, "the nights leave room for fewer drains")
	assert.Greater(t, held.SeedHours, free.SeedHours, "the seeds the evening would drain are paid for until the night")
	assert.Greater(t, held.AboveNeeds, free.AboveNeeds, "the set keeps seeds it does not need for longer")
	assert.Equal(t, held.P99Bind, free.P99Bind)

	spreadFree, spreadHeld := run(true, PolicyReactive, NoBudget), run(true, PolicyReactive, BudgetUntilMidnight)
	assert.Less(t, spreadHeld.MigrationsDuring(window), spreadFree.MigrationsDuring(window))
	assert.Positive(t, spreadHeld.MigrationsDuring(window), "drains of spread seeds started at night run on after 08:00")
	assert.Zero(t, during(spreadHeld.DrainStarts, window), "but none starts within the window")
	for _, r := range []Result{free, held, spreadFree, spreadHeld} {
		assert.Zero(t, r.Overcommits)
		assert.Zero(t, r.ProtectedMoved)
		assert.Len(t, r.MigrationStarts, r.Migrations)
	}
}

func TestMigrationsDuringABudgetsWindow(t *testing.T) {
	h := time.Hour
	r := Result{MigrationStarts: []time.Duration{
		7*h + 59*time.Minute,  // Monday, before
		8 * h,                 // Monday 08:00
		23*h + 59*time.Minute, // Monday, the last minute
		24 * h,                // Tuesday 00:00, after
		4*24*h + 20*h,         // Friday evening
		5*24*h + 20*h,         // Saturday evening
	}}
	assert.Equal(t, 3, r.MigrationsDuring(UntilMidnightBudget()))
	assert.Equal(t, 1, r.MigrationsDuring(WorkingHoursBudget()))
	assert.Zero(t, r.MigrationsDuring(nil), "without a budget there is no window")
}

// BudgetMarkdown weighs each budget arm at the target where the arm without a budget
// meets the service level with the fewest seed-hours, per policy and placement.
func TestBudgetMarkdown(t *testing.T) {
	h := time.Hour
	evening := []time.Duration{20 * h, 21 * h}
	night := []time.Duration{2 * h}
	result := func(target int32, seedHours float64, p99 time.Duration, starts []time.Duration, above time.Duration) Result {
		return Result{Policy: PolicyReactive, TargetPercent: target, SeedHours: seedHours, P99Bind: p99,
			Migrations: len(starts), MigrationStarts: starts, Drains: 1, AboveNeeds: above}
	}
	arms := []LongLivedArm{
		{Spread: true},
		{Spread: true, Consolidation: true, MigrationCost: true, Results: []Result{
			result(90, 1000, 0, evening, 10*h), result(95, 900, 2*time.Minute, evening, 10*h),
		}},
		{Spread: true, Consolidation: true, MigrationCost: true, Budget: BudgetUntilMidnight, Results: []Result{
			result(90, 1010, 0, night, 12*h+30*time.Minute), result(95, 950, 0, night, 12*h),
		}},
	}
	md := BudgetMarkdown(arms)
	assert.Contains(t, md, "| policy | placement | budget | target | migrations 08–24 weekdays | migrations | drains | seed-hours | vs no budget | above its needs | p99 wait |\n")
	assert.Contains(t, md, "| reactive | spread | none | 90% | 2 | 2 | 1 | 1000.0 | +0.0% | 10.0 h | 0 s |\n",
		"95% misses the service level without the budget")
	assert.Contains(t, md, "| reactive | spread | not 08–24 weekdays | 90% | 0 | 1 | 1 | 1010.0 | +1.0% | 12.5 h | 0 s |\n")
	assert.NotContains(t, md, "| ahead |", "no run of the policy, no row")
	assert.Empty(t, BudgetMarkdown(arms[:2]), "no budget arm, no table")
}

// --arms runs only the arms it names; without the baseline's arm, no row is compared with
// it.
func TestRunLongLivedOnlyTheNamedArms(t *testing.T) {
	cfg := longLivedConfig(1, true)
	cfg.Trace = Trace{Shoots: make([]int, 120)} // two hours: the runs are not the point
	arms, err := RunLongLived(cfg, []string{"packing-consolidation-cost-budget-08-24"}, 2)
	require.NoError(t, err)
	require.Len(t, arms, 1)
	assert.Equal(t, LongLivedArm{Consolidation: true, MigrationCost: true, Budget: BudgetUntilMidnight}, LongLivedArm{
		Spread: arms[0].Spread, Consolidation: arms[0].Consolidation, MigrationCost: arms[0].MigrationCost, Budget: arms[0].Budget,
	})
	assert.Len(t, arms[0].Results, len(LongLivedPolicies)*len(Targets()))
	assert.Regexp(t, `\| reactive \| packing \| consolidation, not 08–24 weekdays \| migration cost \| \d+% \| [0-9.]+ \| — \|`,
		LongLivedMarkdown(arms), "no baseline to compare with")

	_, err = RunLongLived(cfg, []string{"spread-consolidation-budget"}, 1)
	assert.ErrorContains(t, err, `arm "spread-consolidation-budget" is unknown; choose of spread-empty-only, spread-consolidation, `)
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
