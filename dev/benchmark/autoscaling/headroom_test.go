package autoscaling

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// burstConfig is seeds of 10 shoots, 9 shoots for 20 minutes, then 10 more within minute
// 20, marked as the spike. At 95% one seed holds the 9 and sits within the tolerance, so
// without headroom the burst waits for a seed asked for only when it pends; a headroom of
// 10 asks for a second seed at the first sync (1 slot free, 9 short: one seed more), ready
// 15 minutes later, before the burst.
func burstConfig(headroom int) Config {
	shoots := make([]int, 40)
	for m := range shoots {
		shoots[m] = 9
		if m >= 20 {
			shoots[m] = 19
		}
	}
	cfg := DefaultConfig(Trace{Shoots: shoots, SpikeFrom: 20, SpikeTo: 21})
	cfg.AllocatablePerSeed, cfg.Headroom = 10, headroom
	return cfg
}

func TestHeadroomKeepsSlotsFreeForABurst(t *testing.T) {
	without, err := Run(burstConfig(0), PolicyReactive, 95)
	require.NoError(t, err)
	with, err := Run(burstConfig(10), PolicyReactive, 95)
	require.NoError(t, err)

	require.Equal(t, 10, without.SpikeShoots)
	assert.Positive(t, without.SpikeMaxBind, "without headroom nine of the burst wait for a seed")
	assert.GreaterOrEqual(t, without.SpikeMaxBind, without.SpikeP99Bind)
	assert.Greater(t, without.SpikeMaxBind, 10*time.Minute, "a new seed takes 15 minutes")
	assert.Zero(t, with.SpikeMaxBind, "the headroom's seed is ready before the burst")
	assert.Zero(t, with.P99Bind)
	assert.Greater(t, with.SeedHours, without.SeedHours, "the headroom's seed is paid for from the first sync")
	assert.Equal(t, 10, with.Headroom)
}

func TestRunHeadroomAndItsMarkdown(t *testing.T) {
	cfg := burstConfig(0)
	reactive, err := RunAll(cfg, []Policy{PolicyReactive}, Targets(), 2)
	require.NoError(t, err)
	arms, err := RunHeadroom(cfg, []int{10}, 2)
	require.NoError(t, err)
	require.Len(t, arms, 1)
	require.Len(t, arms[0].Results, len(Targets()))
	for _, r := range arms[0].Results {
		assert.Equal(t, 10, r.Headroom)
	}

	md := HeadroomMarkdown(reactive, arms)
	assert.Contains(t, md, "| 0 | 80% | 1.6 | +0.0% | 0 s / 0 s | 0 s / 0 s | 1 |", "without headroom the burst waits above 85%")
	assert.Contains(t, md, "| 10 | 90% | 1.7 | +0.6% | 0 s / 0 s | 0 s / 0 s | 2 |", "with it a higher target meets the service level")
	assert.Contains(t, md, "| 95% | 1.0 (+0.0%); 921 s; 921 s / 921 s | 1.7 (+66.8%); 0 s; 0 s / 0 s |", "the same target side by side")

	_, err = RunHeadroom(cfg, []int{-1}, 1)
	assert.ErrorContains(t, err, "headroom -1: the headroom is -1 shoots; it must not be negative")
}
