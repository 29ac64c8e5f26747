package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SeedAutoscaler condition types.
const (
	// SeedAutoscalerAbleToScale says whether the target's scale can be read and written.
	SeedAutoscalerAbleToScale = "AbleToScale"
	// SeedAutoscalerScalingActive says whether metrics are known well enough to scale on.
	SeedAutoscalerScalingActive = "ScalingActive"
	// SeedAutoscalerScalingLimited says whether the desired replicas were clamped (min/max,
	// policies, or fewer removable seeds than a scale-in wanted).
	SeedAutoscalerScalingLimited = "ScalingLimited"
	// SeedAutoscalerScaledToZero is True while the autoscaler itself took the target to zero,
	// which tells it apart from a zero set by a human.
	SeedAutoscalerScaledToZero = "ScaledToZero"
	// SeedAutoscalerScaleAheadActive says whether spec.scaleAhead's forecasts are in use:
	// False with ForecastInaccurate while the accuracy check holds every forecast off, and
	// with ForecastOnly while spec.scaleAhead.mode says to watch them only.
	SeedAutoscalerScaleAheadActive = "ScaleAheadActive"
	// SeedAutoscalerDirectionPaused says whether the paused-scale-in or paused-scale-out
	// annotation holds the target in a direction; present only while one of them is set.
	SeedAutoscalerDirectionPaused = "DirectionPaused"
	// SeedAutoscalerDisruptionBudgetsValid says whether every disruption budget of
	// spec.behavior.scaleDown.consolidation.budgets can be read; False names the budget and
	// its field (a budget that cannot be read allows no disruption of its reasons). Present
	// only while there are budgets.
	SeedAutoscalerDisruptionBudgetsValid = "DisruptionBudgetsValid"
)

// AnnotationPausedReplicas on a SeedAutoscaler pauses it, as KEDA's
// autoscaling.keda.sh/paused-replicas does: the autoscaler scales the target to the given
// number of replicas, a whole number from 0 to MaxReplicasLimit, keeps it there and
// decides nothing else until the annotation is removed.
const AnnotationPausedReplicas = "autoscaling.seedscaler.io/paused-replicas"

// MaxReplicasLimit is the most replicas the API allows anywhere: spec.maxReplicas and
// fallback.replicas of a SeedAutoscaler and spec.replicas of a ManagedSeedSet (their
// Maximum markers say the same number), and the paused-replicas annotation, which no
// schema checks. A pause never asks for more seeds than an autoscaler could.
const MaxReplicasLimit = 1000

// AnnotationPausedScaleIn set to "true" on a SeedAutoscaler pauses scale-in only, as KEDA's
// autoscaling.keda.sh/paused-scale-in does: the autoscaler goes on measuring and deciding,
// and may add replicas, but never removes one (no seed is removed during a Gardener
// upgrade). "false" or no annotation resumes it; AnnotationPausedReplicas wins over it.
const AnnotationPausedScaleIn = "autoscaling.seedscaler.io/paused-scale-in"

// AnnotationPausedScaleOut set to "true" on a SeedAutoscaler pauses scale-out only, as
// KEDA's autoscaling.keda.sh/paused-scale-out does: the autoscaler may remove replicas but
// never adds one (no seed is asked for while a cloud quota is exhausted). "false" or no
// annotation resumes it; AnnotationPausedReplicas wins over it.
const AnnotationPausedScaleOut = "autoscaling.seedscaler.io/paused-scale-out"

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// sa is ServiceAccounts' short name and always resolves to them, so seedas it is.
// +kubebuilder:resource:shortName=seedas
// +kubebuilder:printcolumn:name="Reference",type=string,JSONPath=`.status.reference`
// +kubebuilder:printcolumn:name="Targets",type=string,JSONPath=`.status.targets`
// +kubebuilder:printcolumn:name="MinReplicas",type=integer,JSONPath=`.spec.minReplicas`
// +kubebuilder:printcolumn:name="MaxReplicas",type=integer,JSONPath=`.spec.maxReplicas`
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.status.currentReplicas`
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.status.desiredReplicas`,priority=1
// +kubebuilder:printcolumn:name="Active",type=string,JSONPath=`.status.conditions[?(@.type=="ScalingActive")].status`
// +kubebuilder:printcolumn:name="Limited",type=string,JSONPath=`.status.conditions[?(@.type=="ScalingLimited")].status`
// +kubebuilder:printcolumn:name="Ahead",type=string,JSONPath=`.status.scaleAhead.reason`
// +kubebuilder:printcolumn:name="Paused",type=string,JSONPath=`.metadata.annotations.autoscaling\.seedscaler\.io/paused-replicas`
// +kubebuilder:printcolumn:name="DirectionPaused",type=string,JSONPath=`.status.conditions[?(@.type=="DirectionPaused")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// SeedAutoscaler scales a ManagedSeedSet (or anything with a scale subresource) so that the
// utilization of its seeds' resources stays at a target.
type SeedAutoscaler struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired behavior of the autoscaler.
	// +required
	Spec SeedAutoscalerSpec `json:"spec,omitzero"`
	// status is the observed state of the autoscaler.
	// +optional
	Status SeedAutoscalerStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// SeedAutoscalerList is a list of SeedAutoscalers.
type SeedAutoscalerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SeedAutoscaler `json:"items"`
}

// SeedAutoscalerSpec is the specification of a SeedAutoscaler.
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || self.minReplicas <= self.maxReplicas",message="spec.minReplicas must not exceed spec.maxReplicas: lower minReplicas or raise maxReplicas"
type SeedAutoscalerSpec struct {
	// scaleTargetRef is the object to scale; it must have a scale subresource.
	// +required
	ScaleTargetRef CrossVersionObjectReference `json:"scaleTargetRef,omitzero"`
	// minReplicas is the lower bound of replicas; 0 lets the autoscaler scale the target to
	// zero when it has no demand, and back from zero when shoots pend.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	MinReplicas *int32 `json:"minReplicas,omitempty"`
	// maxReplicas is the upper bound of replicas, 1 to 1000: a bound, not a wish, since the
	// autoscaler creates that many seeds when demand asks.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	MaxReplicas int32 `json:"maxReplicas,omitempty"`
	// metrics to scale on; the largest replica proposal across them wins. Each metric is
	// listed once: two entries of the same type on the same resource are refused.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:XValidation:rule="self.all(m, !has(m.resource) || self.filter(n, n.type == m.type && has(n.resource) && n.resource.name == m.resource.name).size() == 1)",message="spec.metrics lists the same metric twice (same type and resource name): list each metric once, with one target"
	Metrics []MetricSpec `json:"metrics,omitempty"`
	// behavior configures scaling up and down separately, as in autoscaling/v2.
	// +optional
	Behavior *SeedAutoscalerBehavior `json:"behavior,omitempty,omitzero"`
	// scaleAhead asks for seeds before the demand arrives, from forecasts of the demand
	// over the lead time a new seed takes to accept shoots. The forecast only ever adds
	// replicas to the reactive decision of spec.metrics; unset, the autoscaler is reactive.
	// +optional
	ScaleAhead *ScaleAhead `json:"scaleAhead,omitempty,omitzero"`
	// headroom keeps free shoot slots on the target's ready seeds: a utilization target is
	// a share, while a burst of shoots created at once needs a count of free slots to bind
	// without waiting for a new seed. The replicas it asks for are a lower bound on what
	// spec.metrics ask for, within minReplicas and maxReplicas.
	// +optional
	Headroom *Headroom `json:"headroom,omitempty,omitzero"`
}

// Headroom is a number of free shoot slots to keep on the target's ready seeds.
type Headroom struct {
	// shoots is the fewest free shoot slots (allocatable less shoots) to keep across the
	// target's ready seeds, 1 to 10000: 20 lets a burst of 20 shoots created within a
	// minute bind at once, without waiting for a new seed.
	// +required
	// +kubebuilder:validation:XValidation:rule="self >= 1 && self <= 10000",message="spec.headroom.shoots must be 1 to 10000 free shoot slots, e.g. shoots: 20; to keep no headroom remove spec.headroom"
	Shoots int32 `json:"shoots,omitempty"`
}

// ForecastType is a forecast of a set's demand (shoots on its seeds plus pending).
// +kubebuilder:validation:Enum=Trend;Seasonal
type ForecastType string

const (
	// TrendForecast continues the line through the demand of the last trend.windowSeconds
	// over the lead time (Prometheus' predict_linear), no higher than the line through the
	// window's last quarter or the demand now: it stops rising where the demand did.
	TrendForecast ForecastType = "Trend"
	// SeasonalForecast is the largest demand one seasonal.periodSeconds ago over the lead
	// time to come.
	SeasonalForecast ForecastType = "Seasonal"
)

// ScaleAheadMode says whether the forecasts of spec.scaleAhead act on the target, in AWS
// predictive scaling's words.
// +kubebuilder:validation:Enum=ForecastOnly;ForecastAndScale
type ScaleAheadMode string

const (
	// ForecastOnly computes, judges and shows the forecasts on every evaluation and never
	// acts on them: the target is scaled exactly as without spec.scaleAhead, so that an
	// operator can watch a forecast be right before trusting it.
	ForecastOnly ScaleAheadMode = "ForecastOnly"
	// ForecastAndScale scales ahead of the demand on the forecasts.
	ForecastAndScale ScaleAheadMode = "ForecastAndScale"
)

