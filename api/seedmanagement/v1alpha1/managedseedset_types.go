package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// ManagedSeedSet condition types.
const (
	// ManagedSeedSetScaleInBlocked is True while fewer replicas can be removed than a
	// scale-in asks for (they still host shoots or are protected from deletion).
	ManagedSeedSetScaleInBlocked = "ScaleInBlocked"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:resource:shortName=mss
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=`.status.replicas`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Pending",type=string,JSONPath=`.status.pendingReplica.name`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// ManagedSeedSet maintains a number of identical ManagedSeeds, each on its own Shoot.
type ManagedSeedSet struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the set.
	// +required
	Spec ManagedSeedSetSpec `json:"spec,omitzero"`
	// status is the observed state of the set.
	// +optional
	Status ManagedSeedSetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ManagedSeedSetList is a list of ManagedSeedSets.
type ManagedSeedSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ManagedSeedSet `json:"items"`
}

// ManagedSeedSetSpec is the specification of a ManagedSeedSet.
//
// The selector must select every replica the set creates, so it must match the labels of
// the ManagedSeed template, the Shoot template and the seed template inside the ManagedSeed
// template: the seeds of a set are found with it (scale subresource, autoscaler).
// +kubebuilder:validation:XValidation:rule="(has(self.selector.matchLabels) && size(self.selector.matchLabels) > 0) || (has(self.selector.matchExpressions) && size(self.selector.matchExpressions) > 0)",message="spec.selector must not be empty: give it matchLabels that the templates carry"
// +kubebuilder:validation:XValidation:rule="(!has(self.selector.matchLabels) || self.selector.matchLabels.all(k, (has(self.template.metadata) && has(self.template.metadata.labels)) && k in self.template.metadata.labels && self.template.metadata.labels[k] == self.selector.matchLabels[k])) && (!has(self.selector.matchExpressions) || self.selector.matchExpressions.all(e, e.operator == 'In' ? ((has(self.template.metadata) && has(self.template.metadata.labels)) && e.key in self.template.metadata.labels && e.values.exists(v, v == self.template.metadata.labels[e.key])) : e.operator == 'NotIn' ? (!((has(self.template.metadata) && has(self.template.metadata.labels))) || !(e.key in self.template.metadata.labels) || !e.values.exists(v, v == self.template.metadata.labels[e.key])) : e.operator == 'Exists' ? ((has(self.template.metadata) && has(self.template.metadata.labels)) && e.key in self.template.metadata.labels) : (!((has(self.template.metadata) && has(self.template.metadata.labels))) || !(e.key in self.template.metadata.labels))))",message="spec.selector does not match spec.template.metadata.labels: add the selector's labels to the ManagedSeed template"
// +kubebuilder:validation:XValidation:rule="(!has(self.selector.matchLabels) || self.selector.matchLabels.all(k, (has(self.shootTemplate.metadata) && has(self.shootTemplate.metadata.labels)) && k in self.shootTemplate.metadata.labels && self.shootTemplate.metadata.labels[k] == self.selector.matchLabels[k])) && (!has(self.selector.matchExpressions) || self.selector.matchExpressions.all(e, e.operator == 'In' ? ((has(self.shootTemplate.metadata) && has(self.shootTemplate.metadata.labels)) && e.key in self.shootTemplate.metadata.labels && e.values.exists(v, v == self.shootTemplate.metadata.labels[e.key])) : e.operator == 'NotIn' ? (!((has(self.shootTemplate.metadata) && has(self.shootTemplate.metadata.labels))) || !(e.key in self.shootTemplate.metadata.labels) || !e.values.exists(v, v == self.shootTemplate.metadata.labels[e.key])) : e.operator == 'Exists' ? ((has(self.shootTemplate.metadata) && has(self.shootTemplate.metadata.labels)) && e.key in self.shootTemplate.metadata.labels) : (!((has(self.shootTemplate.metadata) && has(self.shootTemplate.metadata.labels))) || !(e.key in self.shootTemplate.metadata.labels))))",message="spec.selector does not match spec.shootTemplate.metadata.labels: add the selector's labels to the Shoot template"
// +kubebuilder:validation:XValidation:rule="!(has(self.template.spec.seedTemplate)) || ((!has(self.selector.matchLabels) || self.selector.matchLabels.all(k, (has(self.template.spec.seedTemplate.metadata) && has(self.template.spec.seedTemplate.metadata.labels)) && k in self.template.spec.seedTemplate.metadata.labels && self.template.spec.seedTemplate.metadata.labels[k] == self.selector.matchLabels[k])) && (!has(self.selector.matchExpressions) || self.selector.matchExpressions.all(e, e.operator == 'In' ? ((has(self.template.spec.seedTemplate.metadata) && has(self.template.spec.seedTemplate.metadata.labels)) && e.key in self.template.spec.seedTemplate.metadata.labels && e.values.exists(v, v == self.template.spec.seedTemplate.metadata.labels[e.key])) : e.operator == 'NotIn' ? (!((has(self.template.spec.seedTemplate.metadata) && has(self.template.spec.seedTemplate.metadata.labels))) || !(e.key in self.template.spec.seedTemplate.metadata.labels) || !e.values.exists(v, v == self.template.spec.seedTemplate.metadata.labels[e.key])) : e.operator == 'Exists' ? ((has(self.template.spec.seedTemplate.metadata) && has(self.template.spec.seedTemplate.metadata.labels)) && e.key in self.template.spec.seedTemplate.metadata.labels) : (!((has(self.template.spec.seedTemplate.metadata) && has(self.template.spec.seedTemplate.metadata.labels))) || !(e.key in self.template.spec.seedTemplate.metadata.labels)))))",message="spec.selector does not match spec.template.spec.seedTemplate.metadata.labels, the labels of the seed template: add the selector's labels to it"
// +kubebuilder:validation:XValidation:rule="!(has(self.template.spec.gardenlet) && has(self.template.spec.gardenlet.config) && has(self.template.spec.gardenlet.config.seedConfig)) || ((!has(self.selector.matchLabels) || self.selector.matchLabels.all(k, (has(self.template.spec.gardenlet.config.seedConfig.metadata) && has(self.template.spec.gardenlet.config.seedConfig.metadata.labels)) && k in self.template.spec.gardenlet.config.seedConfig.metadata.labels && self.template.spec.gardenlet.config.seedConfig.metadata.labels[k] == self.selector.matchLabels[k])) && (!has(self.selector.matchExpressions) || self.selector.matchExpressions.all(e, e.operator == 'In' ? ((has(self.template.spec.gardenlet.config.seedConfig.metadata) && has(self.template.spec.gardenlet.config.seedConfig.metadata.labels)) && e.key in self.template.spec.gardenlet.config.seedConfig.metadata.labels && e.values.exists(v, v == self.template.spec.gardenlet.config.seedConfig.metadata.labels[e.key])) : e.operator == 'NotIn' ? (!((has(self.template.spec.gardenlet.config.seedConfig.metadata) && has(self.template.spec.gardenlet.config.seedConfig.metadata.labels))) || !(e.key in self.template.spec.gardenlet.config.seedConfig.metadata.labels) || !e.values.exists(v, v == self.template.spec.gardenlet.config.seedConfig.metadata.labels[e.key])) : e.operator == 'Exists' ? ((has(self.template.spec.gardenlet.config.seedConfig.metadata) && has(self.template.spec.gardenlet.config.seedConfig.metadata.labels)) && e.key in self.template.spec.gardenlet.config.seedConfig.metadata.labels) : (!((has(self.template.spec.gardenlet.config.seedConfig.metadata) && has(self.template.spec.gardenlet.config.seedConfig.metadata.labels))) || !(e.key in self.template.spec.gardenlet.config.seedConfig.metadata.labels)))))",message="spec.selector does not match spec.template.spec.gardenlet.config.seedConfig.metadata.labels, the labels of the seed template: add the selector's labels to it"
type ManagedSeedSetSpec struct {
	// replicas is the desired number of replicas (ManagedSeeds with their Shoots), 0 to 1000.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	Replicas *int32 `json:"replicas,omitempty"`
	// selector selects the set's ManagedSeeds, Shoots and Seeds. It cannot change.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.selector is immutable: create a new ManagedSeedSet to select other replicas"
	Selector LabelSelector `json:"selector,omitempty"`
	// template is the ManagedSeed each replica gets; spec.shoot is filled in by the controller.
	// +required
	Template ManagedSeedTemplate `json:"template,omitempty,omitzero"`
	// shootTemplate is the Shoot each replica's seed runs on.
	// +required
	ShootTemplate gardencorev1beta1.ShootTemplate `json:"shootTemplate,omitempty"`
	// updateStrategy says how template changes reach existing replicas.
	// +optional
	// +kubebuilder:default={type: "RollingUpdate"}
	UpdateStrategy *UpdateStrategy `json:"updateStrategy,omitempty"`
	// revisionHistoryLimit is how many old ControllerRevisions are kept for rollbacks.
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=0
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
}

