package recommend

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
)

// Decide computes the replicas of the target from the metrics, the pending demand, the
// behavior and the history, in HPA's order: the largest metric proposal, never a scale-in
// while a metric or the pending demand cannot be read, stabilization, the rate policies and
// min/max — and then, beyond HPA, the limit of what the set can remove.
func Decide(in Input) Decision {
	d := Decision{
		DesiredReplicas: in.CurrentReplicas,
		Recommendations: in.Recommendations,
		MetricFailures:  map[string]MetricFailure{},
		AbleToScale:     controllerutils.True(ReasonReadyForNewScale, "the recommended size matches the current size"),
		ScalingActive:   controllerutils.True(ReasonValidMetricFound, "the replica count is calculated from the metrics"),
		ScalingLimited:  controllerutils.False(ReasonDesiredWithinRange, "the desired replica count is within the acceptable range"),
	}
	current := in.CurrentReplicas

	proposal, reason, complete := proposeFromMetrics(in, &d)

	if current == 0 && in.MinReplicas > 0 && !in.ScaledToZero {
		// A human scaled the target to zero: leave it there, as HPA does.
		d.ScalingActive = controllerutils.False(ReasonScalingDisabled,
			fmt.Sprintf("scaling is disabled since the target was scaled to zero by someone else and minReplicas is %d; scale it to at least 1 or set minReplicas to 0", in.MinReplicas))
		d.Reason = "scaling is disabled"
		return d
	}

	switch {
	case current > in.MaxReplicas:
		d.DesiredReplicas = in.MaxReplicas
		d.Reason = fmt.Sprintf("the current replicas are above maxReplicas %d", in.MaxReplicas)
		d.ScalingLimited = controllerutils.True(ReasonTooManyReplicas, "the replica count is more than the maximum replica count")
	case current < in.MinReplicas:
		d.DesiredReplicas = in.MinReplicas
		d.Reason = fmt.Sprintf("the current replicas are below minReplicas %d", in.MinReplicas)
		d.ScalingLimited = controllerutils.True(ReasonTooFewReplicas, "the replica count is less than the minimum replica count")
	case proposal < 0:
		// Nothing is known: hold, and record nothing the windows could act on later.
		d.Reason = "no metric could be evaluated"
		return d
	default:
		if !complete && proposal < current {
			proposal = current
			reason += "; no scale-in while metrics are incomplete"
		}
		d.Reason = reason
		d.DesiredReplicas = normalize(in, proposal, &d)
	}
	limitByRemovable(in, &d)
	return d
}

// Hold is the decision when nothing can be observed: the replicas stay, no metric is known,
// nothing is recorded for the windows, and active says why.
func Hold(in Input, active controllerutils.Outcome) Decision {
	d := Decision{
		DesiredReplicas: in.CurrentReplicas,
		Reason:          active.Message,
		Recommendations: in.Recommendations,
		MetricFailures:  in.MetricFailures,
		AbleToScale:     controllerutils.True(ReasonReadyForNewScale, "the target's scale can be read"),
		ScalingActive:   active,
		ScalingLimited:  controllerutils.False(ReasonDesiredWithinRange, "nothing was decided, the replicas hold"),
	}
	for _, m := range in.Metrics {
		d.Metrics = append(d.Metrics, MetricValue{Key: m.Key, Resource: m.Resource, Target: m.Target, Proposal: -1})
	}
	return d
}

// Pause overrides a decision while the autoscaler is paused (KEDA's paused-replicas): the
// target goes to replicas and stays, whatever the metrics say, and active says why. The
// metrics are still measured and the recommendations recorded, so that the windows know
// the demand when the autoscaler resumes.
func Pause(d Decision, replicas int32, active controllerutils.Outcome) Decision {
	d.DesiredReplicas, d.Reason = replicas, active.Message
	d.AbleToScale = controllerutils.True(ReasonReadyForNewScale, "the target's scale can be read")
	d.ScalingActive = active
	d.ScalingLimited = controllerutils.False(ReasonDesiredWithinRange, "paused: no limit applies")
	return d
}