// ScaleAhead configures scaling ahead of the demand.
// +kubebuilder:validation:XValidation:rule="!has(self.trend) || self.forecasts.exists(f, f == 'Trend')",message="spec.scaleAhead.trend configures a forecast that spec.scaleAhead.forecasts does not list: add Trend to forecasts or remove trend"
// +kubebuilder:validation:XValidation:rule="!has(self.seasonal) || self.forecasts.exists(f, f == 'Seasonal')",message="spec.scaleAhead.seasonal configures a forecast that spec.scaleAhead.forecasts does not list: add Seasonal to forecasts or remove seasonal"
type ScaleAhead struct {
	// forecasts to scale ahead on: Trend, Seasonal, or both, and then the larger of the two
	// counts. Each is listed once.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=2
	// +kubebuilder:validation:XValidation:rule="self.all(f, self.filter(g, g == f).size() == 1)",message="spec.scaleAhead.forecasts lists a forecast twice: list Trend and Seasonal at most once each"
	Forecasts []ForecastType `json:"forecasts,omitempty"`
	// mode is ForecastAndScale (the default), which scales ahead on the forecasts, or
	// ForecastOnly, which computes and shows them in status and metrics but scales the
	// target exactly as without scaleAhead: watch a forecast before trusting it.
	// +optional
	// +kubebuilder:default=ForecastAndScale
	Mode ScaleAheadMode `json:"mode,omitempty"`
	// leadTimeSeconds is how far ahead the forecasts look, 15 to 21600: the time a new seed
	// takes to accept shoots. Unset, the autoscaler measures it from its own scale-outs
	// (a new ManagedSeed's creation until its Seed is ready, the largest of the recent
	// ones) and uses 900 until it has measured one.
	// +optional
	// +kubebuilder:validation:Minimum=15
	// +kubebuilder:validation:Maximum=21600
	LeadTimeSeconds *int32 `json:"leadTimeSeconds,omitempty"`
	// trend configures the Trend forecast.
	// +optional
	Trend *TrendForecastSpec `json:"trend,omitempty,omitzero"`
	// seasonal configures the Seasonal forecast.
	// +optional
	Seasonal *SeasonalForecastSpec `json:"seasonal,omitempty,omitzero"`
	// accuracy configures when a forecast that keeps missing the demand switches itself off.
	// +optional
	Accuracy *ForecastAccuracySpec `json:"accuracy,omitempty,omitzero"`
}

// TrendForecastSpec configures the Trend forecast.
// +kubebuilder:validation:MinProperties=1
type TrendForecastSpec struct {
	// windowSeconds is the span of demand the line is fitted through, 60 to 86400;
	// 600 when unset. It should hold ten or more samples of the demand's recording rule.
	// +optional
	// +kubebuilder:validation:Minimum=60
	// +kubebuilder:validation:Maximum=86400
	WindowSeconds *int32 `json:"windowSeconds,omitempty"`
}

// SeasonalForecastSpec configures the Seasonal forecast.
// +kubebuilder:validation:MinProperties=1
type SeasonalForecastSpec struct {
	// periodSeconds is how far back the same time of the cycle lies: 86400 (a day) or
	// 604800 (a week, where Prometheus keeps a week of history); 86400 when unset.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == 86400 || self == 604800",message="spec.scaleAhead.seasonal.periodSeconds must be 86400 (a day) or 604800 (a week)"
	PeriodSeconds *int32 `json:"periodSeconds,omitempty"`
}

// ForecastAccuracySpec configures the accuracy check of the forecasts.
// +kubebuilder:validation:MinProperties=1
type ForecastAccuracySpec struct {
	// thresholdPercent is the error, relative to the demand (at least one seed at the
	// target), beyond which a forecast is off target, 1 to 1000; 50 when unset.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	ThresholdPercent *int32 `json:"thresholdPercent,omitempty"`
	// windowSeconds is how long a forecast may be off target before it switches off, and
	// how long it must be on target again to switch back on, 60 to 86400; 3600 when unset.
	// +optional
	// +kubebuilder:validation:Minimum=60
	// +kubebuilder:validation:Maximum=86400
	WindowSeconds *int32 `json:"windowSeconds,omitempty"`
}

// CrossVersionObjectReference refers to the object to scale: a ManagedSeedSet, or any kind
// with a scale subresource whose selector picks seeds. The apiserver checks the shape of the
// reference; whether the kind exists, has a scale subresource and may be scaled by the
// autoscaler, the autoscaler reports in the AbleToScale condition.
// +kubebuilder:validation:XValidation:rule="self.kind != 'ManagedSeedSet' || self.apiVersion.startsWith('seedmanagement.gardener.cloud/')",message="spec.scaleTargetRef.apiVersion of a ManagedSeedSet is seedmanagement.gardener.cloud/v1alpha1"
type CrossVersionObjectReference struct {
	// apiVersion of the target, group/version, for example seedmanagement.gardener.cloud/v1alpha1.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[a-z]([-a-z0-9]*[a-z0-9])?$')",message="spec.scaleTargetRef.apiVersion must be group/version in lower case, e.g. seedmanagement.gardener.cloud/v1alpha1"
	APIVersion string `json:"apiVersion,omitempty"`
	// kind of the target, for example ManagedSeedSet: the kind, not the resource
	// (managedseedsets) nor a path.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[A-Z][A-Za-z0-9]*$')",message="spec.scaleTargetRef.kind must be a kind such as ManagedSeedSet: a capital letter, then letters and digits"
	Kind string `json:"kind,omitempty"`
	// name of the target, in the SeedAutoscaler's namespace.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="spec.scaleTargetRef.name must be the name of an object: lower case letters, digits, '-' and '.'"
	Name string `json:"name,omitempty"`
}

