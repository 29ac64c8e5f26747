package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// ManagedSeed condition types.
const (
	// ManagedSeedShootReconciled is True once the ManagedSeed's shoot reconciled successfully.
	ManagedSeedShootReconciled = "ShootReconciled"
	// ManagedSeedSeedRegistered is True while the ManagedSeed's Seed is registered.
	ManagedSeedSeedRegistered = "SeedRegistered"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=ms
// +kubebuilder:printcolumn:name="Shoot",type=string,JSONPath=`.spec.shoot.name`
// +kubebuilder:printcolumn:name="Shoot Reconciled",type=string,JSONPath=`.status.conditions[?(@.type=="ShootReconciled")].status`
// +kubebuilder:printcolumn:name="Seed Registered",type=string,JSONPath=`.status.conditions[?(@.type=="SeedRegistered")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="has(self.spec.shoot) && size(self.spec.shoot.name) > 0",message="spec.shoot.name is required: name the Shoot (in the same namespace) to register as a seed"

// ManagedSeed registers a Shoot as a Seed, from a seed template or a gardenlet configuration.
type ManagedSeed struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the ManagedSeed.
	// +required
	Spec ManagedSeedSpec `json:"spec,omitempty"`
	// status is the observed state of the ManagedSeed.
	// +optional
	Status ManagedSeedStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ManagedSeedList is a list of ManagedSeeds.
type ManagedSeedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ManagedSeed `json:"items"`
}

// ManagedSeedSpec is the specification of a ManagedSeed.
// +kubebuilder:validation:XValidation:rule="has(self.seedTemplate) != has(self.gardenlet)",message="exactly one of seedTemplate and gardenlet must be set: seedTemplate registers a seed directly, gardenlet deploys a gardenlet that registers it"
type ManagedSeedSpec struct {
	// shoot is the Shoot that is registered as a Seed. In a ManagedSeedSet's template it is
	// left empty: the set controller fills it in.
	// +optional
	Shoot *Shoot `json:"shoot,omitempty,omitzero"`
	// seedTemplate is the Seed to register, without deploying a gardenlet.
	// +optional
	SeedTemplate *gardencorev1beta1.SeedTemplate `json:"seedTemplate,omitempty"`
	// gardenlet deploys a gardenlet into the shoot, which registers the seed of its seedConfig.
	// +optional
	Gardenlet *Gardenlet `json:"gardenlet,omitempty"`
}

// Shoot names the Shoot of a ManagedSeed.
type Shoot struct {
	// name of the Shoot, in the ManagedSeed's namespace.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`
}

// BootstrapMode is how a gardenlet connects to the garden cluster.
// +kubebuilder:validation:Enum=BootstrapToken;ServiceAccount;None
type BootstrapMode string

// The bootstrap modes.
const (
	BootstrapToken          BootstrapMode = "BootstrapToken"
	BootstrapServiceAccount BootstrapMode = "ServiceAccount"
	BootstrapNone           BootstrapMode = "None"
)

// Gardenlet configures the gardenlet deployed into a ManagedSeed's shoot.
type Gardenlet struct {
	// deployment configures the gardenlet Deployment.
	// +optional
	Deployment *GardenletDeployment `json:"deployment,omitempty"`
	// config is the GardenletConfiguration; its seedConfig is the Seed to register and its
	// resources the seed's capacity and reserved amounts.
	// +optional
	Config *GardenletConfiguration `json:"config,omitempty"`
	// bootstrap is how the gardenlet connects to the garden: BootstrapToken, ServiceAccount or None.
	// +optional
	// +kubebuilder:default=BootstrapToken
	Bootstrap *BootstrapMode `json:"bootstrap,omitempty"`
	// mergeWithParent merges the configuration with that of the parent gardenlet.
	// +optional
	// +kubebuilder:default=true
	MergeWithParent *bool `json:"mergeWithParent,omitempty"`
}

// GardenletDeployment configures the gardenlet Deployment.
type GardenletDeployment struct {
	// replicaCount is the number of gardenlet replicas.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ReplicaCount *int32 `json:"replicaCount,omitempty"`
	// revisionHistoryLimit of the gardenlet Deployment.
	// +optional
	// +kubebuilder:validation:Minimum=0
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
	// serviceAccountName of the gardenlet pods.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ServiceAccountName *string `json:"serviceAccountName,omitempty"`
	// image of the gardenlet.
	// +optional
	Image *Image `json:"image,omitempty"`
	// resources of the gardenlet container.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`
	// podLabels are extra labels of the gardenlet pods.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	PodLabels map[string]string `json:"podLabels,omitempty"`
	// podAnnotations are extra annotations of the gardenlet pods.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	PodAnnotations map[string]string `json:"podAnnotations,omitempty"`
	// additionalVolumes of the gardenlet pods.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	AdditionalVolumes []corev1.Volume `json:"additionalVolumes,omitempty"`
	// additionalVolumeMounts of the gardenlet container.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	AdditionalVolumeMounts []corev1.VolumeMount `json:"additionalVolumeMounts,omitempty"`
	// env of the gardenlet container.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Env []corev1.EnvVar `json:"env,omitempty"`
	// vpa deploys a VerticalPodAutoscaler for the gardenlet.
	// +optional
	VPA *bool `json:"vpa,omitempty"`
}

