package adapter

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A metric discovery once saw stays listed for the retention, whatever later runs find:
// a late scrape or a failed run does not make it flicker out of the list.
func TestAvailabilityKeepsMetricsForTheRetention(t *testing.T) {
	cfg, err := DefaultConfig()
	require.NoError(t, err)
	spec := &cfg.Rules[0].query
	a := newAvailability(10 * time.Minute)
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

	a.seen(false, 0, spec, []string{"garden_seed_usage", "garden_seed_capacity", "garden_shoot_info"}, t0)
	names := func() []string {
		var out []string
		for _, k := range a.keys(false) {
			out = append(out, k.metric)
		}
		return out
	}
	assert.Equal(t, []string{"garden_seed_capacity", "garden_seed_usage"}, names(), "the rule does not expose garden_shoot_info")

	// The next run sees only usage (capacity's series missed a scrape).
	a.seen(false, 0, spec, []string{"garden_seed_usage"}, t0.Add(30*time.Second))
	a.expire(t0.Add(30 * time.Second))
	assert.Equal(t, []string{"garden_seed_capacity", "garden_seed_usage"}, names())

	a.expire(t0.Add(10*time.Minute + time.Second))
	assert.Equal(t, []string{"garden_seed_usage"}, names(), "capacity expires after the retention")
	series, ok := a.series(false, 0, "garden_seed_usage")
	assert.True(t, ok)
	assert.Equal(t, "garden_seed_usage", series)
	assert.Empty(t, a.keys(true))
}
