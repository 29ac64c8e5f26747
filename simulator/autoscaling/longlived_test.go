package autoscaling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
