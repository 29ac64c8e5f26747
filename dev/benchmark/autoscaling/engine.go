// Package autoscaling is the discrete-event benchmark of the SeedAutoscaler's policies: it
// replays a demand trace through the autoscaler's own decision code (package recommend,
// and package forecast for the policies that scale ahead) and a model of the scheduler and
// of seed provisioning, on one simulated clock, and measures how long shoots wait for a
// seed against how many seed-hours the landscape pays for.
package autoscaling

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/seedscaler/seedscaler/autoscaler/forecast"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
	"github.com/seedscaler/seedscaler/test/framework/stats"
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
// the loop's delays and the trend's lag at the start of a ramp (docs/autoscaler.md
// compares 15, 20 and 30 minutes).
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
		TrendWindow:    30 * time.Minute,
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

// Point is one minute of a run's timeline.
type Point struct {
	Minute int
	// Demand is the shoots wanted, Pending those without a seed.
	Demand, Pending int
	// Seeds is every seed paid for (provisioning or ready); Capacity the allocatable
	// shoots of the ready ones.
	Seeds, Capacity int
}

// Result is one run's figures.
type Result struct {
	Policy Policy
	// TargetPercent is the target utilization.
	TargetPercent int32
	// ShootMinutesPending is the time shoots spent without a seed, added up.
	ShootMinutesPending float64
	// P50Bind and P99Bind: time from a shoot's creation to its bind, over the shoots
	// created during the run (one still pending at the end counts with its wait so far).
	P50Bind, P99Bind time.Duration
	// SpikeP99Bind and SpikeMaxBind are P99Bind and the longest wait over the SpikeShoots
	// shoots created during the trace's spike.
	SpikeP99Bind, SpikeMaxBind time.Duration
	SpikeShoots                int
	// Headroom is the run's Config.Headroom.
	Headroom int
	// SeedHours is the time seeds existed, provisioning included, added up.
	SeedHours float64
	// OracleSeedHours is what the fewest seeds that hold the demand at every instant cost:
	// ceil(demand / allocatable per seed), provisioned exactly in time.
	OracleSeedHours float64
	// AtTargetSeedHours is what a set held exactly at the target utilization costs: at
	// every instant ceil(demand / (allocatable per seed × target)) seeds, at least one,
	// provisioned exactly in time. Consolidation drains only onto seeds that stay at or
	// below the target, so this is about as low as it can take a set (the autoscaler's
	// tolerance lets a set sit up to 10% above its target).
	AtTargetSeedHours float64
	// ScaleEvents counts the changes of replicas.
	ScaleEvents int
	// Migrations, Drains and CanceledDrains count what consolidation did; Overcommits the
	// times a seed held more than its allocatable (a migrating shoot counts on both seeds);
	// ProtectedMoved the opted-out shoots that were moved. The last two must stay 0.
	Migrations, Drains, CanceledDrains, Overcommits, ProtectedMoved int
	// MigratedWeight is the disruption of the migrations: the sum of the moved shoots'
	// migration weights (recommend.MigrationWeight).
	MigratedWeight float64
	// DrainStarts are when consolidation started each drain, and MigrationStarts each
	// migration, from the start of the run.
	DrainStarts, MigrationStarts []time.Duration
	// AboveNeeds is how long the set kept seeds it did not need: the decision was held back
	// by too few removable seeds (ScalingLimited, TooFewRemovableSeeds), what consolidation
	// waits out and drains away.
	AboveNeeds time.Duration
	// MeanShoots is the mean number of shoots over the run, and Duration its length.
	MeanShoots float64
	Duration   time.Duration
	// Timeline has one point per minute.
	Timeline []Point
}

// SeedHoursOverOracle is SeedHours − OracleSeedHours; below 0 when shoots waited instead.
func (r Result) SeedHoursOverOracle() float64 { return r.SeedHours - r.OracleSeedHours }

type seed struct {
	id      int
	readyAt time.Duration
	ready   bool
	removed bool
	shoots  int
	// cordoned: drained by consolidation, it takes no new shoots.
	cordoned bool
}