// ManagedSeedTemplate is a template for a ManagedSeed.
type ManagedSeedTemplate struct {
	// metadata holds the labels and annotations of the ManagedSeed.
	// +optional
	gardencorev1beta1.ObjectMetaTemplate `json:"metadata,omitempty"`
	// spec is the spec of the ManagedSeed.
	// +required
	Spec ManagedSeedSpec `json:"spec,omitempty"`
}

// UpdateStrategyType is the kind of update strategy; only RollingUpdate exists.
// +kubebuilder:validation:Enum=RollingUpdate
type UpdateStrategyType string

// RollingUpdateStrategyType updates replicas one at a time, from the highest ordinal down.
const RollingUpdateStrategyType UpdateStrategyType = "RollingUpdate"

// UpdateStrategy says how template changes reach existing replicas.
type UpdateStrategy struct {
	// type of the strategy; RollingUpdate is the only one.
	// +optional
	// +kubebuilder:default=RollingUpdate
	Type *UpdateStrategyType `json:"type,omitempty"`
	// rollingUpdate configures the RollingUpdate strategy.
	// +optional
	// +kubebuilder:default={}
	RollingUpdate *RollingUpdateStrategy `json:"rollingUpdate,omitempty"`
}

// RollingUpdateStrategy configures a rolling update.
type RollingUpdateStrategy struct {
	// partition means only replicas with an ordinal >= partition are updated (phased rollouts, canaries).
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	Partition *int32 `json:"partition,omitempty"`
}

