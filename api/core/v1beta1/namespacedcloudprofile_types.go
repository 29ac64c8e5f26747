package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=nsprofile;nscpfl
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Parent",type=string,JSONPath=`.spec.parent.name`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// NamespacedCloudProfile is a project's variant of a CloudProfile: shoots in its namespace
// refer to it in spec.cloudProfile. Gardener writes the parent's spec merged with the
// project's additions into status.cloudProfileSpec; the scheduler reads the seed selector
// from there, and from the parent CloudProfile while it is not written yet.
type NamespacedCloudProfile struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the specification of the profile.
	// +required
	Spec NamespacedCloudProfileSpec `json:"spec"`
	// status holds the profile as merged with its parent.
	// +optional
	Status NamespacedCloudProfileStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// NamespacedCloudProfileList is a list of NamespacedCloudProfiles.
type NamespacedCloudProfileList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NamespacedCloudProfile `json:"items"`
}

// NamespacedCloudProfileSpec is the specification of a NamespacedCloudProfile. Of Gardener's
// fields it holds the one the scheduler reads.
type NamespacedCloudProfileSpec struct {
	// parent is the CloudProfile the profile derives from.
	// +required
	// +kubebuilder:validation:XValidation:rule="self.kind == 'CloudProfile'",message="spec.parent.kind must be CloudProfile: a NamespacedCloudProfile derives from a CloudProfile"
	Parent CloudProfileReference `json:"parent"`
}

// NamespacedCloudProfileStatus is the observed state of a NamespacedCloudProfile.
type NamespacedCloudProfileStatus struct {
	// cloudProfileSpec is the parent's spec merged with the profile's additions; its type,
	// regions and seedSelector are the parent's.
	// +optional
	CloudProfileSpec *CloudProfileSpec `json:"cloudProfileSpec,omitempty"`
	// observedGeneration is the generation of the spec the status reflects.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// CloudProfileReferenceOf is the cloud profile a shoot uses: spec.cloudProfile (a kind left
// empty is CloudProfile), else the deprecated spec.cloudProfileName; nil when it names none.
func CloudProfileReferenceOf(shoot *Shoot) *CloudProfileReference {
	if ref := shoot.Spec.CloudProfile; ref != nil && ref.Name != "" {
		out := *ref
		if out.Kind == "" {
			out.Kind = CloudProfileReferenceKindCloudProfile
		}
		return &out
	}
	if name := shoot.Spec.CloudProfileName; name != nil && *name != "" {
		return &CloudProfileReference{Kind: CloudProfileReferenceKindCloudProfile, Name: *name}
	}
	return nil
}