// MetricSourceType is the kind of metric; only Resource for now.
// +kubebuilder:validation:Enum=Resource
type MetricSourceType string

// ResourceMetricSourceType is a resource tracked in the seeds' capacity and allocatable.
const ResourceMetricSourceType MetricSourceType = "Resource"

// MetricSpec is one metric to scale on.
// +kubebuilder:validation:XValidation:rule="self.type != 'Resource' || has(self.resource)",message="metrics[].resource is required when metrics[].type is Resource"
type MetricSpec struct {
	// type of the metric; only Resource is supported.
	// +required
	Type MetricSourceType `json:"type,omitempty"`
	// resource is a seed resource tracked in status.capacity and status.allocatable.
	// +optional
	Resource *ResourceMetricSource `json:"resource,omitempty,omitzero"`
	// fallback proposes replicas for the metric once it has been unavailable for
	// failureDurationSeconds, by its behavior; by default it holds at least fallback.replicas.
	// +optional
	Fallback *MetricFallback `json:"fallback,omitempty,omitzero"`
}

// SeedResourceName is a seed resource an autoscaler can scale on: one the exporter
// publishes usage for (garden_seed_usage), which today is shoots only. Any other name would
// leave the metric unavailable for good, so the apiserver rejects it.
// +kubebuilder:validation:Enum=shoots
type SeedResourceName string

// ShootsResource is the number of shoots on a seed.
const ShootsResource SeedResourceName = "shoots"

// ResourceMetricSource is a seed resource and its target.
type ResourceMetricSource struct {
	// name of the resource; shoots, the one resource whose usage the exporter publishes.
	// +required
	Name SeedResourceName `json:"name,omitempty"`
	// target value of the resource.
	// +required
	Target MetricTarget `json:"target,omitzero"`
}

// MetricTargetType is the kind of a metric target.
// +kubebuilder:validation:Enum=Utilization;AverageValue
type MetricTargetType string

const (
	// UtilizationMetricType targets usage as a percentage of allocatable.
	UtilizationMetricType MetricTargetType = "Utilization"
	// AverageValueMetricType targets the average usage per seed.
	AverageValueMetricType MetricTargetType = "AverageValue"
)

// MetricTarget is the target of a metric.
// +kubebuilder:validation:XValidation:rule="self.type != 'Utilization' || has(self.averageUtilization)",message="target.averageUtilization is required when target.type is Utilization, e.g. averageUtilization: 70"
// +kubebuilder:validation:XValidation:rule="self.type != 'AverageValue' || has(self.averageValue)",message="target.averageValue is required when target.type is AverageValue, e.g. averageValue: \"100\""
type MetricTarget struct {
	// type is Utilization or AverageValue.
	// +required
	Type MetricTargetType `json:"type,omitempty"`
	// averageUtilization is the target usage in percent of allocatable, averaged over seeds.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	AverageUtilization *int32 `json:"averageUtilization,omitempty"`
	// averageValue is the target usage per seed.
	// +optional
	// +kubebuilder:validation:XValidation:rule="type(self) != string || !self.matches('[eE][+-]?([0-9]{4}|[0-9]*[.])')",message="target.averageValue must be a quantity such as 100, 1.5k or 1e3, with a whole exponent of at most 3 digits (1e3, not 1e1000)"
	// +kubebuilder:validation:XValidation:rule="(type(self) == string && self.matches('[eE][+-]?([0-9]{4}|[0-9]*[.])')) || quantity(string(self)).isGreaterThan(quantity('0'))",message="target.averageValue must be greater than zero"
	AverageValue *resource.Quantity `json:"averageValue,omitempty"`
}

// FallbackBehavior is how a metric's fallback picks its replicas, KEDA's fallback.behavior
// in Kubernetes' spelling of enums (KEDA's static is Static, currentReplicas is
// CurrentReplicas, and so on).
// +kubebuilder:validation:Enum=Static;CurrentReplicas;CurrentReplicasIfHigher;CurrentReplicasIfLower
type FallbackBehavior string

