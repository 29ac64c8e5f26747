package recommend

import (
	"math"
	"slices"
	"time"

	"github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
)

// DefaultScaleUp is autoscaling/v2's scale-up default: no stabilization, at most 4 replicas
// or 100% per 15 s, whichever is more.
func DefaultScaleUp() Rules {
	return Rules{
		SelectPolicy: SelectMax,
		Policies: []Policy{
			{Type: PolicyReplicas, Value: 4, Period: 15 * time.Second},
			{Type: PolicyPercent, Value: 100, Period: 15 * time.Second},
		},
		Tolerance: DefaultTolerance,
	}
}

// DefaultScaleDown is autoscaling/v2's scale-down default: 300 s stabilization, at most
// 100% per 15 s.
func DefaultScaleDown() Rules {
	return Rules{
		StabilizationWindow: 300 * time.Second,
		SelectPolicy:        SelectMax,
		Policies:            []Policy{{Type: PolicyPercent, Value: 100, Period: 15 * time.Second}},
		Tolerance:           DefaultTolerance,
	}
}

// BehaviorFromSpec fills the defaults of autoscaling/v2 into a SeedAutoscaler's behavior,
// field by field as HPA does: a direction that sets only its window keeps the default
// policies.
func BehaviorFromSpec(b *v1alpha1.SeedAutoscalerBehavior) Behavior {
	out := Behavior{ScaleUp: DefaultScaleUp(), ScaleDown: DefaultScaleDown()}
	if b == nil {
		return out
	}
	out.ScaleUp = rulesFromSpec(b.ScaleUp, out.ScaleUp)
	out.ScaleDown = rulesFromSpec(b.ScaleDown, out.ScaleDown)
	return out
}

func rulesFromSpec(r *v1alpha1.ScalingRules, def Rules) Rules {
	if r == nil {
		return def
	}
	if r.StabilizationWindowSeconds != nil {
		def.StabilizationWindow = time.Duration(*r.StabilizationWindowSeconds) * time.Second
	}
	if r.SelectPolicy != nil {
		def.SelectPolicy = SelectPolicy(*r.SelectPolicy)
	}
	if len(r.Policies) > 0 {
		def.Policies = make([]Policy, 0, len(r.Policies))
		for _, p := range r.Policies {
			def.Policies = append(def.Policies, Policy{
				Type: PolicyType(p.Type), Value: p.Value, Period: time.Duration(p.PeriodSeconds) * time.Second,
			})
		}
	}
	if r.Tolerance != nil {
		def.Tolerance = r.Tolerance.AsApproximateFloat64()
	}
	return def
}

// Tolerances returns the per-direction tolerances.
func (b Behavior) Tolerances() Tolerances {
	return Tolerances{Up: b.ScaleUp.Tolerance, Down: b.ScaleDown.Tolerance}
}

// longestPeriod is how long scale events matter to the policies.
func (b Behavior) longestPeriod() time.Duration {
	var longest time.Duration
	for _, r := range []Rules{b.ScaleUp, b.ScaleDown} {
		for _, p := range r.Policies {
			longest = max(longest, p.Period)
		}
	}
	return longest
}

// Stabilize records the recommendation and returns the most conservative one of the
// windows: the lowest of the scale-up window when above current, the highest of the
// scale-down window when below. The returned history keeps, per distinct replica count,
// only its latest recommendation within the longer window — an earlier equal one can
// never be the only extreme — so it stays small however often the autoscaler reconciles.
func Stabilize(now time.Time, current, recommended int32, b Behavior, history []Recommendation) (int32, []Recommendation) {
	up, down := recommended, recommended
	upFrom, downFrom := now.Add(-b.ScaleUp.StabilizationWindow), now.Add(-b.ScaleDown.StabilizationWindow)
	for _, r := range history {
		if r.At.After(upFrom) {
			up = min(up, r.Replicas)
		}
		if r.At.After(downFrom) {
			down = max(down, r.Replicas)
		}
	}
	stabilized := current
	if stabilized < up {
		stabilized = up
	}
	if stabilized > down {
		stabilized = down
	}
	return stabilized, recordRecommendation(now, recommended, max(b.ScaleUp.StabilizationWindow, b.ScaleDown.StabilizationWindow), history)
}

