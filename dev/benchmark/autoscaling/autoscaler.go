package autoscaling

import (
	"fmt"
	"slices"
	"time"

	"github.com/seedscaler/seedscaler/autoscaler/forecast"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
)

// scrape is what Prometheus sampled at one time: the usage of the ready seeds, the pending
// shoots and the demand.
type scrape struct {
	at      time.Duration
	usage   map[int]int // ready seed id -> shoots
	pending int
	demand  int
}

// forecaster is one forecast with its accuracy state and the forecasts it made, to judge
// them when their time has come.
type forecaster struct {
	predict func(samples []forecast.Sample, now time.Time) forecast.Value
	state   forecast.AccuracyState
	made    []forecast.Sample // At: the time the forecast is for
}

// newForecasters are the forecasts the policy scales ahead by; none for the reactive and
// event policies.
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

// scrape is Prometheus sampling the landscape now.
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

// decide is the autoscaler deciding on the last sample it sees, with recommend.Decide and,
// for the policies that scale ahead, the forecasts; consolidation follows the decision.
func (r *run) decide() {
	sc, seen, ok := r.visible()
	if !ok {
		return
	}
	now := r.epoch.Add(r.now)
	current := int32(len(r.seeds))
	var seeds []recommend.Seed
	var removable int32
	for _, s := range r.seeds {
		if !s.ready {
			// Not registered as a Seed yet: the selector does not pick it, and the set
			// controller removes it first.
			removable++
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
		// Seeds that need no provisioning are ready at once.
		readyNow := r.cfg.Provisioning == 0
		for range change {
			s := &seed{id: r.nextSeedID, ready: readyNow}
			r.nextSeedID++
			r.seeds = append(r.seeds, s)
			if !readyNow {
				r.events.Push(event{at: r.now + r.cfg.Provisioning, kind: eventSeedReady, seed: s})
			}
		}
		if readyNow {
			r.bindPending()
		}
	case change < 0:
		removed := int32(0)
		for i := len(r.seeds) - 1; i >= 0 && removed < -change; i-- {
			if s := r.seeds[i]; !s.ready {
				s.removed = true
				removed++
			}
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
