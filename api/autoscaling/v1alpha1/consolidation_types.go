package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Consolidation drains seeds of a set that is above its needs but cannot shrink because its
// seeds host shoots: the cheapest seed to empty first, one at a time, within a budget of
// migrations.
// +kubebuilder:validation:MinProperties=1
type Consolidation struct {
	// windowSeconds is how long the set must have been above its needs (the autoscaler
	// wanting fewer seeds than the set can remove) before a seed is drained; 60 to 86400,
	// 1800 when unset.
	// +optional
	// +kubebuilder:validation:Minimum=60
	// +kubebuilder:validation:Maximum=86400
	WindowSeconds int32 `json:"windowSeconds,omitempty"`
	// maxMigrationsPerHour bounds the shoots consolidation moves per hour on average: a drain
	// of n shoots holds the next drain back for n/maxMigrationsPerHour hours from its start,
	// so a seed larger than the budget is drained all the same, only less often; 1 to 10000,
	// 20 when unset.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000
	MaxMigrationsPerHour int32 `json:"maxMigrationsPerHour,omitempty"`
	// shootCooldownSeconds is how long a shoot that was moved is not moved again: a seed
	// holding such a shoot is not drained; 0 to 604800, 86400 (a day) when unset.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=604800
	ShootCooldownSeconds *int32 `json:"shootCooldownSeconds,omitempty"`
}

// ConsolidationStatus is the state of consolidation.
type ConsolidationStatus struct {
	// aboveNeedsSince is when the set was first seen, without a break, above its needs with
	// too few removable seeds; unset while it is not.
	// +optional
	AboveNeedsSince *metav1.Time `json:"aboveNeedsSince,omitempty"`
	// drains are the seeds consolidation drained that the migration budget has not paid
	// for yet, and those it gave up within the last hour, newest last.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	Drains []ConsolidationDrain `json:"drains,omitempty"`
}

// ConsolidationDrain is one seed consolidation drained.
type ConsolidationDrain struct {
	// seed is the drained seed (its ManagedSeed's name).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Seed string `json:"seed,omitempty"`
	// shoots the seed held when its drain started: the migrations it costs.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Shoots *int32 `json:"shoots,omitempty"`
	// startTime is when the drain started.
	// +required
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// canceled says why consolidation gave the drain up (the scheduler found no place for
	// a shoot, or demand came back); empty while it runs or after it completed.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Canceled string `json:"canceled,omitempty"`
}
