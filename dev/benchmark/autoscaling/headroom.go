package autoscaling

import (
	"fmt"
	"strings"
)

// Headrooms are the spec.headroom.shoots the working-day week compares with the reactive
// policy without one: half a seed and a seed of the benchmark's seeds of 50, and the size
// of the week's spike.
var Headrooms = []int{25, 50, 200}

// HeadroomArm is the reactive policy with a headroom of free shoot slots, at every target.
type HeadroomArm struct {
	Headroom int
	Results  []Result
}

// RunHeadroom runs the reactive policy at every target once per headroom.
func RunHeadroom(cfg Config, headrooms []int, workers int) ([]HeadroomArm, error) {
	arms := make([]HeadroomArm, 0, len(headrooms))
	for _, h := range headrooms {
		c := cfg
		c.Headroom = h
		results, err := RunAll(c, []Policy{PolicyReactive}, Targets(), workers)
		if err != nil {
			return nil, fmt.Errorf("headroom %d: %w", h, err)
		}
		arms = append(arms, HeadroomArm{Headroom: h, Results: results})
	}
	return arms, nil
}

// HeadroomMarkdown compares each headroom arm with the reactive policy without headroom
// (reactive: its run at every target, in the order of Targets): first each arm's headline,
// then every target, with the waits of the shoots created during the trace's spike.
func HeadroomMarkdown(reactive []Result, arms []HeadroomArm) string {
	all := append([]HeadroomArm{{Headroom: 0, Results: reactive}}, arms...)
	base, baseMet := headlineOf(reactive, PolicyReactive)
	var b strings.Builder
	b.WriteString("| headroom | target | seed-hours | vs reactive | p50 / p99 wait | spike p99 / max wait | scale events |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, arm := range all {
		h, ok := headlineOf(arm.Results, PolicyReactive)
		if !ok {
			continue
		}
		r := h.Run
		target, vs := fmt.Sprintf("%d%%", r.TargetPercent), "—"
		if !h.Met {
			target += fmt.Sprintf(" (none meets p99 ≤ %s)", ServiceLevel)
		} else if baseMet && base.Met {
			vs = fmt.Sprintf("%+.1f%%", 100*(r.SeedHours/base.Run.SeedHours-1))
		}
		fmt.Fprintf(&b, "| %d | %s | %.1f | %s | %s / %s | %s | %d |\n", arm.Headroom, target, r.SeedHours, vs,
			seconds(r.P50Bind), seconds(r.P99Bind), spikeWaits(r), r.ScaleEvents)
	}
	b.WriteString("\nAt each target: seed-hours (against no headroom), p99 wait, and the spike's p99 / max wait.\n\n")
	b.WriteString("| target |")
	for _, arm := range all {
		fmt.Fprintf(&b, " headroom %d |", arm.Headroom)
	}
	b.WriteString("\n| --- |" + strings.Repeat(" --- |", len(all)) + "\n")
	for i, r0 := range reactive {
		fmt.Fprintf(&b, "| %d%% |", r0.TargetPercent)
		for _, arm := range all {
			if i >= len(arm.Results) {
				b.WriteString(" — |")
				continue
			}
			r := arm.Results[i]
			fmt.Fprintf(&b, " %.1f (%+.1f%%); %s; %s |", r.SeedHours, 100*(r.SeedHours/r0.SeedHours-1), seconds(r.P99Bind), spikeWaits(r))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// spikeWaits is the p99 and the longest wait of the shoots created during the spike.
func spikeWaits(r Result) string {
	if r.SpikeShoots == 0 {
		return "—"
	}
	return seconds(r.SpikeP99Bind) + " / " + seconds(r.SpikeMaxBind)
}
