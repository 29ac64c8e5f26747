package forecast

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

var t0 = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)

// series samples f every step from t0 over d.
func series(d, step time.Duration, f func(minutes float64) float64) []Sample {
	var out []Sample
	for at := time.Duration(0); at <= d; at += step {
		out = append(out, Sample{At: t0.Add(at), Value: f(at.Minutes())})
	}
	return out
}

func TestTrend(t *testing.T) {
	line := series(time.Hour, 15*time.Second, func(m float64) float64 { return 100 + 2*m })
	cases := []struct {
		name    string
		samples []Sample
		now     time.Duration
		window  time.Duration
		lead    time.Duration
		want    Value
	}{
		{"a line continues", line, 30 * time.Minute, 30 * time.Minute, 15 * time.Minute, Value{Demand: 100 + 2*45, Known: true}},
		{"no lead is the fitted value now", line, 30 * time.Minute, 10 * time.Minute, 0, Value{Demand: 160, Known: true}},
		{"only the window counts", append(series(10*time.Minute, time.Minute, func(float64) float64 { return 1000 }),
			series(time.Hour, time.Minute, func(m float64) float64 { return 50 })[20:]...), time.Hour, 20 * time.Minute, time.Hour, Value{Demand: 50, Known: true}},
		{"falling demand forecasts below zero, for the guard to reject", series(time.Hour, time.Minute, func(m float64) float64 { return 60 - m }), time.Hour, time.Hour, time.Hour, Value{Demand: -60, Known: true}},
		{"a ramp that stopped: the line stops with it", series(time.Hour, time.Minute, func(m float64) float64 { return 100 + 2*min(m, 40) }),
			time.Hour, 30 * time.Minute, 15 * time.Minute, Value{Demand: 180, Known: true}},
		{"one sample is no trend", line[:1], 0, time.Hour, time.Minute, Value{}},
		{"no samples in the window", line, 2 * time.Hour, 30 * time.Minute, time.Minute, Value{}},
		{"no samples at all", nil, 0, time.Hour, time.Minute, Value{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Trend(c.samples, t0.Add(c.now), c.window, c.lead)
			assert.Equal(t, c.want.Known, got.Known)
			assert.InDelta(t, c.want.Demand, got.Demand, 1e-6)
		})
	}
}

// Where the window's line rises faster than its last quarter's (the top of a ramp), the
// trend is capped; elsewhere it is the window's line, the least-squares line
// predict_linear draws.
func TestTrendCapsOnlyARiseTheLastQuarterDoesNotShow(t *testing.T) {
	now, window, lead := t0.Add(time.Hour), 40*time.Minute, 10*time.Minute
	plain := func(samples []Sample) Value { return line(between(samples, now.Add(-window), now), now, lead) }

	speedsUp := series(time.Hour, time.Minute, func(m float64) float64 { return 100 + 2*max(0, m-40) })
	got := Trend(speedsUp, now, window, lead)
	assert.Equal(t, plain(speedsUp), got, "a ramp that speeds up: the window's line")
	assert.Less(t, got.Demand, line(between(speedsUp, now.Add(-window/4), now), now, lead).Demand, "below the last quarter's")

	// Samples every 10 minutes, the last alone in the window's last quarter.
	sparse := append(series(40*time.Minute, 10*time.Minute, func(m float64) float64 { return 100 + m }), Sample{At: now, Value: 100})
	got = Trend(sparse, now, window, lead)
	assert.Equal(t, plain(sparse), got, "one sample in the last quarter: the window's line alone")
	assert.True(t, got.Known)
}

func TestSeasonal(t *testing.T) {
	day := 24 * time.Hour
	// A day of 100 with a peak of 300 at 10:00-10:10, then a second day twice as high.
	wave := series(2*day, time.Minute, func(m float64) float64 {
		v := 100.0
		if mod := math.Mod(m, 24*60); mod >= 600 && mod < 610 {
			v = 300
		}
		if m >= 24*60 {
			v *= 2
		}
		return v
	})
	cases := []struct {
		name    string
		samples []Sample
		now     time.Duration
		lead    time.Duration
		want    Value
	}{
		{"the peak of the lead time a day ago", wave, day + 9*time.Hour + 50*time.Minute, 15 * time.Minute, Value{Demand: 300, Known: true}},
		{"a peak after the lead time is not seen yet", wave, day + 9*time.Hour + 40*time.Minute, 15 * time.Minute, Value{Demand: 100, Known: true}},
		{"not scaled by the day's growth", wave, 2*day - time.Hour, 15 * time.Minute, Value{Demand: 100, Known: true}},
		{"nothing a period ago: no forecast", wave, 9 * time.Hour, 15 * time.Minute, Value{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Seasonal(c.samples, t0.Add(c.now), day, c.lead)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestMax(t *testing.T) {
	assert.Equal(t, Value{}, Max())
	assert.Equal(t, Value{}, Max(Value{}, Value{}))
	assert.Equal(t, Value{Demand: 5, Known: true}, Max(Value{}, Value{Demand: 5, Known: true}, Value{Demand: 3, Known: true}))
	nan := Max(Value{Demand: 5, Known: true}, Value{Demand: math.NaN(), Known: true}, Value{Demand: 7, Known: true})
	assert.True(t, nan.Known && math.IsNaN(nan.Demand), "a forecast that is not a number is not hidden by another")
}

// The default window follows the start of a ramp: the benchmark's working day, 700 shoots
// more over two hours along a smoothstep from a night of 300, seen 20 minutes into the
// ramp and forecast 20 minutes ahead.
func TestDefaultTrendWindowFollowsTheStartOfARamp(t *testing.T) {
	ramp := func(m float64) float64 {
		x := min(1, max(0, (m-60)/120))
		return 300 + 700*x*x*(3-2*x)
	}
	samples := series(80*time.Minute, 15*time.Second, ramp)
	now, lead := t0.Add(80*time.Minute), 20*time.Minute
	actual := ramp(100)

	cases := []struct {
		name   string
		window time.Duration
		// short is how many shoots the forecast may fall short of the demand at most.
		short float64
	}{
		{"the default window", DefaultTrendWindow, 60},
		{"half an hour lags by more than a seed's worth", 30 * time.Minute, 1e9},
	}
	var shortfalls []float64
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Trend(samples, now, c.window, lead)
			assert.True(t, v.Known)
			assert.LessOrEqual(t, actual-v.Demand, c.short, "forecast %.0f for %.0f", v.Demand, actual)
			assert.LessOrEqual(t, v.Demand, actual, "the start of a ramp accelerates: a line never overshoots it")
			shortfalls = append(shortfalls, actual-v.Demand)
		})
	}
	assert.Greater(t, shortfalls[1]-shortfalls[0], 50.0, "the longer window falls short by more than a seed of 50")
}
