// Package recommend computes how many replicas a SeedAutoscaler's target should have: the
// HPA algorithm applied to seeds, plus pending demand, scale from zero and the limit of
// removable seeds. It takes plain inputs and returns plain outputs — no client, no clock —
// so every edge case is a row in a table test.
package recommend

import (
	"fmt"
	"time"

	"github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
)

// Seed is what is known about one seed of the target for one resource.
type Seed struct {
	// Name of the seed.
	Name string
	// Ready is true while the seed's gardenlet is ready.
	Ready bool
	// Allocatable is the amount of the resource available to shoots; <= 0 means unknown,
	// and such a seed is ignored like an unready one.
	Allocatable float64
	// Usage is the amount in use; meaningful only when HasUsage.
	Usage float64
	// HasUsage is false when the usage metric of the seed is missing or stale.
	HasUsage bool
	// Deleting is true while the seed or its ManagedSeed is being deleted.
	Deleting bool
}

// Target is a metric's target: a utilization (a fraction of allocatable, 0.5 for 50%) or an
// average value per seed. AverageValue > 0 wins.
type Target struct {
	// UtilizationPercent is the target in percent of allocatable.
	UtilizationPercent int32
	// AverageValue is the target usage per seed.
	AverageValue float64
}

// Fallback proposes replicas for a metric once it has failed for FailureDuration, by its
// Behavior (KEDA's fallback.behavior); an empty Behavior is the default,
// CurrentReplicasIfHigher.
type Fallback struct {
	FailureDuration time.Duration
	Behavior        v1alpha1.FallbackBehavior
	Replicas        int32
}

// Proposal is the replicas the fallback proposes when the target has current replicas.
func (f Fallback) Proposal(current int32) int32 {
	switch f.Behavior {
	case v1alpha1.StaticFallback:
		return f.Replicas
	case v1alpha1.CurrentReplicasFallback:
		return current
	case v1alpha1.CurrentReplicasIfLowerFallback:
		return min(current, f.Replicas)
	default:
		return max(current, f.Replicas)
	}
}

// describe says in a few words what the fallback does, for messages.
func (f Fallback) describe() string {
	switch f.Behavior {
	case v1alpha1.StaticFallback:
		return fmt.Sprintf("its fallback (Static) sets %d replicas", f.Replicas)
	case v1alpha1.CurrentReplicasFallback:
		return "its fallback (CurrentReplicas) holds the current replicas"
	case v1alpha1.CurrentReplicasIfLowerFallback:
		return fmt.Sprintf("its fallback (CurrentReplicasIfLower) holds at most %d replicas", f.Replicas)
	default:
		return fmt.Sprintf("its fallback holds at least %d replicas", f.Replicas)
	}
}

// MetricFailure is since when a metric has failed and, once its fallback applies, since
// when and what the fallback proposes.
type MetricFailure struct {
	Since time.Time
	// FallbackSince is when the fallback began to apply; zero while it does not.
	FallbackSince time.Time
	// FallbackReplicas is the fallback's proposal; meaningful only with FallbackSince.
	FallbackReplicas int32
}

// Metric is one of the SeedAutoscaler's metrics with the samples fetched for it.
type Metric struct {
	// Key names the metric in status and messages, e.g. resource/shoots.
	Key string
	// Resource is the seed resource, e.g. shoots.
	Resource string
	// Target of the metric.
	Target Target
	// Seeds are the seeds of the target with their samples.
	Seeds []Seed
	// FetchError, when not empty, says why the metric could not be fetched at all.
	FetchError string
	// Fallback is the metric's fallback, if any.
	Fallback *Fallback
}

