package autoscaling

import (
	"fmt"
	"time"

	"github.com/seedscaler/seedscaler/autoscaler/forecast"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
)

// Policy is how the autoscaler decides.
type Policy string

const (
	// PolicyReactive is the SeedAutoscaler as it is: recommend.Decide every sync period.
	PolicyReactive Policy = "reactive"
	// PolicyEvent decides as soon as a new sample is visible, without waiting for a sync.
	PolicyEvent Policy = "event"
	// PolicyTrend adds the trend forecast (recommend.Decide plus forecast.Trend) at each sync.
	PolicyTrend Policy = "trend"
	// PolicySeasonal adds the seasonal forecast.
	PolicySeasonal Policy = "seasonal"
	// PolicyAhead adds the larger of the trend and the seasonal forecast.
	PolicyAhead Policy = "ahead"
)

// Policies are every policy, in the order of the report.
var Policies = []Policy{PolicyReactive, PolicyEvent, PolicyTrend, PolicySeasonal, PolicyAhead}

// Config is the landscape and the loop being modeled.
type Config struct {
	Trace Trace
	// AllocatablePerSeed is how many shoots a seed takes.
	AllocatablePerSeed int
	// Provisioning is how long a new seed takes to accept shoots.
	Provisioning time.Duration
	// SyncPeriod and SyncPhase: the autoscaler decides at SyncPhase + k·SyncPeriod.
	SyncPeriod, SyncPhase time.Duration
	// ScrapeInterval: Prometheus samples usage and pending shoots at k·ScrapeInterval.
	ScrapeInterval time.Duration
	// CacheTTL: the adapter answers from a cache this old at most, so a decision at t sees
	// the last sample taken at or before t − CacheTTL.
	CacheTTL time.Duration
	// MinReplicas and MaxReplicas of the SeedAutoscaler.
	MinReplicas, MaxReplicas int32
	// Behavior of the SeedAutoscaler.
	Behavior recommend.Behavior
	// Headroom is spec.headroom.shoots: free shoot slots to keep across the ready seeds
	// (recommend.HeadroomReplicas, through recommend.Decide); 0 for none.
	Headroom int
	// Lead is how far ahead the forecasts look.
	Lead time.Duration
	// TrendWindow is the window of the trend's least-squares fit.
	TrendWindow time.Duration
	// SeasonalPeriod is the period of the seasonal forecast.
	SeasonalPeriod time.Duration
	// Accuracy switches a forecast off that is wrong for too long.
	Accuracy forecast.Accuracy
	// Deletion is which running shoot a tenant deletes when the demand falls.
	Deletion Deletion
	// Seed seeds the choice of DeleteRandom, and the long-lived workload's draws.
	Seed uint64
	// LongLived replaces the trace's demand by shoots with lifetimes (nil: the trace); the
	// trace then only says how long the run lasts.
	LongLived *LongLived
	// Consolidation drains seeds while the set is above its needs (nil: only empty seeds
	// are removed). Only with LongLived.
	Consolidation *ConsolidationModel
	// Spread places a shoot on the seed with the fewest shoots, as Gardener's default
	// profile does, instead of first-fit.
	Spread bool
}

// Deletion is which running shoot goes when the demand falls.
type Deletion string

const (
	// DeleteNewest deletes the newest shoot: the wave is shoots created for the day on top
	// of long-lived ones, and the day's go at its end. First-fit placed them on the
	// newest seeds, which then empty out and can be removed.
	DeleteNewest Deletion = "newest"
	// DeleteRandom deletes any running shoot with equal chance: the worst case for a
	// scale-in, which removes only empty seeds.
	DeleteRandom Deletion = "random"
)

// DefaultConfig is the benchmark's landscape: seeds of 50 shoots that take 15 minutes, the
// autoscaler's defaults (15 s sync, HPA's behavior), Prometheus scraping every 15 s and the
// adapter's 5 s cache, forecasts 20 minutes ahead: the provisioning time plus a margin for
// the loop's delays and the trend's lag at the start of a ramp (docs/performance.md
// compares 15, 20 and 25 minutes), the trend through the API's default window.
func DefaultConfig(trace Trace) Config {
	return Config{
		Trace:              trace,
		AllocatablePerSeed: 50,
		Provisioning:       15 * time.Minute,
		SyncPeriod:         15 * time.Second,
		// The last sample a sync sees is then 12 s old, about the mean over all phases
		// (5 s of cache plus half a scrape interval).
		SyncPhase:      12 * time.Second,
		ScrapeInterval: 15 * time.Second,
		CacheTTL:       5 * time.Second,
		MinReplicas:    1,
		MaxReplicas:    200,
		Behavior:       recommend.Behavior{ScaleUp: recommend.DefaultScaleUp(), ScaleDown: recommend.DefaultScaleDown()},
		Lead:           20 * time.Minute,
		TrendWindow:    forecast.DefaultTrendWindow,
		SeasonalPeriod: 24 * time.Hour,
		Accuracy:       forecast.Accuracy{Threshold: 0.5, Window: time.Hour},
		Deletion:       DeleteNewest,
		Seed:           1,
	}
}

// Validate says which field of the configuration is unusable.
func (c Config) Validate() error {
	switch {
	case c.Trace.Minutes() < 2:
		return fmt.Errorf("the trace has %d minutes; it needs at least 2", c.Trace.Minutes())
	case c.AllocatablePerSeed <= 0:
		return fmt.Errorf("allocatable shoots per seed is %d; it must be at least 1", c.AllocatablePerSeed)
	case c.Provisioning < 0:
		return fmt.Errorf("the provisioning time is %s; it must not be negative", c.Provisioning)
	case c.SyncPeriod <= 0 || c.ScrapeInterval <= 0:
		return fmt.Errorf("the sync period (%s) and the scrape interval (%s) must be positive", c.SyncPeriod, c.ScrapeInterval)
	case c.TrendWindow < time.Minute:
		return fmt.Errorf("the trend window is %s; it must be at least 1m, as spec.scaleAhead.trend.windowSeconds", c.TrendWindow)
	case c.SyncPhase < 0 || c.CacheTTL < 0 || c.Lead < 0:
		return fmt.Errorf("the sync phase (%s), cache TTL (%s) and lead time (%s) must not be negative", c.SyncPhase, c.CacheTTL, c.Lead)
	case c.Deletion != DeleteNewest && c.Deletion != DeleteRandom:
		return fmt.Errorf("deletion %q is unknown; choose %q or %q", c.Deletion, DeleteNewest, DeleteRandom)
	case c.Headroom < 0:
		return fmt.Errorf("the headroom is %d shoots; it must not be negative", c.Headroom)
	case c.MinReplicas < 0 || c.MaxReplicas < max(c.MinReplicas, 1):
		return fmt.Errorf("minReplicas %d and maxReplicas %d: want 0 <= minReplicas <= maxReplicas, maxReplicas >= 1", c.MinReplicas, c.MaxReplicas)
	}
	return nil
}
