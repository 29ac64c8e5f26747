package forecast

import (
	"fmt"
	"math"
	"time"
)

// Accuracy switches a forecast off when it has been wrong for too long: a forecast is off
// target when it differs from the demand it predicted by more than Threshold (relative),
// and one that stays off target for Window turns itself off. It keeps being judged while
// off, and turns back on once it has been on target for Window again. The reactive
// decision goes on throughout, so a forecast that is switched off costs the head start,
// nothing else.
type Accuracy struct {
	// Threshold is the relative error beyond which a forecast is off target:
	// |forecast − actual| / max(actual, Floor). 0.5 means 50%.
	Threshold float64
	// Window is how long a forecast may be off target before it turns off, and how long
	// it must be on target again before it turns back on.
	Window time.Duration
	// Floor keeps the relative error of a small demand meaningful: a forecast of 3 shoots
	// for 1 is not 200% off when a seed holds 50. One seed at the target is a fair floor.
	Floor float64
}

// AccuracyState is what Accuracy remembers between observations.
type AccuracyState struct {
	// Off is true while the forecast is switched off.
	Off bool
	// Since is when the current streak began: off target while on, on target while off;
	// zero without one.
	Since time.Time
}

// Observe judges the forecast made a lead time ago for now (predicted) against the demand
// now (actual) and returns the new state and why. Without a forecast to judge, or without
// a finite actual demand, the state stays.
func (a Accuracy) Observe(s AccuracyState, now time.Time, predicted Value, actual float64) (AccuracyState, Reason, string) {
	if !predicted.Known || math.IsNaN(actual) || math.IsInf(actual, 0) {
		return s, s.reason(), "nothing to judge the forecast by"
	}
	errRel := math.Abs(predicted.Demand-actual) / max(actual, a.Floor, math.SmallestNonzeroFloat64)
	if math.IsNaN(errRel) {
		errRel = math.Inf(1)
	}
	onTarget := errRel <= a.Threshold
	// A streak is what would change the state: off target while on, on target while off.
	if onTarget == s.Off {
		if s.Since.IsZero() {
			s.Since = now
		}
		if now.Sub(s.Since) >= a.Window {
			s = AccuracyState{Off: !s.Off}
		}
	} else {
		s.Since = time.Time{}
	}
	switch {
	case s.Off && s.Since.IsZero():
		return s, ReasonInaccurate, fmt.Sprintf("the forecast is %.0f%% off the demand (threshold %.0f%%) and switched off until it is on target for %s",
			100*errRel, 100*a.Threshold, a.Window)
	case s.Off:
		return s, ReasonInaccurate, fmt.Sprintf("the forecast is on target again since %s and comes back on after %s",
			s.Since.UTC().Format(time.RFC3339), a.Window)
	case !s.Since.IsZero():
		return s, ReasonDeviating, fmt.Sprintf("the forecast is %.0f%% off the demand (threshold %.0f%%) since %s; it switches off after %s",
			100*errRel, 100*a.Threshold, s.Since.UTC().Format(time.RFC3339), a.Window)
	default:
		return s, ReasonAccurate, fmt.Sprintf("the forecast is %.0f%% off the demand (threshold %.0f%%)", 100*errRel, 100*a.Threshold)
	}
}

func (s AccuracyState) reason() Reason {
	switch {
	case s.Off:
		return ReasonInaccurate
	case !s.Since.IsZero():
		return ReasonDeviating
	default:
		return ReasonAccurate
	}
}