const (
	// StaticFallback proposes fallback.replicas, above or below the current replicas.
	StaticFallback FallbackBehavior = "Static"
	// CurrentReplicasFallback proposes the current replicas: the metric holds the target
	// where it is. It takes no fallback.replicas.
	CurrentReplicasFallback FallbackBehavior = "CurrentReplicas"
	// CurrentReplicasIfHigherFallback proposes the larger of the current replicas and
	// fallback.replicas: it may raise the replicas, never lower them. The default.
	CurrentReplicasIfHigherFallback FallbackBehavior = "CurrentReplicasIfHigher"
	// CurrentReplicasIfLowerFallback proposes the smaller of the current replicas and
	// fallback.replicas: it may lower the replicas, never raise them.
	CurrentReplicasIfLowerFallback FallbackBehavior = "CurrentReplicasIfLower"
)

// MetricFallback is what to do while a metric stays unavailable.
// +kubebuilder:validation:XValidation:rule="has(self.replicas) || (has(self.behavior) && self.behavior == 'CurrentReplicas')",message="spec.metrics[].fallback.replicas is required with behavior Static, CurrentReplicasIfHigher (the default) and CurrentReplicasIfLower: set the replicas to fall back to, e.g. replicas: 3, or use behavior CurrentReplicas to hold the current replicas",messageExpression="'spec.metrics[].fallback.replicas is required with behavior ' + (has(self.behavior) ? self.behavior : 'CurrentReplicasIfHigher') + ': set the replicas to fall back to, e.g. replicas: 3, or use behavior CurrentReplicas to hold the current replicas'"
// +kubebuilder:validation:XValidation:rule="!has(self.replicas) || !has(self.behavior) || self.behavior != 'CurrentReplicas'",message="spec.metrics[].fallback.replicas has no effect with behavior CurrentReplicas, which holds the current replicas: remove replicas, or use behavior Static, CurrentReplicasIfHigher or CurrentReplicasIfLower to fall back to them"
type MetricFallback struct {
	// failureDurationSeconds is how long the metric must have been unavailable before the
	// fallback applies.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	FailureDurationSeconds int32 `json:"failureDurationSeconds,omitempty"`
	// behavior is how the fallback picks its replicas once it applies, as KEDA's
	// fallback.behavior: Static (replicas), CurrentReplicas (the current replicas),
	// CurrentReplicasIfHigher (the larger of the two: it may raise the replicas, never lower
	// them; the default) or CurrentReplicasIfLower (the smaller: it may lower them, never
	// raise them).
	// +optional
	// +kubebuilder:default=CurrentReplicasIfHigher
	Behavior FallbackBehavior `json:"behavior,omitempty"`
	// replicas the fallback falls back to, 0 to 1000; required with every behavior but
	// CurrentReplicas, which takes none.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	Replicas *int32 `json:"replicas,omitempty"`
}

// SeedAutoscalerBehavior configures scaling up and down, as autoscaling/v2 does.
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:XValidation:rule="!has(self.scaleUp) || !has(self.scaleUp.consolidation)",message="spec.behavior.scaleUp.consolidation is not allowed: consolidation drains seeds to scale down, set it under spec.behavior.scaleDown"
type SeedAutoscalerBehavior struct {
	// scaleUp rules; default: no stabilization, at most 4 seeds or 100% per 15 s, the larger.
	// +optional
	ScaleUp *ScalingRules `json:"scaleUp,omitempty,omitzero"`
	// scaleDown rules; default: 300 s stabilization, at most 100% per 15 s.
	// +optional
	ScaleDown *ScalingRules `json:"scaleDown,omitempty,omitzero"`
}

// ScalingPolicySelect chooses among policies.
// +kubebuilder:validation:Enum=Max;Min;Disabled
type ScalingPolicySelect string

// The ways of choosing among scaling policies.
const (
	MaxChangePolicySelect ScalingPolicySelect = "Max"
	MinChangePolicySelect ScalingPolicySelect = "Min"
	DisabledPolicySelect  ScalingPolicySelect = "Disabled"
)

// ScalingRules configure one direction of scaling.
// +kubebuilder:validation:MinProperties=1
type ScalingRules struct {
	// stabilizationWindowSeconds is the window whose most conservative recommendation is used.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	StabilizationWindowSeconds *int32 `json:"stabilizationWindowSeconds,omitempty"`
	// selectPolicy picks the policy: Max (default), Min or Disabled.
	// +optional
	SelectPolicy *ScalingPolicySelect `json:"selectPolicy,omitempty"`
	// policies bounding the change per period.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	Policies []ScalingPolicy `json:"policies,omitempty"`
	// tolerance is the relative deviation from the target that causes no scaling in this
	// direction (KEP-4951), for example "0.05"; 0.1 when unset.
	// +optional
	// +kubebuilder:validation:XValidation:rule="type(self) != string || !self.matches('[eE][+-]?([0-9]{4}|[0-9]*[.])')",message="tolerance must be a quantity such as 0.05, 50m or 5e-2, with a whole exponent of at most 3 digits (1e3, not 1e1000)"
	// +kubebuilder:validation:XValidation:rule="(type(self) == string && self.matches('[eE][+-]?([0-9]{4}|[0-9]*[.])')) || !quantity(string(self)).isLessThan(quantity('0'))",message="tolerance must not be negative, e.g. \"0.05\""
	Tolerance *resource.Quantity `json:"tolerance,omitempty"`
	// consolidation opts in to draining seeds of a set that is above its needs but cannot
	// shrink because its seeds host shoots; under scaleDown only.
	// +optional
	Consolidation *Consolidation `json:"consolidation,omitempty,omitzero"`
}

