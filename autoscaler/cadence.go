package autoscaler

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// The autoscaler's inputs change only when Prometheus takes a new sample, so the moment
// worth deciding at is the one right after the next sample can be read, not a fixed
// period after the last decision. With --react-to-samples each SeedAutoscaler learns the
// interval of its samples (the newest sample's time, decision to decision) and is
// evaluated again as soon as the next one can be visible; --sync-period stays the longest
// wait, for a target whose samples stopped or that has none.

// Constants of the sample cadence.
const (
	// sampleVisibleAfter is how long after its sample time a sample is expected to be
	// readable through the metrics API: Prometheus' ingestion and the adapter's query.
	sampleVisibleAfter = time.Second
	// sampleRetry is how soon to look again when the sample that was due is not readable
	// yet (the adapter may answer from its cache for a few seconds more).
	sampleRetry = time.Second
	// minSampleInterval bounds the learned interval from below: two samples a few
	// milliseconds apart are the same scrape seen through two series.
	minSampleInterval = time.Second
	// missedSamples is how many intervals may pass without a new sample before the
	// autoscaler falls back to --sync-period: Prometheus or the target is not scraped.
	missedSamples = 3
)

// cadence is what one SeedAutoscaler's evaluations learned about its samples.
type cadence struct {
	// newest is the time of the newest sample the last evaluation read.
	newest time.Time
	// interval between samples, learned from two evaluations that read different samples;
	// 0 until then.
	interval time.Duration
}

// nextEvaluation says how long to wait before evaluating again, and what the cadence has
// learned, given the newest sample time an evaluation read at now (zero when it read no
// sample). The wait is until the next sample can be visible: newest + interval +
// sampleVisibleAfter; when that has passed without a newer sample, sampleRetry; never
// longer than syncPeriod, and syncPeriod while the interval is unknown or samples have
// stopped for missedSamples intervals.
func nextEvaluation(c cadence, newest, now time.Time, syncPeriod time.Duration) (time.Duration, cadence) {
	if newest.IsZero() {
		return syncPeriod, c
	}
	if newest.After(c.newest) {
		if !c.newest.IsZero() {
			if d := newest.Sub(c.newest); d >= minSampleInterval && d <= syncPeriod {
				c.interval = d
			}
		}
		c.newest = newest
	}
	if c.interval <= 0 || now.Sub(c.newest) > missedSamples*c.interval {
		return syncPeriod, c
	}
	wait := c.newest.Add(c.interval + sampleVisibleAfter).Sub(now)
	if wait <= 0 {
		wait = sampleRetry
	}
	return min(wait, syncPeriod), c
}

// cadences keeps the cadence of each source of samples (the seeds' usage, the pending
// shoots), for each SeedAutoscaler of this replica. The sources are scraped from different
// targets, each at its own time, so each has its own cadence.
type cadences struct {
	mu sync.Mutex
	m  map[types.NamespacedName]map[string]cadence
}

// next records an evaluation of key that read, from each source, samples up to the time
// given, at now, and returns the wait until the next evaluation: until the first source's
// next sample can be visible (nextEvaluation), never longer than syncPeriod.
func (cs *cadences) next(key types.NamespacedName, newest map[string]time.Time, now time.Time, syncPeriod time.Duration) time.Duration {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.m == nil {
		cs.m = map[types.NamespacedName]map[string]cadence{}
	}
	if cs.m[key] == nil {
		cs.m[key] = map[string]cadence{}
	}
	wait := syncPeriod
	for source, t := range newest {
		w, c := nextEvaluation(cs.m[key][source], t, now, syncPeriod)
		cs.m[key][source] = c
		wait = min(wait, w)
	}
	return wait
}

// forget drops the cadences of a SeedAutoscaler that is gone.
func (cs *cadences) forget(key types.NamespacedName) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	delete(cs.m, key)
}

// Sources of samples, as cadences tells them apart.
const (
	sourceUsage   = "usage"
	sourcePending = "pending"
)

// newestSamples is the time of the newest sample an observation read from each source (zero
// for a source it read nothing from).
func (obs *observation) newestSamples() map[string]time.Time {
	out := map[string]time.Time{}
	if obs == nil {
		return out
	}
	var usage time.Time
	for _, bySeed := range obs.usage {
		for _, s := range bySeed {
			if s.at.After(usage) {
				usage = s.at
			}
		}
	}
	out[sourceUsage] = usage
	if obs.pending != nil {
		out[sourcePending] = obs.pending.at
	}
	return out
}
