package autoscaling

import (
	"fmt"
	"math"
	"strings"
)

// Span is a part of the week that seed-hours over the oracle are told apart by.
type Span string

// The spans of ExcessBySpan: the first day, the spike and the hour after it, and the
// rest of the week by the working day's phases (workday).
const (
	SpanMonday   Span = "Monday"
	SpanSpike    Span = "spike"
	SpanNight    Span = "night 20:00–07:30"
	SpanRamp     Span = "ramp 07:30–09:30"
	SpanRampEnd  Span = "ramp end 09:30–11:30"
	SpanDay      Span = "day 11:30–17:00"
	SpanRampDown Span = "ramp-down 17:00–20:00"
)

// Spans are the spans in the order of the report.
var Spans = []Span{SpanMonday, SpanSpike, SpanNight, SpanRamp, SpanRampEnd, SpanDay, SpanRampDown}

// spikeAfter is how long after the spike its seeds still count to it: the scale-in's
// stabilization and the seeds emptying.
const spikeAfter = 60

// ExcessBySpan adds up a timeline's seed-hours over the oracle (the seeds that hold each
// minute's demand, allocatablePerSeed each) by span: the first day; the trace's spike and
// the hour after it; the other days by the phase of the working day. A minute with fewer
// seeds than the oracle (shoots waiting) counts below 0.
func ExcessBySpan(tr Trace, timeline []Point, allocatablePerSeed int) map[Span]float64 {
	out := make(map[Span]float64, len(Spans))
	for _, p := range timeline {
		oracle := math.Ceil(float64(p.Demand) / float64(allocatablePerSeed))
		out[spanOf(tr, p.Minute)] += (float64(p.Seeds) - oracle) / 60
	}
	return out
}

// spanOf is the span a minute of the trace belongs to.
func spanOf(tr Trace, minute int) Span {
	if tr.SpikeTo > tr.SpikeFrom && minute >= tr.SpikeFrom && minute < tr.SpikeTo+spikeAfter {
		return SpanSpike
	}
	if minute < 24*60 {
		return SpanMonday
	}
	hour := float64(minute%(24*60)) / 60
	switch {
	case hour < 7.5 || hour >= 20:
		return SpanNight
	case hour < 9.5:
		return SpanRamp
	case hour < 11.5:
		return SpanRampEnd
	case hour < 17:
		return SpanDay
	}
	return SpanRampDown
}

// ExcessMarkdown renders each headline's seed-hours over the oracle by span.
func ExcessMarkdown(tr Trace, allocatablePerSeed int, headlines []Headline) string {
	var b strings.Builder
	b.WriteString("| policy | target | over oracle |")
	for _, s := range Spans {
		fmt.Fprintf(&b, " %s |", s)
	}
	b.WriteString("\n| --- | --- | --- |" + strings.Repeat(" --- |", len(Spans)) + "\n")
	for _, h := range headlines {
		by := ExcessBySpan(tr, h.Run.Timeline, allocatablePerSeed)
		fmt.Fprintf(&b, "| %s | %d%% | %.1f |", h.Policy, h.Run.TargetPercent, h.Run.SeedHoursOverOracle())
		for _, s := range Spans {
			fmt.Fprintf(&b, " %.1f |", by[s])
		}
		b.WriteString("\n")
	}
	return b.String()
}
