package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=cprofile;cpfl
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// CloudProfile describes what a provider offers shoots: its regions and zones, and which
// seeds may host shoots that use it.
type CloudProfile struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the specification of the cloud profile.
	// +required
	Spec CloudProfileSpec `json:"spec"`
	// status is unused; it exists so the kind has the status subresource like every other.
	// +optional
	Status CloudProfileStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// CloudProfileList is a list of CloudProfiles.
type CloudProfileList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CloudProfile `json:"items"`
}

// CloudProfileSpec is the specification of a CloudProfile.
type CloudProfileSpec struct {
	// type is the provider type, for example aws, azure or gcp.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Type string `json:"type"`
	// regions the provider offers.
	// +required
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=256
	Regions []Region `json:"regions"`
	// seedSelector restricts the seeds that may host shoots of this profile.
	// +optional
	SeedSelector *SeedSelector `json:"seedSelector,omitempty"`
}

// Region is a region of a provider.
type Region struct {
	// name of the region.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// accessRestrictions shoots of the region may ask for.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	AccessRestrictions []AccessRestriction `json:"accessRestrictions,omitempty"`
	// zones of the region.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	Zones []AvailabilityZone `json:"zones,omitempty"`
}

// AvailabilityZone is a zone of a region.
type AvailabilityZone struct {
	// name of the zone.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
}

// CloudProfileStatus is the observed state of a CloudProfile.
type CloudProfileStatus struct {
	// observedGeneration is the generation of the spec the status reflects.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}