// ScalingPolicyType is the unit of a scaling policy.
// +kubebuilder:validation:Enum=Replicas;Percent
type ScalingPolicyType string

// The units of a scaling policy.
const (
	ReplicasScalingPolicy ScalingPolicyType = "Replicas"
	PercentScalingPolicy  ScalingPolicyType = "Percent"
)

// ScalingPolicy bounds the change of replicas over a period.
type ScalingPolicy struct {
	// type is Replicas or Percent.
	// +required
	Type ScalingPolicyType `json:"type,omitempty"`
	// value is the number of replicas or the percentage; greater than zero.
	// +required
	// +kubebuilder:validation:Minimum=1
	Value int32 `json:"value,omitempty"`
	// periodSeconds is the window the policy holds over; 1 to 1800.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1800
	PeriodSeconds int32 `json:"periodSeconds,omitempty"`
}

// SeedAutoscalerStatus is the observed state of a SeedAutoscaler.
type SeedAutoscalerStatus struct {
	// conditions are AbleToScale, ScalingActive, ScalingLimited, ScaledToZero, and
	// ScaleAheadActive, DirectionPaused and DisruptionBudgetsValid while they apply.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// observedGeneration is the generation of the spec the status reflects.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// lastScaleTime is when the autoscaler last changed the target's replicas.
	// +optional
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty"`
	// reference is the target as Kind/Name, for kubectl, e.g. ManagedSeedSet/demo.
	// +optional
	// +kubebuilder:validation:MaxLength=320
	Reference string `json:"reference,omitempty"`
	// currentReplicas is the target's replicas as last seen.
	// +optional
	CurrentReplicas int32 `json:"currentReplicas"`
	// desiredReplicas is the replicas the autoscaler last decided on.
	// +optional
	DesiredReplicas int32 `json:"desiredReplicas"`
	// currentMetrics are the last values of the metrics.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	CurrentMetrics []MetricStatus `json:"currentMetrics,omitempty"`
	// targets summarizes current and target values for kubectl, e.g. "45%/50%".
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Targets string `json:"targets,omitempty"`
	// recommendations of the stabilization windows, kept here rather than in memory so
	// that a restarted or failed-over autoscaler decides the same.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=512
	Recommendations []TimestampedRecommendation `json:"recommendations,omitempty"`
	// scaleEvents are the recent replica changes the scaling policies are measured against.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=512
	ScaleEvents []ScaleEvent `json:"scaleEvents,omitempty"`
	// metricFailures record since when each failing metric has been unavailable, and
	// whether and since when its fallback applies.
	// +optional
	// +listType=map
	// +listMapKey=metric
	// +kubebuilder:validation:MaxItems=8
	MetricFailures []MetricFailure `json:"metricFailures,omitempty"`
	// scaleAhead is what the forecasts of spec.scaleAhead said at the last evaluation, and
	// the state their accuracy and stabilization are judged by across restarts.
	// +optional
	ScaleAhead *ScaleAheadStatus `json:"scaleAhead,omitempty"`
	// consolidation is the state of spec.behavior.scaleDown.consolidation.
	// +optional
	Consolidation *ConsolidationStatus `json:"consolidation,omitempty"`
	// headroom is what spec.headroom asked for at the last evaluation.
	// +optional
	Headroom *HeadroomStatus `json:"headroom,omitempty"`
}

// HeadroomStatus is what spec.headroom asked for at the last evaluation.
type HeadroomStatus struct {
	// freeShoots are the free shoot slots across the target's ready seeds with a usage
	// sample: allocatable less shoots; unset when unknown.
	// +optional
	FreeShoots *int32 `json:"freeShoots,omitempty"`
	// replicas the headroom asks for: the fewest that keep spec.headroom.shoots slots free,
	// before the scaling policies and minReplicas and maxReplicas; unset when unknown.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
	// message says how replicas follow from the free slots, or why they are unknown.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`
}

// LeadTimeSource says where the lead time in use comes from.
// +kubebuilder:validation:Enum=Spec;Measured;Default
type LeadTimeSource string

const (
	// LeadTimeFromSpec means the lead time is spec.scaleAhead.leadTimeSeconds.
	LeadTimeFromSpec LeadTimeSource = "Spec"
	// LeadTimeMeasured means the lead time is the largest of the provisioning times measured recently.
	LeadTimeMeasured LeadTimeSource = "Measured"
	// LeadTimeDefault means nothing was measured yet, so the lead time is 900 seconds.
	LeadTimeDefault LeadTimeSource = "Default"
)

