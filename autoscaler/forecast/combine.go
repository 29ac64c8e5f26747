package forecast

import (
	"fmt"
	"math"
	"time"

	"github.com/seedscaler/seedscaler/autoscaler/recommend"
)

// Reason says what became of a forecast in a decision, or why a forecast is not used.
type Reason string

// What became of a forecast in a decision.
const (
	// ReasonScaledOutAhead means the forecast asked for more replicas than the reactive
	// decision and got them.
	ReasonScaledOutAhead Reason = "ScaledOutAhead"
	// ReasonHeldScaleIn means the reactive decision scales in, and the forecast keeps the
	// replicas the demand of the lead time needs.
	ReasonHeldScaleIn Reason = "HeldScaleIn"
	// ReasonReactiveWins means the forecast asks for no more than the reactive decision.
	ReasonReactiveWins Reason = "ReactiveWins"
)

// Why a forecast is rejected, so that the reactive decision stands.
const (
	ReasonMissing    Reason = "ForecastMissing"
	ReasonNotFinite  Reason = "ForecastNotFinite"
	ReasonNegative   Reason = "ForecastNegative"
	ReasonAbsurd     Reason = "ForecastAbsurd"
	ReasonNoSeedSize Reason = "SeedSizeUnknown"
)

// Accuracy states (Accuracy.Observe): the forecast is used while Accurate or Deviating,
// not while Inaccurate.
const (
	ReasonAccurate   Reason = "ForecastAccurate"
	ReasonDeviating  Reason = "ForecastDeviating"
	ReasonInaccurate Reason = "ForecastInaccurate"
)

// MaxRatio bounds a believable forecast: one above MaxRatio times the current demand is
// absurd. The current demand counts as at least one seed at the target, so that a set
// that is nearly empty may still forecast a seed or a few.
const MaxRatio = 10

// Check says why a forecast cannot be used, or "" when it can: none, not a number or
// infinite, negative, or more than MaxRatio times the demand now (at least one seed at the
// target, perSeedAtTarget).
func Check(f Value, demand, perSeedAtTarget float64) (Reason, string) {
	switch {
	case !f.Known:
		return ReasonMissing, "no forecast is available"
	case math.IsNaN(f.Demand) || math.IsInf(f.Demand, 0):
		return ReasonNotFinite, fmt.Sprintf("the forecast is %v", f.Demand)
	case f.Demand < 0:
		return ReasonNegative, fmt.Sprintf("the forecast is negative (%g shoots)", f.Demand)
	}
	reference := demand
	if math.IsNaN(reference) || reference < perSeedAtTarget {
		reference = perSeedAtTarget
	}
	if f.Demand > MaxRatio*reference {
		return ReasonAbsurd, fmt.Sprintf("the forecast of %g shoots is more than %d times the demand now (%g, at least one seed at the target)",
			f.Demand, MaxRatio, reference)
	}
	return "", ""
}

// Input is what the combination of a forecast with a reactive decision depends on.
type Input struct {
	// Now is the time of the decision.
	Now time.Time
	// CurrentReplicas and MaxReplicas as for recommend.Decide. MinReplicas needs no
	// place here: the result is never below the reactive decision, which respects it.
	CurrentReplicas, MaxReplicas int32
	// Behavior and ScaleEvents bound the forecast's change as they bound the reactive one.
	Behavior    recommend.Behavior
	ScaleEvents []recommend.ScaleEvent
	// Reactive is the reactive decision's desired replicas (recommend.Decide).
	Reactive int32
	// Demand is the demand now: shoots in use plus pending.
	Demand float64
	// Forecast is the demand forecast at the lead time.
	Forecast Value
	// PerSeedAtTarget is how many shoots one new seed holds at the target.
	PerSeedAtTarget float64
	// Disabled is true while the accuracy check holds the forecast off (Accuracy.Observe).
	Disabled bool
	// History is the forecast's own recommendations, for the stabilization windows.
	History []recommend.Recommendation
}

// Result is the combined decision.
type Result struct {
	// Desired is the replicas to scale to: never below Input.Reactive, never above
	// MaxReplicas.
	Desired int32
	// Forecast is the replicas the forecast asked for after stabilization and the scale-up
	// policies; -1 when it was not used.
	Forecast int32
	Reason   Reason
	Message  string
	// History replaces Input.History.
	History []recommend.Recommendation
}

// Combine folds a forecast into the reactive decision. For a scale-out the larger of the
// two wins; when the reactive decision scales in, the forecast holds the replicas that its
// demand needs within the lead time, so that a scale-in is not undone by the next wave.
// The forecast only ever adds replicas, so a forecast that is missing, not a number,
// negative or absurd (Check), or switched off for inaccuracy, leaves the reactive decision
// as it is. The forecast's replicas pass through the same stabilization windows
// (recommend.Stabilize, over its own history) and scale-up policies (recommend.ScaleUpLimit)
// as the reactive ones, and never exceed MaxReplicas. A held scale-in lands between the
// reactive decision and the current replicas, a smaller step than one the scale-down
// policies (recommend.ScaleDownLimit) already allowed.
func Combine(in Input) Result {
	res := Result{Desired: in.Reactive, Forecast: -1, History: in.History}
	if in.Disabled {
		res.Reason, res.Message = ReasonInaccurate, "the forecast is switched off until it is accurate again"
		return res
	}
	if in.PerSeedAtTarget <= 0 || math.IsNaN(in.PerSeedAtTarget) || math.IsInf(in.PerSeedAtTarget, 0) {
		res.Reason, res.Message = ReasonNoSeedSize, "the shoots a new seed holds at the target are unknown"
		return res
	}
	if reason, message := Check(in.Forecast, in.Demand, in.PerSeedAtTarget); reason != "" {
		res.Reason, res.Message = reason, message+"; the reactive decision stands"
		return res
	}

	current := in.CurrentReplicas
	want := int32(min(math.Ceil(in.Forecast.Demand/in.PerSeedAtTarget-1e-9), float64(in.MaxReplicas)))
	want = max(want, 0)
	stabilized, history := recommend.Stabilize(in.Now, current, want, in.Behavior, in.History)
	res.History = history
	if stabilized > current {
		stabilized = min(stabilized, max(recommend.ScaleUpLimit(in.Now, current, in.ScaleEvents, in.Behavior.ScaleUp), current))
	}
	stabilized = min(stabilized, in.MaxReplicas)
	res.Forecast = stabilized

	switch {
	case stabilized <= in.Reactive:
		res.Reason = ReasonReactiveWins
		res.Message = fmt.Sprintf("the forecast of %.0f shoots needs %d replicas, the reactive decision %d", in.Forecast.Demand, stabilized, in.Reactive)
	case stabilized > current:
		res.Desired, res.Reason = stabilized, ReasonScaledOutAhead
		res.Message = fmt.Sprintf("the forecast of %.0f shoots needs %d replicas ahead of the demand, the reactive decision %d", in.Forecast.Demand, stabilized, in.Reactive)
	default:
		res.Desired, res.Reason = stabilized, ReasonHeldScaleIn
		res.Message = fmt.Sprintf("the forecast of %.0f shoots needs %d replicas within the lead time, so the scale-in to %d stops there", in.Forecast.Demand, stabilized, in.Reactive)
	}
	return res
}
