package autoscaling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSpanOf(t *testing.T) {
	tr := Trace{SpikeFrom: 3*24*60 + 10*60 + 30, SpikeTo: 3*24*60 + 12*60 + 30}
	at := func(day int, hour, minute int) int { return day*24*60 + hour*60 + minute }
	cases := []struct {
		name   string
		minute int
		want   Span
	}{
		{"Monday's ramp is Monday's", at(0, 8, 0), SpanMonday},
		{"Tuesday after midnight", at(1, 0, 0), SpanNight},
		{"the ramp starts at 07:30", at(1, 7, 30), SpanRamp},
		{"its end at 09:30", at(1, 9, 30), SpanRampEnd},
		{"the day at 11:30", at(2, 11, 30), SpanDay},
		{"the ramp-down at 17:00", at(2, 17, 0), SpanRampDown},
		{"the night from 20:00", at(2, 20, 0), SpanNight},
		{"the spike", at(3, 10, 30), SpanSpike},
		{"an hour after it ends", at(3, 13, 29), SpanSpike},
		{"and then the day again", at(3, 13, 30), SpanDay},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, spanOf(tr, c.minute))
		})
	}
	assert.Equal(t, SpanRampEnd, spanOf(Trace{}, at(3, 10, 30)), "a trace without a spike has none")
}

func TestExcessBySpan(t *testing.T) {
	day := 24 * 60
	timeline := []Point{
		{Minute: 60, Demand: 100, Seeds: 4},            // Monday: 2 seeds over for a minute
		{Minute: day + 8*60, Demand: 101, Seeds: 3},    // Tuesday's ramp: at the oracle
		{Minute: day + 12*60, Demand: 100, Seeds: 1},   // the day: a seed short
		{Minute: day + 12*60 + 1, Demand: 0, Seeds: 3}, // and 3 over
	}
	by := ExcessBySpan(Trace{}, timeline, 50)
	require.Len(t, by, 3)
	assert.InDelta(t, 2.0/60, by[SpanMonday], 1e-9)
	assert.Zero(t, by[SpanRamp])
	assert.InDelta(t, 2.0/60, by[SpanDay], 1e-9, "the short minute counts below 0")

	var sum float64
	res, err := Run(DefaultConfig(BuiltinTrace(1)), PolicyReactive, 75)
	require.NoError(t, err)
	for _, v := range ExcessBySpan(BuiltinTrace(1), res.Timeline, 50) {
		sum += v
	}
	assert.InDelta(t, res.SeedHoursOverOracle(), sum, 0.02*res.SeedHoursOverOracle(), "the spans add up to the run's seed-hours over the oracle, minute by minute")
}