// maxRecommendations bounds status.recommendations (its MaxItems).
const maxRecommendations = 512

func recordRecommendation(now time.Time, recommended int32, window time.Duration, history []Recommendation) []Recommendation {
	from := now.Add(-window)
	out := make([]Recommendation, 0, len(history)+1)
	for _, r := range history {
		if r.At.After(from) && r.Replicas != recommended {
			out = append(out, r)
		}
	}
	out = append(out, Recommendation{At: now, Replicas: recommended})
	slices.SortStableFunc(out, func(a, b Recommendation) int { return a.At.Compare(b.At) })
	if len(out) > maxRecommendations {
		out = out[len(out)-maxRecommendations:]
	}
	return out
}

// changeInPeriod is the net change of replicas over the period before now.
func changeInPeriod(now time.Time, period time.Duration, events []ScaleEvent) int32 {
	from := now.Add(-period)
	var change int32
	for _, e := range events {
		if e.At.After(from) {
			change += e.Change
		}
	}
	return change
}

// ScaleUpLimit is the most replicas the scale-up policies allow now. Each policy is
// measured from the replicas at the start of its period (current minus the net change
// within it). From zero the limit is at least 1, so a Percent-only policy can start a set.
func ScaleUpLimit(now time.Time, current int32, events []ScaleEvent, r Rules) int32 {
	if r.SelectPolicy == SelectDisabled {
		return current
	}
	limit := policyLimit(now, current, events, r, true)
	if current == 0 {
		limit = max(limit, 1)
	}
	return limit
}

// ScaleDownLimit is the fewest replicas the scale-down policies allow now.
func ScaleDownLimit(now time.Time, current int32, events []ScaleEvent, r Rules) int32 {
	if r.SelectPolicy == SelectDisabled {
		return current
	}
	return policyLimit(now, current, events, r, false)
}

// policyLimit is the bound the policies put on scaling up (or down) now: each policy
// proposes one from the replicas at the start of its period, and SelectPolicy picks the
// loosest (Max: the one allowing the most change) or the tightest (Min). Without
// policies there is no bound.
func policyLimit(now time.Time, current int32, events []ScaleEvent, r Rules, up bool) int32 {
	if len(r.Policies) == 0 {
		if up {
			return math.MaxInt32
		}
		return 0
	}
	var limit int32
	for i, p := range r.Policies {
		proposed := proposeLimit(current-changeInPeriod(now, p.Period, events), p, up)
		looser := (proposed > limit) == up
		if i == 0 || looser == (r.SelectPolicy != SelectMin) {
			limit = proposed
		}
	}
	return limit
}

// proposeLimit is the bound one policy allows from start; a Percent bound rounds
// away from start (up) or toward zero (down).
func proposeLimit(start int32, p Policy, up bool) int32 {
	switch {
	case p.Type == PolicyReplicas && up:
		return start + p.Value
	case p.Type == PolicyReplicas:
		return start - p.Value
	case up:
		return int32(math.Ceil(float64(start) * (1 + float64(p.Value)/100)))
	default:
		return int32(float64(start) * (1 - float64(p.Value)/100))
	}
}

// RecordScaleEvent appends a change of replicas to the history and drops the events no
// policy looks at any more.
func RecordScaleEvent(now time.Time, change int32, b Behavior, events []ScaleEvent) []ScaleEvent {
	from := now.Add(-b.longestPeriod())
	out := make([]ScaleEvent, 0, len(events)+1)
	for _, e := range events {
		if e.At.After(from) {
			out = append(out, e)
		}
	}
	out = append(out, ScaleEvent{At: now, Change: change})
	if len(out) > maxRecommendations {
		out = out[len(out)-maxRecommendations:]
	}
	return out
}