// HoldDirections keeps a decision from moving the target in a paused direction (KEDA's
// paused-scale-in and paused-scale-out): the replicas stay where they are and
// ScalingLimited says what the decision wanted. Metrics, recommendations and failures stay
// as decided, so that the windows know the demand when the direction resumes.
func HoldDirections(d Decision, current int32, paused PausedDirections) Decision {
	wanted := d.DesiredReplicas
	var reason controllerutils.Reason
	var direction, annotation string
	switch {
	case wanted < current && paused.ScaleIn:
		reason, direction, annotation = ReasonScaleInPaused, "scale-in", v1alpha1.AnnotationPausedScaleIn
	case wanted > current && paused.ScaleOut:
		reason, direction, annotation = ReasonScaleOutPaused, "scale-out", v1alpha1.AnnotationPausedScaleOut
	default:
		return d
	}
	message := fmt.Sprintf("the autoscaler wants %d replicas, but %s is paused by the annotation %s: holding at %d", wanted, direction, annotation, current)
	d.DesiredReplicas = current
	d.Reason = message + " (" + d.Reason + ")"
	d.ScalingLimited = controllerutils.True(reason, message)
	return d
}

// proposeFromMetrics returns the largest proposal across metrics and pending demand (-1
// when nothing could be evaluated), the reason of the winner, and whether every input was
// complete. It fills the metric values, failures and ScalingActive.
func proposeFromMetrics(in Input, d *Decision) (int32, string, bool) {
	p := &proposals{in: in, d: d, best: -1, complete: true}
	tol := in.Behavior.Tolerances()
	for _, m := range in.Metrics {
		d.Metrics = append(d.Metrics, p.fromMetric(m, tol))
	}
	p.fromPending()
	p.fromHeadroom()
	p.setScalingActive()
	return p.best, p.reason, p.complete
}

// proposals gathers, for proposeFromMetrics, what each input proposes and what kept an
// input from being evaluated.
type proposals struct {
	in Input
	d  *Decision
	// best is the largest proposal so far, -1 before the first; reason says why.
	best   int32
	reason string
	// complete is false once an input could not be read.
	complete bool
	// problems are inputs that could not be read; notes qualify a proposal; waiting are
	// metrics whose seeds are still bootstrapping.
	problems, notes, waiting []string
	// fallback is true once a metric's fallback applies.
	fallback bool
}

func (p *proposals) propose(replicas int32, why string) {
	if replicas > p.best {
		p.best, p.reason = replicas, why
	}
}

// fromMetric evaluates one metric: its proposal, or why it has none, and its fallback.
func (p *proposals) fromMetric(m Metric, tol Tolerances) MetricValue {
	current := p.in.CurrentReplicas
	v := MetricValue{Key: m.Key, Resource: m.Resource, Target: m.Target, Proposal: -1}
	failure := m.FetchError
	if failure == "" {
		c, err := CalculateReplicas(current, m.Seeds, m.Target, tol)
		var none *ErrNoMeasurableSeed
		switch {
		case err == nil:
			v.Known, v.Value, v.AverageValue = true, c.Usage, c.Usage/float64(c.Measured)
			if c.Allocatable > 0 {
				v.UtilizationPercent = int32(c.Usage * 100 / c.Allocatable)
			}
			v.Proposal = c.Replicas
			p.propose(c.Replicas, fmt.Sprintf("%s is %s of target %s", m.Key, v.current(), m.Target))
			if c.Missing > 0 {
				// HPA's rule, already in the calculation, is conservative enough to act
				// on: holding every scale-in too would freeze the set for as long as one
				// seed lacks a sample.
				p.notes = append(p.notes, fmt.Sprintf("%s: %d of %d seeds have no fresh metric and count as full on a scale-in, as empty on a scale-out",
					m.Key, c.Missing, c.Measured+c.Missing+c.Ignored))
			}
		case !errors.As(err, &none) || none.Missing > 0:
			// Ready seeds and not one sample: the metrics path is failing.
			failure = err.Error()
		case current == 0:
			// From zero there is nothing to measure; pending demand decides.
			v.Known, v.Proposal = true, 0
			p.propose(0, fmt.Sprintf("%s has no seeds to measure", m.Key))
		default:
			// Seeds not registered or not Ready yet are bootstrapping, not a failed fetch:
			// hold the replicas (pending demand may still add some), and leave
			// failureDurationSeconds alone.
			v.Proposal = current
			p.propose(current, fmt.Sprintf("%s: no seed of the target is ready yet", m.Key))
			p.waiting = append(p.waiting, fmt.Sprintf("%s: %d of the target's %d replicas have a registered seed, none of them Ready",
				m.Key, none.Ignored, current))
		}
	}
	if failure != "" {
		p.fail(m, failure, &v)
	}
	return v
}

