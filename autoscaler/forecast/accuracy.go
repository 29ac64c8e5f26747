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
	errRel, ok := a.Error(predicted, actual)
	if !ok {
		return s, s.reason(), "nothing to judge the forecast by"
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

// Error is the relative error of the forecast made a lead time ago for now (predicted)
// against the demand now (actual): |predicted − actual| / max(actual, Floor), +Inf for a
// forecast that is not a number. It is false without a forecast or a finite demand, when
// there is nothing to judge.
func (a Accuracy) Error(predicted Value, actual float64) (float64, bool) {
	if !predicted.Known || math.IsNaN(actual) || math.IsInf(actual, 0) {
		return 0, false
	}
	errRel := math.Abs(predicted.Demand-actual) / max(actual, a.Floor, math.SmallestNonzeroFloat64)
	if math.IsNaN(errRel) {
		return math.Inf(1), true
	}
	return errRel, true
}

// MaxErrorPercent caps one judgement's error in the mean absolute percentage error: a
// forecast a hundred times the demand counts as ten times, so that one wild miss (or one
// that is not a number) shows without drowning how the forecast did otherwise.
const MaxErrorPercent = 1000

// errorBuckets is how many spans of the window the errors are summed in: the mean forgets
// old errors in steps of a twelfth of the window.
const errorBuckets = 12

// ErrorBucket sums the errors judged in a twelfth of the accuracy window from Start.
type ErrorBucket struct {
	Start time.Time
	// Count is how many errors were judged.
	Count int32
	// PercentSum is their sum in whole percent, each at most MaxErrorPercent.
	PercentSum int64
}

// MaxErrorBuckets is the most buckets RecordError keeps: the window's twelve, and the one
// partly out of it.
const MaxErrorBuckets = errorBuckets + 1

// RecordError adds an error judged at now (Error) to the buckets, oldest first, and drops
// the buckets that ended a Window or more before now, keeping at most MaxErrorBuckets (a
// window that grew leaves the narrower buckets of the old one). Whole percent are precise
// enough for a mean an operator reads, and keep the buckets small in status.
func (a Accuracy) RecordError(buckets []ErrorBucket, now time.Time, errRel float64) []ErrorBucket {
	buckets = a.InWindow(buckets, now)
	percent := int64(math.Round(100 * min(errRel, MaxErrorPercent/100.0)))
	if n := len(buckets); n > 0 && now.Before(buckets[n-1].Start.Add(a.span())) {
		buckets[n-1].Count++
		buckets[n-1].PercentSum += percent
		return buckets
	}
	buckets = append(buckets, ErrorBucket{Start: now, Count: 1, PercentSum: percent})
	return buckets[max(0, len(buckets)-MaxErrorBuckets):]
}

// MeanError is the mean absolute percentage error of the errors judged over the Window
// before now, as a ratio (0.12 for 12%), and how many it is the mean of; 0 and 0 without
// any. A bucket counts while any of it is within the window.
func (a Accuracy) MeanError(buckets []ErrorBucket, now time.Time) (float64, int32) {
	var count int32
	var sum int64
	for _, b := range a.InWindow(buckets, now) {
		count += b.Count
		sum += b.PercentSum
	}
	if count == 0 {
		return 0, 0
	}
	return float64(sum) / float64(count) / 100, count
}

// InWindow returns the buckets that end after now − Window, in a new slice.
func (a Accuracy) InWindow(buckets []ErrorBucket, now time.Time) []ErrorBucket {
	from := now.Add(-a.Window)
	out := make([]ErrorBucket, 0, len(buckets)+1)
	for _, b := range buckets {
		if b.Start.Add(a.span()).After(from) {
			out = append(out, b)
		}
	}
	return out
}

// span is the length of one bucket: a twelfth of the window, at least a second.
func (a Accuracy) span() time.Duration {
	return max(a.Window/errorBuckets, time.Second)
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
