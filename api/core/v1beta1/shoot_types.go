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
// +kubebuilder:validation:XValidation:rule="!has(self.cloudProfile) || !has(self.cloudProfileName) || !has(self.cloudProfile.kind) || self.cloudProfile.kind != 'CloudProfile' || self.cloudProfile.name == self.cloudProfileName",message="spec.cloudProfileName and spec.cloudProfile.name name different CloudProfiles: spec.cloudProfileName is deprecated, set spec.cloudProfile alone"
type ShootSpec struct {
	// accessRestrictions the shoot asks for, such as eu-access-only: only a seed that
	// supports every one of them (its spec.accessRestrictions) hosts the shoot.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	AccessRestrictions []AccessRestrictionWithOptions `json:"accessRestrictions,omitempty"`
	// cloudProfile refers to the CloudProfile, or the NamespacedCloudProfile in the shoot's
	// namespace, the shoot uses. It takes precedence over cloudProfileName.
	// +optional
	CloudProfile *CloudProfileReference `json:"cloudProfile,omitempty"`
	// cloudProfileName is the name of the CloudProfile the shoot uses. Deprecated: use
	// cloudProfile, which wins when both are set.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	CloudProfileName *string `json:"cloudProfileName,omitempty"`
	// controlPlane configures the shoot's control plane.
	// +optional
	ControlPlane *ControlPlane `json:"controlPlane,omitempty"`
	// dns holds the shoot's DNS settings.
	// +optional
	DNS *DNS `json:"dns,omitempty"`
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
	// zones pins the control plane to these zones of its seed: only a seed that has all of
	// them hosts the shoot. One zone, or three for a control plane that tolerates a zone
	// failure.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=3
	// +kubebuilder:validation:items:MaxLength=63
	Zones []string `json:"zones,omitempty"`
}

// DNS holds the DNS settings of a shoot.
type DNS struct {
	// domain of the shoot's API server. A domain below a default domain of seeds (a Seed's
	// spec.dns.defaults), named <shoot>.<project>.<default domain>, is hosted only by seeds
	// with that default domain.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Domain *string `json:"domain,omitempty"`
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

// IPFamily is an IP protocol version of a shoot's networks.
// +kubebuilder:validation:Enum=IPv4;IPv6
type IPFamily string

// The IP families a shoot's networks can have.
const (
	IPFamilyIPv4 IPFamily = "IPv4"
	IPFamilyIPv6 IPFamily = "IPv6"
)

// Networking holds the networks of a shoot.
type Networking struct {
	// ipFamilies are the IP protocol versions of the shoot's networks; IPv4 when empty. A
	// seed's shoot default network is taken only when its family is among them.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=2
	IPFamilies []IPFamily `json:"ipFamilies,omitempty"`
	// type is the network plugin, for example calico or cilium.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Type *string `json:"type,omitempty"`
	// nodes is the CIDR of the shoot's node network.
	// +optional
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self)",message="spec.networking.nodes must be a CIDR such as 10.250.0.0/16"
	Nodes *string `json:"nodes,omitempty"`
	// pods is the CIDR of the shoot's pod network; the seed's shoot default when empty and
	// the shoot has workers.
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
	// workers are the shoot's worker pools; a shoot without any is workerless.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	Workers []Worker `json:"workers,omitempty"`
}

// Worker is a worker pool of a shoot.
type Worker struct {
	// name of the worker pool.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=15
	Name string `json:"name"`
	// machine of the pool's nodes.
	// +required
	Machine Machine `json:"machine"`
	// maximum number of nodes of the pool.
	// +required
	// +kubebuilder:validation:Minimum=0
	Maximum int32 `json:"maximum"`
	// minimum number of nodes of the pool.
	// +required
	// +kubebuilder:validation:Minimum=0
	Minimum int32 `json:"minimum"`
	// zones the pool's nodes run in. A seed with zoneSelection takes them as a hint where the
	// control plane goes (spec.settings.zoneSelection of the Seed).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=63
	Zones []string `json:"zones,omitempty"`
}

// Machine is the machine of a worker pool's nodes.
type Machine struct {
	// type is the machine type, as the CloudProfile names it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Type string `json:"type"`
	// image is the machine image; the CloudProfile's default when empty.
	// +optional
	Image *ShootMachineImage `json:"image,omitempty"`
}

// ShootMachineImage is the machine image of a worker pool's nodes.
type ShootMachineImage struct {
	// name of the image.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// version of the image; the CloudProfile's latest when empty.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Version *string `json:"version,omitempty"`
}

// Toleration tolerates a seed taint: by key, or by key and value.
type Toleration struct {
	// key of the tolerated taint.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=316
	Key string `json:"key"`
	// value of the tolerated taint. A taint with a value is tolerated only by a toleration of
	// its key with the same value; a taint without a value by any toleration of its key.
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
	// networking holds the networks the shoot's cluster uses, as its infrastructure reports
	// them.
	// +optional
	Networking *NetworkingStatus `json:"networking,omitempty"`
	// seedName is the seed the shoot's control plane currently runs on. It differs from
	// spec.seedName while a control plane migrates; both seeds then count the shoot.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SeedName *string `json:"seedName,omitempty"`
	// observedGeneration is the generation of the spec the status reflects.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// NetworkingStatus holds the networks a shoot's cluster uses: one CIDR per IP family, or
// more when a network was extended.
type NetworkingStatus struct {
	// nodes are the CIDRs of the node network.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=43
	// +kubebuilder:validation:items:XValidation:rule="isCIDR(self)",message="status.networking.nodes[] must be CIDRs such as 10.250.0.0/16"
	Nodes []string `json:"nodes,omitempty"`
	// pods are the CIDRs of the pod network.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=43
	// +kubebuilder:validation:items:XValidation:rule="isCIDR(self)",message="status.networking.pods[] must be CIDRs such as 10.250.0.0/16"
	Pods []string `json:"pods,omitempty"`
	// services are the CIDRs of the service network.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=43
	// +kubebuilder:validation:items:XValidation:rule="isCIDR(self)",message="status.networking.services[] must be CIDRs such as 10.250.0.0/16"
	Services []string `json:"services,omitempty"`
}