// Demand is shoots waiting for a seed that a new replica of the target would take.
type Demand struct {
	// Pending is the number of pending shoots that fit the target's template.
	Pending float64
	// PendingKnown is false when the pending metric is missing or stale. A target that is
	// not a ManagedSeedSet has no pending-fit: nothing pends for it, known.
	PendingKnown bool
	// Seeds are the target's seeds with their shoot usage and allocatable.
	Seeds []Seed
	// Target is the target of the shoots metric, or 100% when the autoscaler has none.
	Target Target
	// AllocatablePerSeed is the shoots a new replica's seed takes, as the scheduler's
	// pending-fit sizes it (internal/setcapacity); <= 0 means unknown, and then the
	// average of the ready seeds stands in.
	AllocatablePerSeed float64
	// AllocatableSource says where AllocatablePerSeed came from, for messages.
	AllocatableSource string
	// InvalidCapacityAnnotation, when not empty, says that the target's capacity annotation
	// is invalid and was ignored in AllocatablePerSeed.
	InvalidCapacityAnnotation string
	// UnknownReplicaCapacity, when not empty, says that a new replica's capacity depends on
	// a parent gardenlet's that is not known, and where AllocatablePerSeed came from instead.
	UnknownReplicaCapacity string
	// InvalidPriceAnnotation, when not empty, says that the target's seed-hour price
	// annotation is invalid, so the scheduler ignores it when a pending shoot fits several
	// sets. It changes no replica count here.
	InvalidPriceAnnotation string
}

// Recommendation is a replica recommendation and when it was made.
type Recommendation struct {
	At       time.Time
	Replicas int32
}

// ScaleEvent is a change of replicas: positive up, negative down.
type ScaleEvent struct {
	At     time.Time
	Change int32
}

// SelectPolicy chooses among policies.
type SelectPolicy string

// The ways of choosing among policies.
const (
	SelectMax      SelectPolicy = "Max"
	SelectMin      SelectPolicy = "Min"
	SelectDisabled SelectPolicy = "Disabled"
)

// PolicyType is the unit of a policy.
type PolicyType string

// The units of a policy.
const (
	PolicyReplicas PolicyType = "Replicas"
	PolicyPercent  PolicyType = "Percent"
)

// Policy bounds the change over a period.
type Policy struct {
	Type   PolicyType
	Value  int32
	Period time.Duration
}

// Rules configure one direction of scaling.
type Rules struct {
	StabilizationWindow time.Duration
	SelectPolicy        SelectPolicy
	Policies            []Policy
	// Tolerance is the relative deviation from the target that causes no scaling this way.
	Tolerance float64
}

// Behavior configures scaling up and down.
type Behavior struct {
	ScaleUp   Rules
	ScaleDown Rules
}

// Input is everything a decision depends on.
type Input struct {
	// Now is the time of the decision.
	Now time.Time
	// CurrentReplicas is the target's spec.replicas as read through /scale.
	CurrentReplicas int32
	MinReplicas     int32
	MaxReplicas     int32
	Behavior        Behavior
	Metrics         []Metric
	Demand          Demand
	// RemovableReplicas is how many replicas the set can remove now: empty, unprotected
	// seeds, and replicas that are asked for but do not exist yet.
	RemovableReplicas int32
	// ScaledToZero is true when the autoscaler itself took the target to zero.
	ScaledToZero bool
	// Recommendations and ScaleEvents are the history kept in status.
	Recommendations []Recommendation
	ScaleEvents     []ScaleEvent
	// MetricFailures are the failing metrics by Key: since when, and their fallbacks.
	MetricFailures map[string]MetricFailure
	// Headroom is the free shoot slots to keep across the ready seeds of Demand; 0 for none.
	Headroom float64
}

