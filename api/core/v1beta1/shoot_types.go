package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ShootPurpose is the purpose of a shoot cluster.
// +kubebuilder:validation:Enum=evaluation;testing;development;production;infrastructure
type ShootPurpose string

// The purposes a shoot can have.
const (
	ShootPurposeEvaluation     ShootPurpose = "evaluation"
	ShootPurposeTesting        ShootPurpose = "testing"
	ShootPurposeDevelopment    ShootPurpose = "development"
	ShootPurposeProduction     ShootPurpose = "production"
	ShootPurposeInfrastructure ShootPurpose = "infrastructure"
)

// FailureToleranceType is the failure a highly available control plane tolerates.
// +kubebuilder:validation:Enum=node;zone
type FailureToleranceType string

// The failures a highly available control plane can tolerate.
const (
	FailureToleranceTypeNode FailureToleranceType = "node"
	FailureToleranceTypeZone FailureToleranceType = "zone"
)

// DefaultSchedulerName is the scheduler responsible for shoots that name none.
const DefaultSchedulerName = "default-scheduler"

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=shoot
// +kubebuilder:selectablefield:JSONPath=`.spec.seedName`
// +kubebuilder:selectablefield:JSONPath=`.status.seedName`
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.provider.type`
// +kubebuilder:printcolumn:name="Region",type=string,JSONPath=`.spec.region`
// +kubebuilder:printcolumn:name="Seed",type=string,JSONPath=`.spec.seedName`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.lastOperation.state`
// +kubebuilder:printcolumn:name="Operation",type=string,JSONPath=`.status.lastOperation.type`,priority=1
// +kubebuilder:printcolumn:name="Purpose",type=string,JSONPath=`.spec.purpose`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Shoot is a Kubernetes cluster whose control plane runs on a seed.
type Shoot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the shoot.
	// +required
	Spec ShootSpec `json:"spec"`
	// status is the observed state of the shoot.
	// +optional
	Status ShootStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ShootList is a list of Shoots.
type ShootList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Shoot `json:"items"`
}

// ShootTemplate is a template for a Shoot: the labels and annotations of its metadata and its spec.
type ShootTemplate struct {
	// metadata holds the labels and annotations of the Shoot.
	// +optional
	ObjectMetaTemplate `json:"metadata,omitempty"`
	// spec is the spec of the Shoot.
	// +required
	Spec ShootSpec `json:"spec"`
}

// ShootSpec is the specification of a Shoot.
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.seedName) || has(self.seedName)",message="spec.seedName cannot be removed once set; to move the shoot, set spec.seedName to another seed (a control plane migration)"
type ShootSpec struct {
	// cloudProfileName is the name of the CloudProfile the shoot uses.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	CloudProfileName *string `json:"cloudProfileName,omitempty"`
	// controlPlane configures the shoot's control plane.
	// +optional
	ControlPlane *ControlPlane `json:"controlPlane,omitempty"`
	// kubernetes holds the shoot's Kubernetes settings.
	// +optional
	Kubernetes *Kubernetes `json:"kubernetes,omitempty"`
	// networking holds the shoot's networks.
	// +optional
	Networking *Networking `json:"networking,omitempty"`
	// provider describes the shoot's infrastructure.
	// +required
	Provider Provider `json:"provider"`
	// purpose of the shoot: evaluation, testing, development, production or infrastructure.
	// +optional
	Purpose *ShootPurpose `json:"purpose,omitempty"`
	// region the shoot's worker nodes run in.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Region string `json:"region"`
	// secretBindingName refers to the infrastructure credentials of the shoot.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SecretBindingName *string `json:"secretBindingName,omitempty"`
	// seedName is the seed the shoot's control plane runs on. Set by the scheduler, or by
	// someone allowed to bind shoots. Changing it migrates the control plane to the new seed
	// (status.seedName names the old one until the migration ends); it cannot be removed.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SeedName *string `json:"seedName,omitempty"`
	// seedSelector restricts the seeds the shoot may be scheduled onto.
	// +optional
	SeedSelector *SeedSelector `json:"seedSelector,omitempty"`
	// tolerations of seed taints.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +kubebuilder:validation:MaxItems=32
	Tolerations []Toleration `json:"tolerations,omitempty"`
	// schedulerName is the scheduler responsible for the shoot; default-scheduler when empty.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SchedulerName *string `json:"schedulerName,omitempty"`
}

// ControlPlane configures a shoot's control plane.
type ControlPlane struct {
	// highAvailability makes the control plane highly available.
	// +optional
	HighAvailability *HighAvailability `json:"highAvailability,omitempty"`
}

// HighAvailability configures a highly available control plane.
type HighAvailability struct {
	// failureTolerance is the failure the control plane tolerates.
	// +required
	FailureTolerance FailureTolerance `json:"failureTolerance"`
}

// FailureTolerance is the failure a control plane tolerates.
type FailureTolerance struct {
	// type is node or zone. A zone-tolerant control plane needs a seed with at least three zones.
	// +required
	Type FailureToleranceType `json:"type"`
}

// Kubernetes holds the Kubernetes settings of a shoot.
type Kubernetes struct {
	// version is the Kubernetes version of the shoot.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	Version string `json:"version,omitempty"`
}

// Networking holds the networks of a shoot.
type Networking struct {
	// type is the network plugin, for example calico or cilium.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Type *string `json:"type,omitempty"`
	// nodes is the CIDR of the shoot's node network.
	// +optional
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="spec.networking.nodes must be a CIDR such as 10.250.0.0/16"
	Nodes *string `json:"nodes,omitempty"`
	// pods is the CIDR of the shoot's pod network; the seed's shoot default when empty.
	// +optional
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="spec.networking.pods must be a CIDR such as 100.96.0.0/11"
	Pods *string `json:"pods,omitempty"`
	// services is the CIDR of the shoot's service network; the seed's shoot default when empty.
	// +optional
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="spec.networking.services must be a CIDR such as 100.64.0.0/13"
	Services *string `json:"services,omitempty"`
}

// Provider describes the infrastructure of a shoot.
type Provider struct {
	// type is the provider type, for example aws, azure or gcp.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Type string `json:"type"`
}

// Toleration tolerates a seed taint: by key, or by key and value.
type Toleration struct {
	// key of the tolerated taint.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=316
	Key string `json:"key"`
	// value of the tolerated taint; when empty, any value of the key is tolerated.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Value *string `json:"value,omitempty"`
}

// ShootStatus is the observed state of a Shoot.
type ShootStatus struct {
	// conditions of the shoot.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// lastOperation is the last operation on the shoot.
	// +optional
	LastOperation *LastOperation `json:"lastOperation,omitempty"`
	// seedName is the seed the shoot's control plane currently runs on. It differs from
	// spec.seedName while a control plane migrates; both seeds then count the shoot.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SeedName *string `json:"seedName,omitempty"`
	// observedGeneration is the generation of the spec the status reflects.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}