type shoot struct {
	createdAt time.Duration
	seed      *seed
	spike     bool
	// Long-lived workload: opted out of migration, gone, the seed its control plane
	// migrates to, when it last moved.
	protected   bool
	gone        bool
	migratingTo *seed
	movedAt     time.Duration
	// weight is what migrating it costs consolidation (recommend.MigrationWeight).
	weight float64
}

type scrape struct {
	at      time.Duration
	usage   map[int]int // ready seed id -> shoots
	pending int
	demand  int
}

// run is the state of one run.
type run struct {
	cfg    Config
	policy Policy
	target recommend.Target
	epoch  time.Time
	rng    *rand.Rand

	now          time.Duration
	events       eventQueue
	seeds        []*seed // by id; ready and provisioning
	provisioning []*seed // in order of readyAt
	nextSeedID   int
	bound        []*shoot
	pending      []*shoot

	scrapes []scrape // not yet superseded for the decision
	history []forecast.Sample

	recommendations []recommend.Recommendation
	scaleEvents     []recommend.ScaleEvent
	forecasts       map[Policy]*forecaster
	// forecastHistory is the combined forecast's recommendations, for its windows.
	forecastHistory []recommend.Recommendation

	life *lifeState
	// aboveNeeds: the last decision was held back by too few removable seeds.
	aboveNeeds bool

	pendingSeconds, seedSeconds, oracleSeconds, atTargetSeconds, shootSeconds float64
	waits, spikeWaits                                                         []time.Duration
	res                                                                       Result
}

// forecaster is one forecast with its accuracy state and the forecasts it made, to judge
// them when their time has come.
type forecaster struct {
	predict func(samples []forecast.Sample, now time.Time) forecast.Value
	state   forecast.AccuracyState
	made    []forecast.Sample // At: the time the forecast is for
}

// weekStart is when every run starts: a Monday at 00:00 UTC, so that budgets' schedules
// and the long-lived week's working hours fall on the same days.
var weekStart = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)

// Run replays the trace under one policy at one target utilization.
func Run(cfg Config, policy Policy, targetPercent int32) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	if !slices.Contains(Policies, policy) {
		return Result{}, fmt.Errorf("policy %q is unknown; choose one of %v", policy, Policies)
	}
	if targetPercent <= 0 {
		return Result{}, fmt.Errorf("target utilization %d%% must be positive", targetPercent)
	}
	r := &run{
		cfg: cfg, policy: policy, target: recommend.Target{UtilizationPercent: targetPercent},
		epoch: weekStart,
		rng:   rand.New(rand.NewPCG(cfg.Seed, uint64(targetPercent))),
		res:   Result{Policy: policy, TargetPercent: targetPercent, Headroom: cfg.Headroom},
	}
	if r.cfg.Accuracy.Floor == 0 {
		r.cfg.Accuracy.Floor = r.perSeedAtTarget()
	}
	r.forecasts = r.newForecasters()
	if cfg.LongLived != nil {
		r.startLongLived()
	} else {
		r.start()
	}
	r.loop()
	return r.finish(), nil
}

func (r *run) newForecasters() map[Policy]*forecaster {
	c := r.cfg
	trend := func(s []forecast.Sample, now time.Time) forecast.Value {
		return forecast.Trend(s, now, c.TrendWindow, c.Lead)
	}
	seasonal := func(s []forecast.Sample, now time.Time) forecast.Value {
		return forecast.Seasonal(s, now, c.SeasonalPeriod, c.Lead)
	}
	switch r.policy {
	case PolicyTrend:
		return map[Policy]*forecaster{PolicyTrend: {predict: trend}}
	case PolicySeasonal:
		return map[Policy]*forecaster{PolicySeasonal: {predict: seasonal}}
	case PolicyAhead:
		return map[Policy]*forecaster{PolicyTrend: {predict: trend}, PolicySeasonal: {predict: seasonal}}
	}
	return nil
}

