package autoscaler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/types"
)

func TestNextEvaluation(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	sync := 15 * time.Second
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	cases := []struct {
		name     string
		before   cadence
		newest   time.Time
		now      time.Time
		wait     time.Duration
		interval time.Duration
	}{
		{name: "no sample: the sync period", newest: time.Time{}, now: at(0), wait: sync},
		{name: "first sample: interval unknown, the sync period", newest: at(0), now: at(2), wait: sync},
		{name: "second sample learns the interval and waits for the third",
			before: cadence{newest: at(0)}, newest: at(5), now: at(6), wait: 5 * time.Second, interval: 5 * time.Second},
		{name: "the next sample is due: wait until it can be read",
			before: cadence{newest: at(0), interval: 5 * time.Second}, newest: at(5), now: at(8), wait: 3 * time.Second, interval: 5 * time.Second},
		{name: "the sample that was due is late: look again soon",
			before: cadence{newest: at(5), interval: 5 * time.Second}, newest: at(5), now: at(12), wait: sampleRetry, interval: 5 * time.Second},
		{name: "samples stopped for three intervals: the sync period",
			before: cadence{newest: at(5), interval: 5 * time.Second}, newest: at(5), now: at(21), wait: sync, interval: 5 * time.Second},
		{name: "a skipped sample teaches the longer gap, which the next pair corrects",
			before: cadence{newest: at(0), interval: 5 * time.Second}, newest: at(10), now: at(11), wait: 10 * time.Second, interval: 10 * time.Second},
		{name: "a gap longer than the sync period is no interval",
			before: cadence{newest: at(0), interval: 5 * time.Second}, newest: at(60), now: at(61), wait: 5 * time.Second, interval: 5 * time.Second},
		{name: "two series scraped milliseconds apart are one sample",
			before: cadence{newest: at(0), interval: 5 * time.Second}, newest: at(0.01), now: at(1), wait: 5010 * time.Millisecond, interval: 5 * time.Second},
		{name: "never longer than the sync period",
			before: cadence{newest: at(0), interval: 14500 * time.Millisecond}, newest: at(0), now: at(0), wait: sync, interval: 14500 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wait, after := nextEvaluation(c.before, c.newest, c.now, sync)
			assert.Equal(t, c.wait, wait)
			assert.Equal(t, c.interval, after.interval)
			if !c.newest.IsZero() && c.newest.After(c.before.newest) {
				assert.Equal(t, c.newest, after.newest, "the newest sample is remembered")
			}
		})
	}
}

// Each source keeps its own cadence, and the first source's next sample decides the wait:
// the exporter's usage and the scheduler's pending shoots are scraped at different times.
func TestCadencesWaitForTheFirstSourceDue(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	key := types.NamespacedName{Namespace: "garden", Name: "a"}
	var cs cadences
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	cs.next(key, map[string]time.Time{sourceUsage: at(0), sourcePending: at(7)}, at(8), time.Minute)
	// Both learn 15 s: usage is next due at 30 + 1, pending at 37 + 1.
	wait := cs.next(key, map[string]time.Time{sourceUsage: at(15), sourcePending: at(22)}, at(23), time.Minute)
	assert.Equal(t, 8*time.Second, wait, "usage's next sample, at 30 s, is readable at 31 s")

	cs.forget(key)
	assert.Equal(t, time.Minute, cs.next(key, map[string]time.Time{sourceUsage: at(30)}, at(31), time.Minute),
		"a forgotten autoscaler learns its cadence anew")
}