// Image is a container image.
type Image struct {
	// repository of the image.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Repository *string `json:"repository,omitempty"`
	// tag of the image.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Tag *string `json:"tag,omitempty"`
	// pullPolicy of the image.
	// +optional
	PullPolicy *corev1.PullPolicy `json:"pullPolicy,omitempty"`
}

// GardenletConfiguration is the part of gardenlet.config.gardener.cloud/v1alpha1
// GardenletConfiguration that seed management reads: the seed to register and its resources.
type GardenletConfiguration struct {
	metav1.TypeMeta `json:",inline"`
	// seedConfig is the Seed the gardenlet registers.
	// +optional
	SeedConfig *gardencorev1beta1.SeedTemplate `json:"seedConfig,omitempty"`
	// resources are the seed's capacity and the amounts reserved for Gardener.
	// +optional
	Resources *ResourcesConfiguration `json:"resources,omitempty"`
	// controllers configures the gardenlet's controllers; kept as given.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	Controllers *runtime.RawExtension `json:"controllers,omitempty"`
	// featureGates of the gardenlet.
	// +optional
	// +kubebuilder:validation:MaxProperties=128
	FeatureGates map[string]bool `json:"featureGates,omitempty"`
}

// ResourcesConfiguration is a seed's total capacity per resource and what Gardener reserves
// of it. The seed's allocatable is capacity minus reserved.
//
// The reserved <= capacity rule does not compare a quantity whose exponent has 4 digits or
// more: capacity's and reserved's own rules refuse it, and quantity() would run
// resource.ParseQuantity on it in the kube-apiserver, which never returns for an exponent
// beyond int32. The pattern `make generate` gives every quantity refuses it too, but a
// failed pattern does not stop the CEL rules from running; a failed maxLength does, so a
// quantity longer than 64 characters reaches no rule.
// +kubebuilder:validation:XValidation:rule="!has(self.reserved) || self.reserved.all(r, has(self.capacity) && r in self.capacity)",message="resources.reserved names a resource that resources.capacity lacks: reserve only resources that have a capacity"
// +kubebuilder:validation:XValidation:rule="!has(self.reserved) || !has(self.capacity) || self.reserved.all(r, !(r in self.capacity) || (type(self.reserved[r]) == string && self.reserved[r].matches('[eE][+-]?([0-9]{4}|[0-9]*[.])')) || (type(self.capacity[r]) == string && self.capacity[r].matches('[eE][+-]?([0-9]{4}|[0-9]*[.])')) || quantity(string(self.reserved[r])).compareTo(quantity(string(self.capacity[r]))) <= 0)",message="resources.reserved exceeds resources.capacity for a resource: reserve at most the capacity"
type ResourcesConfiguration struct {
	// capacity is the total amount of each resource, for example shoots: 250.
	// At most 6 resources, which keeps the reserved <= capacity rule within CEL's cost budget.
	// Each quantity has at most 64 characters and a whole exponent of at most 3 digits.
	// +optional
	// +kubebuilder:validation:MaxProperties=6
	// +kubebuilder:validation:XValidation:rule="self.all(r, type(self[r]) != string || !self[r].matches('[eE][+-]?([0-9]{4}|[0-9]*[.])'))",message="resources.capacity values must be quantities such as 250, 1.5k or 100Gi, with a whole exponent of at most 3 digits (1e3, not 1e1000)"
	Capacity corev1.ResourceList `json:"capacity,omitempty"`
	// reserved is the amount of each resource reserved for Gardener, bounded as capacity is.
	// +optional
	// +kubebuilder:validation:MaxProperties=6
	// +kubebuilder:validation:XValidation:rule="self.all(r, type(self[r]) != string || !self[r].matches('[eE][+-]?([0-9]{4}|[0-9]*[.])'))",message="resources.reserved values must be quantities such as 5, 1.5k or 10Gi, with a whole exponent of at most 3 digits (1e3, not 1e1000)"
	Reserved corev1.ResourceList `json:"reserved,omitempty"`
}

// ManagedSeedStatus is the observed state of a ManagedSeed.
type ManagedSeedStatus struct {
	// conditions of the ManagedSeed: ShootReconciled and SeedRegistered.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// observedGeneration is the generation of the spec the status reflects.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}