// perSeedAtTarget is the shoots a seed holds at the target.
func (r *run) perSeedAtTarget() float64 {
	return float64(r.cfg.AllocatablePerSeed) * float64(r.target.UtilizationPercent) / 100
}

// start places the first minute's demand on as many ready seeds as the target asks for.
func (r *run) start() {
	r.placeInitial(r.cfg.Trace.Shoots[0], func() *shoot { return &shoot{} })
}

// placeInitial starts with as many ready seeds as n shoots need at the target (within min
// and max replicas) and places n shoots made by newShoot on them, the rest pending.
func (r *run) placeInitial(n int, newShoot func() *shoot) {
	replicas := int(math.Ceil(float64(n) / r.perSeedAtTarget()))
	replicas = min(max(replicas, int(r.cfg.MinReplicas)), int(r.cfg.MaxReplicas))
	for range replicas {
		r.seeds = append(r.seeds, &seed{id: r.nextSeedID, ready: true})
		r.nextSeedID++
	}
	for range n {
		sh := newShoot()
		if s := r.firstFit(); s != nil {
			sh.seed = s
			s.shoots++
			r.bound = append(r.bound, sh)
		} else {
			r.pending = append(r.pending, sh)
		}
	}
}

// loop is the discrete-event loop: it takes the earliest event off the queue (events.go),
// moves the clock to it and lets it happen, until the end of the trace. The trace's
// changes, Prometheus' scrapes, the autoscaler's decisions and the timeline's minutes
// queue their next event as each happens; seeds, and the long-lived workload's shoots,
// queue theirs when they are created.
func (r *run) loop() {
	c := r.cfg
	r.events.Push(event{at: time.Duration(c.Trace.Minutes()) * time.Minute, kind: eventEnd})
	r.pushDemandChange(1, 0)
	r.events.Push(event{kind: eventScrape, every: c.ScrapeInterval})
	decide := event{at: c.SyncPhase, kind: eventDecide, every: c.SyncPeriod}
	if r.policy == PolicyEvent {
		// A decision whenever a new sample becomes visible.
		decide.at, decide.every = c.CacheTTL, c.ScrapeInterval
	}
	r.events.Push(decide)
	r.events.Push(event{kind: eventPoint, every: time.Minute})
	for {
		e, ok := r.events.Pop()
		if !ok {
			return
		}
		if e.kind == eventSeedReady && (e.seed.ready || e.seed.removed) {
			// Made ready at once, or removed while it provisioned: nothing happens, and
			// the clock does not stop here.
			continue
		}
		r.advance(e.at)
		switch e.kind {
		case eventEnd:
			return
		case eventDemandChange:
			if c.Trace.Shoots[e.minute] > c.Trace.Shoots[e.minute-1] {
				r.create(e.minute)
			} else {
				r.delete()
			}
			r.pushDemandChange(e.minute, e.change+1)
		case eventSeedReady:
			r.ready(e.seed)
		case eventScrape:
			r.scrape()
		case eventDecide:
			r.decide()
		case eventPoint:
			r.point()
		case eventArrive:
			r.arrive(e.arrival)
		case eventExpire:
			r.leave(e.shoot)
		case eventMigrated:
			r.migrated(e.shoot)
		}
		if e.every > 0 {
			e.at += e.every
			r.events.Push(e)
		}
	}
}

