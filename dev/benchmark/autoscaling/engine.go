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

// run is the state of one run.
type run struct {
	cfg    Config
	policy Policy
	target recommend.Target
	epoch  time.Time
	rng    *rand.Rand

	now        time.Duration
	events     eventQueue
	seeds      []*seed // by id; ready and provisioning
	nextSeedID int
	bound      []*shoot
	pending    []*shoot

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
		if e.kind == eventSeedReady && e.seed.removed {
			// Removed while it provisioned: nothing happens, and the clock does not stop
			// here.
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

// abs is |x|.
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

// point records the timeline's minute.
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

// finish is the run's figures: the shoots still pending count with their wait so far.
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