// PendingReplicaReason says why a replica is still in flight.
// +kubebuilder:validation:Enum=ShootReconciling;ShootDeleting;ShootReconcileFailed;ShootDeleteFailed;ManagedSeedPreparing;ManagedSeedDeleting;SeedNotReady;ShootNotHealthy
type PendingReplicaReason string

// The reasons a replica can be pending for.
const (
	ShootReconcilingReason     PendingReplicaReason = "ShootReconciling"
	ShootDeletingReason        PendingReplicaReason = "ShootDeleting"
	ShootReconcileFailedReason PendingReplicaReason = "ShootReconcileFailed"
	ShootDeleteFailedReason    PendingReplicaReason = "ShootDeleteFailed"
	ManagedSeedPreparingReason PendingReplicaReason = "ManagedSeedPreparing"
	ManagedSeedDeletingReason  PendingReplicaReason = "ManagedSeedDeleting"
	SeedNotReadyReason         PendingReplicaReason = "SeedNotReady"
	ShootNotHealthyReason      PendingReplicaReason = "ShootNotHealthy"
)

// PendingReplica is the one replica a set has in flight.
type PendingReplica struct {
	// name of the replica (its ManagedSeed and Shoot).
	// +required
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// reason the replica is pending.
	// +required
	Reason PendingReplicaReason `json:"reason,omitempty"`
	// since when the replica has been pending for this reason.
	// +required
	Since metav1.Time `json:"since,omitzero"`
	// retries of the replica's failed shoot so far.
	// +optional
	Retries *int32 `json:"retries,omitempty"`
}

// ManagedSeedSetStatus is the observed state of a ManagedSeedSet.
type ManagedSeedSetStatus struct {
	// observedGeneration is the generation of the spec the status reflects.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// replicas is the number of replicas the set has (created and not being deleted).
	// +optional
	Replicas int32 `json:"replicas"`
	// readyReplicas is the number of replicas whose Shoot and Seed are ready.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// nextReplicaNumber is the ordinal the next replica gets; ordinals are never reused.
	// +optional
	NextReplicaNumber int32 `json:"nextReplicaNumber,omitempty"`
	// currentReplicas is the number of replicas at currentRevision.
	// +optional
	CurrentReplicas int32 `json:"currentReplicas,omitempty"`
	// updatedReplicas is the number of replicas at updateRevision.
	// +optional
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty"`
	// currentRevision is the revision of the templates the replicas below the partition run.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	CurrentRevision string `json:"currentRevision,omitempty"`
	// updateRevision is the revision of the current templates.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	UpdateRevision string `json:"updateRevision,omitempty"`
	// collisionCount counts hash collisions of ControllerRevision names.
	// +optional
	CollisionCount *int32 `json:"collisionCount,omitempty"`
	// conditions of the set.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// pendingReplica is the replica in flight, if any.
	// +optional
	PendingReplica *PendingReplica `json:"pendingReplica,omitempty"`
	// selector is spec.selector as a string, for the scale subresource.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	Selector string `json:"selector,omitempty"`
}

// LabelSelector has the shape of metav1.LabelSelector with bounded sizes, so that the CEL
// rules matching it against the templates stay within the apiserver's cost budget.
type LabelSelector struct {
	// matchLabels means every label must be present with the given value.
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	MatchLabels map[string]LabelValue `json:"matchLabels,omitempty"`
	// matchExpressions means every expression must hold.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is one expression of a LabelSelector.
type LabelSelectorRequirement struct {
	// key is the label key the expression applies to.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=316
	Key string `json:"key,omitempty"`
	// operator is In, NotIn, Exists or DoesNotExist.
	// +required
	// +kubebuilder:validation:Enum=In;NotIn;Exists;DoesNotExist
	Operator metav1.LabelSelectorOperator `json:"operator,omitempty"`
	// values for In and NotIn; empty for Exists and DoesNotExist.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=63
	Values []string `json:"values,omitempty"`
}

// LabelValue is the value of a label, bounded like Kubernetes label values.
// +kubebuilder:validation:MaxLength=63
type LabelValue string

// AsMetav1 returns the selector as a metav1.LabelSelector, for the label selector helpers.
func (s *LabelSelector) AsMetav1() *metav1.LabelSelector {
	out := &metav1.LabelSelector{}
	if s.MatchLabels != nil {
		out.MatchLabels = make(map[string]string, len(s.MatchLabels))
		for k, v := range s.MatchLabels {
			out.MatchLabels[k] = string(v)
		}
	}
	for _, r := range s.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: r.Key, Operator: r.Operator, Values: r.Values,
		})
	}
	return out
}