// fail records that metric m could not be read, since when, and applies its fallback once
// it has been unavailable for its failure duration. An unavailable metric holds every
// scale-in, unless its fallback applies: then the fallback's proposal stands in for the
// metric, as KEDA's does, a lower one included (behaviors Static and
// CurrentReplicasIfLower).
func (p *proposals) fail(m Metric, failure string, v *MetricValue) {
	prev, failedBefore := p.in.MetricFailures[m.Key]
	f := MetricFailure{Since: p.in.Now}
	if failedBefore {
		f.Since = prev.Since
	}
	p.problems = append(p.problems, fmt.Sprintf("%s: %s", m.Key, failure))
	if m.Fallback == nil || p.in.Now.Sub(f.Since) < m.Fallback.FailureDuration {
		p.complete = false
		p.d.MetricFailures[m.Key] = f
		return
	}
	p.fallback = true
	f.FallbackSince, f.FallbackReplicas = prev.FallbackSince, m.Fallback.Proposal(p.in.CurrentReplicas)
	if f.FallbackSince.IsZero() {
		f.FallbackSince = p.in.Now
	}
	p.d.MetricFailures[m.Key] = f
	v.Proposal = f.FallbackReplicas
	p.propose(v.Proposal, fmt.Sprintf("%s has been unavailable since %s, %s",
		m.Key, f.Since.UTC().Format(time.RFC3339), m.Fallback.describe()))
}

// fromPending proposes the replicas pending demand needs.
func (p *proposals) fromPending() {
	dm, current := p.in.Demand, p.in.CurrentReplicas
	switch {
	case !dm.PendingKnown:
		p.complete = false
		p.problems = append(p.problems, "pending shoots: the pending-fit metric is missing or stale")
	case dm.Pending > 0:
		replicas, perSeed, ok := PendingReplicas(dm, current)
		size := fmt.Sprintf("%g allocatable shoots per new seed at target %s", perSeed, dm.Target)
		if !ok {
			// Without a size for a new seed, pending demand can still start one.
			size = "allocatable shoots per new seed unknown"
			p.problems = append(p.problems, fmt.Sprintf("pending shoots: allocatable shoots per seed are unknown (%s), so %g pending shoots ask for 1 new replica at a time",
				orDefault(dm.AllocatableSource, "no seed to measure, no capacity annotation, no template resources"), dm.Pending))
		}
		if added := replicas - current; added > 0 {
			p.propose(replicas, fmt.Sprintf("%g pending shoots fit no seed of the target and need %d new replicas (%s)", dm.Pending, added, size))
		} else {
			p.propose(replicas, fmt.Sprintf("%g pending shoots wait for the replicas that host no shoot yet (%s)", dm.Pending, size))
		}
	}
}

// fromHeadroom proposes the replicas that keep the headroom of free shoot slots: a lower
// bound on what the metrics propose, since the largest proposal wins.
func (p *proposals) fromHeadroom() {
	if p.in.Headroom <= 0 {
		return
	}
	h := HeadroomReplicas(p.in.Demand, p.in.CurrentReplicas, p.in.Headroom)
	p.d.Headroom = &h
	if h.Known {
		p.propose(h.Replicas, h.Message)
	}
}

