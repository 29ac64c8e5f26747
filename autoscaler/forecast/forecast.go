// Package forecast predicts a SeedAutoscaler's demand over a lead time (the time a new seed
// takes to accept shoots) and folds the prediction into the reactive decision of package
// recommend: ask for seeds before the demand arrives, never fewer than the reactive decision
// asks for. Plain functions over plain inputs — no client, no clock — as in recommend.
package forecast

import (
	"math"
	"sort"
	"time"
)

// Sample is one observation of the demand: the shoots wanted (in use plus pending) at At.
type Sample struct {
	At    time.Time
	Value float64
}

// Value is a forecast of the demand; Known is false when there is none.
type Value struct {
	Demand float64
	Known  bool
}

// DefaultTrendWindow is the trend's window when spec.scaleAhead.trend.windowSeconds is
// unset. Short, because a line through a long window lags the start of a ramp by half the
// window: on the autoscaling benchmark's weeks a 10-minute window lets scale-ahead meet the
// service level at a 95% target, where 30 minutes left shoots waiting on every ramp that
// the seasonal forecast did not see coming (the first day, the day after a holiday, the
// day after a launch) and on the spike.
const DefaultTrendWindow = 10 * time.Minute

// between returns the samples with from < At <= to. Samples must be sorted by At.
func between(samples []Sample, from, to time.Time) []Sample {
	lo := sort.Search(len(samples), func(i int) bool { return samples[i].At.After(from) })
	hi := sort.Search(len(samples), func(i int) bool { return samples[i].At.After(to) })
	return samples[lo:hi]
}

// Trend is a least-squares line through the samples of the window before now, evaluated
// at now + lead (Prometheus' predict_linear(demand[window], lead)), that stops rising where
// the demand did: it is at most the larger of the line through the window's last quarter
// and the last sample. At the top of a ramp the window's line still rises with the ramp
// behind it while the last quarter is flat; at the start of a ramp the last quarter rises
// faster, and the window's line stands. The adapter's trend metric computes the same in
// PromQL. Fewer than two samples at different times in the window: no forecast; in its
// last quarter: the window's line alone.
func Trend(samples []Sample, now time.Time, window, lead time.Duration) Value {
	in := between(samples, now.Add(-window), now)
	long := line(in, now, lead)
	recent := line(between(in, now.Add(-window/4), now), now, lead)
	if !long.Known || !recent.Known {
		return long
	}
	ceiling := max(in[len(in)-1].Value, recent.Demand)
	return Value{Demand: min(long.Demand, ceiling), Known: true}
}

// line is the least-squares line through samples, evaluated at now + lead.
func line(in []Sample, now time.Time, lead time.Duration) Value {
	if len(in) < 2 {
		return Value{}
	}
	// Times relative to now, in seconds, as Prometheus does, so that the intercept is the
	// value at now and the sums stay small.
	var n, sumX, sumY, sumXY, sumX2 float64
	for _, s := range in {
		x := s.At.Sub(now).Seconds()
		n++
		sumX += x
		sumY += s.Value
		sumXY += x * s.Value
		sumX2 += x * x
	}
	covXY := sumXY - sumX*sumY/n
	varX := sumX2 - sumX*sumX/n
	if varX <= 0 {
		return Value{}
	}
	slope := covXY / varX
	intercept := sumY/n - slope*sumX/n
	return Value{Demand: intercept + slope*lead.Seconds(), Known: true}
}

// Seasonal is what the demand did one period ago over the lead time to come: the maximum of
// the samples in [now−period, now−period+lead], as Grafana Mimir sizes its queriers from
// the load of a day earlier; the adapter's seasonal rule computes the same in PromQL. No
// sample a period ago: no forecast (the first period of a new autoscaler).
func Seasonal(samples []Sample, now time.Time, period, lead time.Duration) Value {
	then := now.Add(-period)
	// One tick before then, so that a sample exactly at then counts.
	in := between(samples, then.Add(-time.Nanosecond), then.Add(lead))
	if len(in) == 0 {
		return Value{}
	}
	peak := math.Inf(-1)
	for _, s := range in {
		peak = max(peak, s.Value)
	}
	return Value{Demand: peak, Known: true}
}

// Max is the larger of the known forecasts; unknown when none is known. A forecast that is
// known but not a number wins, so that the guard rejects it rather than the other hiding it.
func Max(values ...Value) Value {
	var out Value
	for _, v := range values {
		switch {
		case !v.Known:
		case !out.Known || math.IsNaN(v.Demand) || v.Demand > out.Demand:
			if out.Known && math.IsNaN(out.Demand) {
				continue
			}
			out = v
		}
	}
	return out
}