// ScaleAheadReason says what became of the forecast in the last decision, or why it was
// not used.
// +kubebuilder:validation:Enum=ScaledOutAhead;HeldScaleIn;ReactiveWins;ForecastMissing;ForecastNotFinite;ForecastNegative;ForecastAbsurd;SeedSizeUnknown;ForecastInaccurate;ForecastOnly
type ScaleAheadReason string

// ScaleAheadStatus is the state of scaling ahead.
type ScaleAheadStatus struct {
	// mode is spec.scaleAhead.mode at the last evaluation: ForecastOnly or ForecastAndScale.
	// +optional
	Mode ScaleAheadMode `json:"mode,omitempty"`
	// leadTimeSeconds is the lead time in use.
	// +optional
	LeadTimeSeconds int32 `json:"leadTimeSeconds,omitempty"`
	// leadTimeSource says where leadTimeSeconds comes from: Spec, Measured or Default.
	// +optional
	LeadTimeSource LeadTimeSource `json:"leadTimeSource,omitempty"`
	// provisioningTimes are the recent measured times from a new replica's ManagedSeed to
	// its ready Seed, newest last.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	ProvisioningTimes []ProvisioningTime `json:"provisioningTimes,omitempty"`
	// demand is the demand now: shoots on the target's seeds plus pending; unset when
	// unknown.
	// +optional
	// +kubebuilder:validation:XValidation:rule="type(self) != string || !self.matches('[eE][+-]?([0-9]{4}|[0-9]*[.])')",message="status.scaleAhead.demand must be a quantity such as 120 or 1.5k, with a whole exponent of at most 3 digits (1e3, not 1e1000)"
	Demand *resource.Quantity `json:"demand,omitempty"`
	// forecasts are each forecast's value and accuracy.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=2
	Forecasts []ForecastStatus `json:"forecasts,omitempty"`
	// forecastReplicas are the replicas the forecast asked for after its stabilization
	// window and the scale-up policies; unset when it could not be used. In ForecastOnly
	// mode they are not applied: the target would have had the larger of them and
	// desiredReplicas.
	// +optional
	ForecastReplicas *int32 `json:"forecastReplicas,omitempty"`
	// reason is what became of the forecast: ScaledOutAhead, HeldScaleIn, ReactiveWins, or
	// why it was not used (ForecastMissing, ForecastNotFinite, ForecastNegative,
	// ForecastAbsurd, SeedSizeUnknown, ForecastInaccurate); ForecastOnly in that mode,
	// with the message saying what it would have been.
	// +optional
	Reason ScaleAheadReason `json:"reason,omitempty"`
	// message says why, in a sentence.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`
	// recommendations of the forecast's own stabilization windows.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=512
	Recommendations []TimestampedRecommendation `json:"recommendations,omitempty"`
}

// ProvisioningTime is how long one new replica took to accept shoots.
type ProvisioningTime struct {
	// managedSeed names the replica.
	// +required
	// +kubebuilder:validation:MaxLength=253
	ManagedSeed string `json:"managedSeed"`
	// seconds from the ManagedSeed's creation until its Seed was ready.
	// +required
	Seconds int32 `json:"seconds"`
	// readyTime is when the Seed became ready.
	// +required
	ReadyTime metav1.Time `json:"readyTime"`
}

// ForecastStatus is one forecast's value and the state of its accuracy check.
type ForecastStatus struct {
	// type of the forecast.
	// +required
	Type ForecastType `json:"type"`
	// demand is the forecast demand at the lead time, in shoots; unset when the forecast
	// could not be read.
	// +optional
	// +kubebuilder:validation:XValidation:rule="type(self) != string || !self.matches('[eE][+-]?([0-9]{4}|[0-9]*[.])')",message="forecasts[].demand must be a quantity such as 120 or 1.5k, with a whole exponent of at most 3 digits (1e3, not 1e1000)"
	Demand *resource.Quantity `json:"demand,omitempty"`
	// message says why the forecast could not be read, or how accurate it has been.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`
	// inaccurate is true while the accuracy check holds the forecast off.
	// +optional
	Inaccurate bool `json:"inaccurate,omitempty"`
	// streakStartTime is when the forecast began to miss the demand (while it is on) or to
	// meet it again (while it is off); unset without such a streak.
	// +optional
	StreakStartTime *metav1.Time `json:"streakStartTime,omitempty"`
	// predictions are the recent forecasts not yet judged, each for the time it predicts.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Predictions []ForecastPrediction `json:"predictions,omitempty"`
	// lastJudged is the prediction judged last: the demand the forecast, made a lead time
	// earlier, predicted for the time it came due; compare it with status.scaleAhead.demand.
	// +optional
	LastJudged *ForecastPrediction `json:"lastJudged,omitempty"`
	// meanAbsolutePercentageError is how far the forecast has been off over the accuracy
	// window, in percent: the mean of |predicted − demand| / demand over the predictions
	// judged in it, the demand counting as at least one seed at the target and each error
	// at most 1000%. Unset until a prediction was judged in the window.
	// +optional
	MeanAbsolutePercentageError *int32 `json:"meanAbsolutePercentageError,omitempty"`
	// judgedPredictions is how many predictions meanAbsolutePercentageError is the mean of.
	// +optional
	JudgedPredictions int32 `json:"judgedPredictions,omitempty"`
	// errors are the errors judged over the accuracy window, in twelve consecutive
	// buckets, oldest first: the state meanAbsolutePercentageError is computed from across
	// restarts.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=13
	Errors []ForecastErrorBucket `json:"errors,omitempty"`
}