// pushDemandChange queues the trace's next change of the demand: the change-th of minute
// (during minute m the demand moves from Shoots[m-1] to Shoots[m], one shoot at a time at
// even intervals), else the first of a later minute; none once the trace has no more.
func (r *run) pushDemandChange(minute, change int) {
	tr := r.cfg.Trace
	for ; minute < tr.Minutes(); minute, change = minute+1, 0 {
		if k := abs(tr.Shoots[minute] - tr.Shoots[minute-1]); change < k {
			at := time.Duration(minute)*time.Minute + time.Duration(change)*time.Minute/time.Duration(k)
			r.events.Push(event{at: at, kind: eventDemandChange, minute: minute, change: change})
			return
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// advance moves the clock, adding up pending shoots, seeds and the oracle's seeds.
func (r *run) advance(to time.Duration) {
	dt := (to - r.now).Seconds()
	if dt <= 0 {
		return
	}
	demand := len(r.bound) + len(r.pending)
	r.pendingSeconds += float64(len(r.pending)) * dt
	r.shootSeconds += float64(demand) * dt
	r.seedSeconds += float64(len(r.seeds)) * dt
	r.oracleSeconds += math.Ceil(float64(demand)/float64(r.cfg.AllocatablePerSeed)) * dt
	r.atTargetSeconds += max(1, math.Ceil(float64(demand)/r.perSeedAtTarget())) * dt
	if r.aboveNeeds {
		r.res.AboveNeeds += to - r.now
	}
	r.now = to
}

// firstFit is the scheduler's model: the ready seed with room that came first; with
// Config.Spread, the ready seed with room that has the fewest shoots (Gardener's default
// profile), the first of those.
func (r *run) firstFit() *seed {
	var best *seed
	for _, s := range r.seeds {
		if !s.ready || s.cordoned || s.shoots >= r.cfg.AllocatablePerSeed {
			continue
		}
		if !r.cfg.Spread {
			return s
		}
		if best == nil || s.shoots < best.shoots {
			best = s
		}
	}
	return best
}

// create is a shoot the trace creates in minute.
func (r *run) create(minute int) {
	tr := r.cfg.Trace
	r.place(&shoot{createdAt: r.now, spike: minute >= tr.SpikeFrom && minute < tr.SpikeTo})
}

// place binds a new shoot at once when a seed has room and no shoot waits before it;
// otherwise it waits its turn.
func (r *run) place(sh *shoot) {
	if s := r.firstFit(); s != nil && len(r.pending) == 0 {
		r.bind(sh, s)
		return
	}
	r.pending = append(r.pending, sh)
	r.bindPending()
}

func (r *run) bind(sh *shoot, s *seed) {
	sh.seed = s
	s.shoots++
	if s.shoots > r.cfg.AllocatablePerSeed {
		r.res.Overcommits++
	}
	r.bound = append(r.bound, sh)
	wait := r.now - sh.createdAt
	r.waits = append(r.waits, wait)
	if sh.spike {
		r.spikeWaits = append(r.spikeWaits, wait)
	}
}

// bindPending binds pending shoots, oldest first, while a seed has room: the scheduler
// retries them when a seed becomes ready or a shoot leaves.
func (r *run) bindPending() {
	for len(r.pending) > 0 {
		s := r.firstFit()
		if s == nil {
			return
		}
		sh := r.pending[0]
		r.pending = r.pending[1:]
		r.bind(sh, s)
	}
}

// delete removes a running shoot, the newest or one at random (Config.Deletion); the
// newest pending one when none runs.
func (r *run) delete() {
	if len(r.bound) == 0 {
		if len(r.pending) > 0 {
			r.pending = r.pending[:len(r.pending)-1]
		}
		return
	}
	i := len(r.bound) - 1
	if r.cfg.Deletion == DeleteRandom {
		i = r.rng.IntN(len(r.bound))
	}
	sh := r.bound[i]
	r.bound[i] = r.bound[len(r.bound)-1]
	r.bound = r.bound[:len(r.bound)-1]
	sh.seed.shoots--
	r.bindPending()
}

func (r *run) scrape() {
	sc := scrape{at: r.now, usage: make(map[int]int, len(r.seeds)), pending: len(r.pending), demand: len(r.bound) + len(r.pending)}
	for _, s := range r.seeds {
		if s.ready {
			sc.usage[s.id] = s.shoots
		}
	}
	r.scrapes = append(r.scrapes, sc)
	r.history = append(r.history, forecast.Sample{At: r.epoch.Add(r.now), Value: float64(sc.demand)})
}

// visible is the last sample the autoscaler can see now, through the adapter's cache.
func (r *run) visible() (scrape, int, bool) {
	horizon := r.now - r.cfg.CacheTTL
	for len(r.scrapes) > 1 && r.scrapes[1].at <= horizon {
		r.scrapes = r.scrapes[1:]
	}
	if len(r.scrapes) == 0 || r.scrapes[0].at > horizon {
		return scrape{}, 0, false
	}
	// The forecasts read the series up to the same sample.
	n, _ := slices.BinarySearchFunc(r.history, r.epoch.Add(r.scrapes[0].at), func(s forecast.Sample, t time.Time) int { return s.At.Compare(t) })
	return r.scrapes[0], n + 1, true
}

func (r *run) decide() {
	sc, seen, ok := r.visible()
	if !ok {
		return
	}
	now := r.epoch.Add(r.now)
	current := int32(len(r.seeds))
	var seeds []recommend.Seed
	removable := int32(len(r.provisioning))
	for _, s := range r.seeds {
		if !s.ready {
			// Not registered as a Seed yet: the selector does not pick it.
			continue
		}
		usage, has := sc.usage[s.id]
		// Ready but not scraped since, as the controller reads it: still bootstrapping.
		seeds = append(seeds, recommend.Seed{Name: fmt.Sprint(s.id), Ready: has, Allocatable: float64(r.cfg.AllocatablePerSeed), Usage: float64(usage), HasUsage: has})
		if s.shoots == 0 {
			removable++
		}
	}
	in := recommend.Input{
		Now: now, CurrentReplicas: current, MinReplicas: r.cfg.MinReplicas, MaxReplicas: r.cfg.MaxReplicas,
		Behavior: r.cfg.Behavior, Headroom: float64(r.cfg.Headroom),
		Metrics: []recommend.Metric{{Key: "resource/shoots", Resource: "shoots", Target: r.target, Seeds: seeds}},
		Demand: recommend.Demand{Pending: float64(sc.pending), PendingKnown: true, Seeds: seeds, Target: r.target,
			AllocatablePerSeed: float64(r.cfg.AllocatablePerSeed)},
		RemovableReplicas: removable,
		Recommendations:   r.recommendations,
		ScaleEvents:       r.scaleEvents,
	}
	d := recommend.Decide(in)
	r.recommendations = d.Recommendations
	r.aboveNeeds = d.ScalingLimited.IsTrue() && d.ScalingLimited.Reason == recommend.ReasonTooFewRemovableSeeds
	desired := d.DesiredReplicas
	if r.cfg.Consolidation != nil && r.life != nil {
		r.consolidate(now, d, current)
	}

	if len(r.forecasts) > 0 {
		history := r.history[:seen]
		sampleAt := r.epoch.Add(sc.at)
		var values []forecast.Value
		disabled := true
		for _, name := range []Policy{PolicyTrend, PolicySeasonal} {
			f := r.forecasts[name]
			if f == nil {
				continue
			}
			// Each forecast is judged, and keeps forecasting, while switched off.
			f.judge(r.cfg.Accuracy, sampleAt, float64(sc.demand))
			v := f.predict(history, sampleAt)
			if v.Known {
				f.made = append(f.made, forecast.Sample{At: sampleAt.Add(r.cfg.Lead), Value: v.Demand})
			}
			if !f.state.Off {
				disabled = false
				values = append(values, v)
			}
		}
		res := forecast.Combine(forecast.Input{
			Now: now, CurrentReplicas: current, MaxReplicas: r.cfg.MaxReplicas,
			Behavior: r.cfg.Behavior, ScaleEvents: r.scaleEvents,
			Reactive: desired, Demand: float64(sc.demand), Forecast: forecast.Max(values...),
			PerSeedAtTarget: r.perSeedAtTarget(), Disabled: disabled, History: r.forecastHistory,
		})
		r.forecastHistory = res.History
		desired = res.Desired
	}
	r.scale(now, current, desired)
}

// judge compares the forecasts whose time has come with the demand now.
func (f *forecaster) judge(a forecast.Accuracy, now time.Time, demand float64) {
	i := 0
	for i < len(f.made) && !f.made[i].At.After(now) {
		i++
	}
	if i == 0 {
		return
	}
	due := f.made[i-1]
	f.made = f.made[i:]
	f.state, _, _ = a.Observe(f.state, now, forecast.Value{Demand: due.Value, Known: true}, demand)
}

// scale applies the decision as the set controller does: new replicas start provisioning
// at once; a scale-in removes replicas still provisioning first, newest first, then empty
// ready seeds, the last first.
func (r *run) scale(now time.Time, current, desired int32) {
	change := desired - current
	switch {
	case change > 0:
		for range change {
			s := &seed{id: r.nextSeedID, readyAt: r.now + r.cfg.Provisioning}
			r.nextSeedID++
			r.seeds = append(r.seeds, s)
			r.provisioning = append(r.provisioning, s)
			r.events.Push(event{at: s.readyAt, kind: eventSeedReady, seed: s})
		}
		if r.cfg.Provisioning == 0 {
			r.readyNow()
		}
	case change < 0:
		removed := int32(0)
		for i := len(r.provisioning) - 1; i >= 0 && removed < -change; i-- {
			r.provisioning[i].removed = true
			r.provisioning = r.provisioning[:i]
			removed++
		}
		// Drained seeds go first, as the set controller removes them first.
		for _, drained := range []bool{true, false} {
			for i := len(r.seeds) - 1; i >= 0 && removed < -change; i-- {
				if s := r.seeds[i]; s.ready && !s.removed && s.shoots == 0 && s.cordoned == drained {
					s.removed = true
					removed++
				}
			}
		}
		r.seeds = slices.DeleteFunc(r.seeds, func(s *seed) bool { return s.removed })
		change = -removed
	}
	if change != 0 {
		r.scaleEvents = recommend.RecordScaleEvent(now, change, r.cfg.Behavior, r.scaleEvents)
		r.res.ScaleEvents++
	}
}

// ready makes a seed that finished provisioning ready, and binds pending shoots on it.
func (r *run) ready(s *seed) {
	if i := slices.Index(r.provisioning, s); i >= 0 {
		r.provisioning = slices.Delete(r.provisioning, i, i+1)
	}
	s.ready = true
	r.bindPending()
}

// readyNow makes seeds that need no provisioning ready at once.
func (r *run) readyNow() {
	for _, s := range r.provisioning {
		s.ready = true
	}
	r.provisioning = nil
	r.bindPending()
}

func (r *run) point() {
	ready := 0
	for _, s := range r.seeds {
		if s.ready {
			ready++
		}
	}
	r.res.Timeline = append(r.res.Timeline, Point{
		Minute: int(r.now / time.Minute), Demand: len(r.bound) + len(r.pending), Pending: len(r.pending),
		Seeds: len(r.seeds), Capacity: ready * r.cfg.AllocatablePerSeed,
	})
}

func (r *run) finish() Result {
	for _, sh := range r.pending {
		wait := r.now - sh.createdAt
		r.waits = append(r.waits, wait)
		if sh.spike {
			r.spikeWaits = append(r.spikeWaits, wait)
		}
	}
	res := r.res
	res.ShootMinutesPending = r.pendingSeconds / 60
	res.SeedHours = r.seedSeconds / 3600
	res.OracleSeedHours = r.oracleSeconds / 3600
	res.AtTargetSeedHours = r.atTargetSeconds / 3600
	res.Duration = r.now
	if r.now > 0 {
		res.MeanShoots = r.shootSeconds / r.now.Seconds()
	}
	slices.Sort(r.waits)
	slices.Sort(r.spikeWaits)
	res.P50Bind, res.P99Bind = stats.Percentile(r.waits, 0.50), stats.Percentile(r.waits, 0.99)
	res.SpikeP99Bind = stats.Percentile(r.spikeWaits, 0.99)
	res.SpikeShoots = len(r.spikeWaits)
	if len(r.spikeWaits) > 0 {
		res.SpikeMaxBind = r.spikeWaits[len(r.spikeWaits)-1]
	}
	return res
}