// Condition reasons, HPA's where they mean the same.
const (
	// AbleToScale
	ReasonReadyForNewScale    controllerutils.Reason = "ReadyForNewScale"
	ReasonScaleUpStabilized   controllerutils.Reason = "ScaleUpStabilized"
	ReasonScaleDownStabilized controllerutils.Reason = "ScaleDownStabilized"
	ReasonSucceededRescale    controllerutils.Reason = "SucceededRescale"
	ReasonFailedGetScale      controllerutils.Reason = "FailedGetScale"
	ReasonFailedUpdateScale   controllerutils.Reason = "FailedUpdateScale"
	ReasonDryRun              controllerutils.Reason = "DryRun"

	// ScalingActive
	ReasonValidMetricFound          controllerutils.Reason = "ValidMetricFound"
	ReasonWaitingForSeeds           controllerutils.Reason = "WaitingForSeeds"
	ReasonFailedGetResourceMetric   controllerutils.Reason = "FailedGetResourceMetric"
	ReasonIncompleteMetrics         controllerutils.Reason = "IncompleteMetrics"
	ReasonFailedGetPendingMetric    controllerutils.Reason = "FailedGetPendingMetric"
	ReasonFallbackActive            controllerutils.Reason = "FallbackActive"
	ReasonScalingDisabled           controllerutils.Reason = "ScalingDisabled"
	ReasonInvalidSelector           controllerutils.Reason = "InvalidSelector"
	ReasonInvalidCapacityAnnotation controllerutils.Reason = "InvalidCapacityAnnotation"
	ReasonUnknownReplicaCapacity    controllerutils.Reason = "UnknownReplicaCapacity"
	ReasonInvalidPriceAnnotation    controllerutils.Reason = "InvalidPriceAnnotation"
	ReasonScalingPaused             controllerutils.Reason = "ScalingPaused"
	ReasonInvalidPausedReplicas     controllerutils.Reason = "InvalidPausedReplicas"

	// ScalingLimited
	ReasonDesiredWithinRange   controllerutils.Reason = "DesiredWithinRange"
	ReasonTooManyReplicas      controllerutils.Reason = "TooManyReplicas"
	ReasonTooFewReplicas       controllerutils.Reason = "TooFewReplicas"
	ReasonScaleUpLimit         controllerutils.Reason = "ScaleUpLimit"
	ReasonScaleDownLimit       controllerutils.Reason = "ScaleDownLimit"
	ReasonTooFewRemovableSeeds controllerutils.Reason = "TooFewRemovableSeeds"
	// ReasonDisruptionBudget: a disruption budget of reason EmptySeedRemoval held the
	// scale-in to fewer removals.
	ReasonDisruptionBudget controllerutils.Reason = "DisruptionBudget"

	// ScalingLimited, and DirectionPaused True
	ReasonScaleInPaused  controllerutils.Reason = "ScaleInPaused"
	ReasonScaleOutPaused controllerutils.Reason = "ScaleOutPaused"

	// DirectionPaused
	ReasonScaleInAndOutPaused    controllerutils.Reason = "ScaleInAndOutPaused"
	ReasonInvalidPauseAnnotation controllerutils.Reason = "InvalidPauseAnnotation"
	ReasonNotPaused              controllerutils.Reason = "NotPaused"

	// ScaledToZero
	ReasonScaledToZero    controllerutils.Reason = "ScaledToZero"
	ReasonNotScaledToZero controllerutils.Reason = "NotScaledToZero"
)

// PausedDirections are the directions the autoscaler may not move the target in (KEDA's
// paused-scale-in and paused-scale-out).
type PausedDirections struct {
	ScaleIn, ScaleOut bool
}

// MetricValue is the measured value of one metric, for status.currentMetrics.
type MetricValue struct {
	Key      string
	Resource string
	Target   Target
	// Known is false when nothing could be measured.
	Known bool
	// Value is the total usage over the measured seeds.
	Value float64
	// AverageValue is the usage per measured seed.
	AverageValue float64
	// UtilizationPercent is Σusage / Σallocatable in percent, rounded down like HPA.
	UtilizationPercent int32
	// Proposal is the replicas this metric proposes; -1 when it proposes nothing.
	Proposal int32
}

// Decision is what the autoscaler should do and what status should say.
type Decision struct {
	// DesiredReplicas is the replica count to scale the target to.
	DesiredReplicas int32
	// Reason says in one sentence what drove the decision, for events.
	Reason string
	// Recommendations and MetricFailures replace those in status.
	Recommendations []Recommendation
	MetricFailures  map[string]MetricFailure
	// Metrics are the measured values, in the order of Input.Metrics.
	Metrics []MetricValue
	// Headroom is what Input.Headroom asked for; nil without one.
	Headroom *HeadroomResult

	AbleToScale    controllerutils.Outcome
	ScalingActive  controllerutils.Outcome
	ScalingLimited controllerutils.Outcome
}