// ForecastErrorBucket sums the errors of the predictions judged in a span of the accuracy
// window (a twelfth of it) from its start.
type ForecastErrorBucket struct {
	// startTime is when the first of its predictions was judged.
	// +required
	StartTime metav1.Time `json:"startTime"`
	// count is how many predictions were judged.
	// +required
	Count int32 `json:"count"`
	// percentSum is the sum of their absolute errors in whole percent, each at most 1000.
	// +required
	PercentSum int64 `json:"percentSum"`
}

// ForecastPrediction is a forecast of the demand at a future time.
type ForecastPrediction struct {
	// time the forecast is for.
	// +required
	Time metav1.Time `json:"time"`
	// demand forecast for that time, in shoots.
	// +required
	// +kubebuilder:validation:XValidation:rule="type(self) != string || !self.matches('[eE][+-]?([0-9]{4}|[0-9]*[.])')",message="the demand of a prediction must be a quantity such as 120 or 1.5k, with a whole exponent of at most 3 digits (1e3, not 1e1000)"
	Demand resource.Quantity `json:"demand"`
}

// MetricStatus is the last value of one metric.
type MetricStatus struct {
	// type of the metric.
	// +required
	Type MetricSourceType `json:"type"`
	// resource is the value of a Resource metric.
	// +optional
	Resource *ResourceMetricStatus `json:"resource,omitempty"`
}

// ResourceMetricStatus is the value of a seed resource metric.
type ResourceMetricStatus struct {
	// name of the resource.
	// +required
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// current value of the resource.
	// +required
	Current MetricValueStatus `json:"current"`
}

// MetricValueStatus is a metric's current value.
type MetricValueStatus struct {
	// value is the total usage over the seeds.
	// +optional
	// +kubebuilder:validation:XValidation:rule="type(self) != string || !self.matches('[eE][+-]?([0-9]{4}|[0-9]*[.])')",message="current.value must be a quantity such as 120 or 1.5k, with a whole exponent of at most 3 digits (1e3, not 1e1000)"
	Value *resource.Quantity `json:"value,omitempty"`
	// averageValue is the average usage per seed.
	// +optional
	// +kubebuilder:validation:XValidation:rule="type(self) != string || !self.matches('[eE][+-]?([0-9]{4}|[0-9]*[.])')",message="current.averageValue must be a quantity such as 40 or 1.5k, with a whole exponent of at most 3 digits (1e3, not 1e1000)"
	AverageValue *resource.Quantity `json:"averageValue,omitempty"`
	// averageUtilization is the usage in percent of allocatable.
	// +optional
	AverageUtilization *int32 `json:"averageUtilization,omitempty"`
}

// TimestampedRecommendation is a replica recommendation and when it was made.
type TimestampedRecommendation struct {
	// timestamp of the recommendation.
	// +required
	Timestamp metav1.Time `json:"timestamp"`
	// replicas recommended.
	// +required
	Replicas int32 `json:"replicas"`
}

// ScaleEvent is a change of replicas made by the autoscaler.
type ScaleEvent struct {
	// timestamp of the change.
	// +required
	Timestamp metav1.Time `json:"timestamp"`
	// replicaChange is the signed change: positive for up, negative for down.
	// +required
	ReplicaChange int32 `json:"replicaChange"`
}

// MetricFailure records since when a metric has been unavailable, and whether and since
// when its fallback applies.
type MetricFailure struct {
	// metric names the failing metric, for example resource/shoots.
	// +required
	// +kubebuilder:validation:MaxLength=300
	Metric string `json:"metric"`
	// since when the metric has been unavailable.
	// +required
	Since metav1.Time `json:"since"`
	// fallbackActiveSince is when the metric's fallback began to apply: the first
	// evaluation at least failureDurationSeconds after since. Set while the fallback
	// applies, unset while it does not (no fallback, or not failing for long enough yet).
	// +optional
	FallbackActiveSince *metav1.Time `json:"fallbackActiveSince,omitempty"`
	// fallbackReplicas are the replicas the fallback proposed at the last evaluation, by
	// its behavior; set while it applies.
	// +optional
	FallbackReplicas *int32 `json:"fallbackReplicas,omitempty"`
}