// setScalingActive says in ScalingActive what the proposals rest on.
func (p *proposals) setScalingActive() {
	d, dm := p.d, p.in.Demand
	switch {
	case len(p.problems) == 0 && len(p.waiting) > 0:
		d.ScalingActive = controllerutils.True(ReasonWaitingForSeeds,
			"no seed of the target is ready to measure yet, so the replicas hold and only pending shoots scale out: "+strings.Join(append(p.waiting, p.notes...), "; "))
	case len(p.problems) == 0:
		if len(p.notes) > 0 {
			d.ScalingActive.Message += "; " + strings.Join(p.notes, "; ")
		}
	case p.fallback:
		d.ScalingActive = controllerutils.False(ReasonFallbackActive, "metrics are unavailable, a fallback applies: "+strings.Join(p.problems, "; "))
	case p.best < 0:
		d.ScalingActive = controllerutils.False(ReasonFailedGetResourceMetric, "no metric could be evaluated: "+strings.Join(p.problems, "; "))
	case !dm.PendingKnown && len(p.problems) == 1:
		d.ScalingActive = controllerutils.False(ReasonFailedGetPendingMetric, "scaling in is held, scaling out only on what is known: "+p.problems[0])
	default:
		d.ScalingActive = controllerutils.False(ReasonIncompleteMetrics, "scaling in is held, scaling out only on what is known: "+strings.Join(p.problems, "; "))
	}
	// Scaling goes on with the capacity the set has without the annotation, or without its
	// parent's, as the scheduler's pending-fit does, and the scheduler's choice among sets
	// goes on without the set's price; the condition says so until it is fixed.
	for _, problem := range []struct {
		reason  controllerutils.Reason
		message string
	}{
		{ReasonInvalidCapacityAnnotation, dm.InvalidCapacityAnnotation},
		{ReasonUnknownReplicaCapacity, dm.UnknownReplicaCapacity},
		{ReasonInvalidPriceAnnotation, dm.InvalidPriceAnnotation},
	} {
		switch {
		case problem.message == "":
		case d.ScalingActive.IsTrue():
			d.ScalingActive = controllerutils.False(problem.reason, problem.message)
		default:
			d.ScalingActive.Message += "; " + problem.message
		}
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// current renders the measured value as in kubectl's TARGETS column.
func (v MetricValue) current() string {
	if !v.Known {
		return "<unknown>"
	}
	if v.Target.AverageValue > 0 {
		return formatValue(v.AverageValue)
	}
	return fmt.Sprintf("%d%%", v.UtilizationPercent)
}

// Targets renders "45%/50%, 12/20" for the printer column.
func Targets(values []MetricValue) string {
	parts := make([]string, 0, len(values))
	for _, v := range values {
		parts = append(parts, v.current()+"/"+v.Target.String())
	}
	return strings.Join(parts, ", ")
}

// normalize applies stabilization, the rate policies and min/max to a proposal, in HPA's
// order, and sets AbleToScale and ScalingLimited.
func normalize(in Input, proposal int32, d *Decision) int32 {
	current, b := in.CurrentReplicas, in.Behavior
	history := in.Recommendations
	if len(history) == 0 && b.ScaleDown.StabilizationWindow > 0 {
		// A new autoscaler must not scale down before a whole window has passed.
		history = []Recommendation{{At: in.Now, Replicas: current}}
	}
	stabilized, recs := Stabilize(in.Now, current, proposal, b, history)
	d.Recommendations = recs
	switch {
	case stabilized < proposal:
		d.AbleToScale = controllerutils.True(ReasonScaleUpStabilized,
			fmt.Sprintf("recent recommendations were lower than %d, holding at %d", proposal, stabilized))
	case stabilized > proposal:
		d.AbleToScale = controllerutils.True(ReasonScaleDownStabilized,
			fmt.Sprintf("recent recommendations were higher than %d, holding at %d for the %s scale-down window", proposal, stabilized, b.ScaleDown.StabilizationWindow))
	}

	desired := stabilized
	switch {
	case stabilized > current:
		limit := max(ScaleUpLimit(in.Now, current, in.ScaleEvents, b.ScaleUp), current)
		reason, message := ReasonScaleUpLimit, fmt.Sprintf("the desired replica count is increasing faster than the scale-up policies allow (%d)", limit)
		if in.MaxReplicas < limit {
			limit = in.MaxReplicas
			reason, message = ReasonTooManyReplicas, fmt.Sprintf("the desired replica count is more than maxReplicas %d", in.MaxReplicas)
		}
		if stabilized > limit {
			desired = limit
			d.ScalingLimited = controllerutils.True(reason, message)
		}
	case stabilized < current:
		limit := min(ScaleDownLimit(in.Now, current, in.ScaleEvents, b.ScaleDown), current)
		reason, message := ReasonScaleDownLimit, fmt.Sprintf("the desired replica count is decreasing faster than the scale-down policies allow (%d)", limit)
		if in.MinReplicas > limit {
			limit = in.MinReplicas
			reason, message = ReasonTooFewReplicas, fmt.Sprintf("the desired replica count is less than minReplicas %d", in.MinReplicas)
		}
		if stabilized < limit {
			desired = limit
			d.ScalingLimited = controllerutils.True(reason, message)
		}
	}
	return desired
}

// limitByRemovable keeps a scale-in to what the set can remove: empty, unprotected seeds.
func limitByRemovable(in Input, d *Decision) {
	current := in.CurrentReplicas
	if d.DesiredReplicas >= current || current-d.DesiredReplicas <= in.RemovableReplicas {
		return
	}
	wanted := d.DesiredReplicas
	d.DesiredReplicas = current - max(in.RemovableReplicas, 0)
	d.ScalingLimited = controllerutils.True(ReasonTooFewRemovableSeeds, fmt.Sprintf(
		"scaling in to %d replicas needs %d seeds removed, but only %d can be removed (empty and not protected from deletion); holding at %d",
		wanted, current-wanted, max(in.RemovableReplicas, 0), d.DesiredReplicas))
}
