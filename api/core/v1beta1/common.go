package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ResourceShoots is the seed resource that counts shoot control planes: the resource
// the scheduler never overcommits and the SeedAutoscaler scales on by default.
const ResourceShoots = "shoots"

// LastOperationType says what kind of operation a LastOperation describes.
// +kubebuilder:validation:Enum=Create;Reconcile;Delete;Migrate;Restore
type LastOperationType string

// The types of operation a LastOperation records.
const (
	LastOperationTypeCreate    LastOperationType = "Create"
	LastOperationTypeReconcile LastOperationType = "Reconcile"
	LastOperationTypeDelete    LastOperationType = "Delete"
	LastOperationTypeMigrate   LastOperationType = "Migrate"
	LastOperationTypeRestore   LastOperationType = "Restore"
)

// LastOperationState is the state of a LastOperation.
// +kubebuilder:validation:Enum=Processing;Succeeded;Error;Failed;Pending;Aborted
type LastOperationState string

// The states a LastOperation can be in.
const (
	LastOperationStateProcessing LastOperationState = "Processing"
	LastOperationStateSucceeded  LastOperationState = "Succeeded"
	LastOperationStateError      LastOperationState = "Error"
	LastOperationStateFailed     LastOperationState = "Failed"
	LastOperationStatePending    LastOperationState = "Pending"
	LastOperationStateAborted    LastOperationState = "Aborted"
)

// LastOperation describes the last operation performed on an object, as Gardener reports it.
type LastOperation struct {
	// description is a human readable message about the operation.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	Description string `json:"description,omitempty"`
	// lastUpdateTime is when the operation state last changed.
	// +optional
	LastUpdateTime metav1.Time `json:"lastUpdateTime,omitempty"`
	// progress is the completion of the operation in percent.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Progress int32 `json:"progress,omitempty"`
	// state of the operation: Processing, Succeeded, Error, Failed, Pending or Aborted.
	// +required
	State LastOperationState `json:"state"`
	// type of the operation: Create, Reconcile, Delete, Migrate or Restore.
	// +required
	Type LastOperationType `json:"type"`
}

// SeedSelector selects seeds by label and, optionally, by provider type.
type SeedSelector struct {
	// LabelSelector is the label selector the seed's labels must match.
	metav1.LabelSelector `json:",inline"`
	// providerTypes lists the provider types a seed may have; "*" allows any. Empty means
	// the shoot's own provider type only.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=63
	ProviderTypes []string `json:"providerTypes,omitempty"`
}

// AccessRestriction names an access restriction, such as eu-access-only: a seed lists those
// it supports, a CloudProfile region those its shoots may ask for.
type AccessRestriction struct {
	// name of the access restriction.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// AccessRestrictionWithOptions is an access restriction a shoot asks for, with its options.
type AccessRestrictionWithOptions struct {
	AccessRestriction `json:",inline"`
	// options of the access restriction, read by the extensions that enforce it.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	Options map[string]string `json:"options,omitempty"`
}

// CloudProfileReferenceKind is the kind of a cloud profile a shoot refers to.
// +kubebuilder:validation:Enum=CloudProfile;NamespacedCloudProfile
type CloudProfileReferenceKind string

// The kinds of cloud profile a shoot can refer to.
const (
	CloudProfileReferenceKindCloudProfile           CloudProfileReferenceKind = "CloudProfile"
	CloudProfileReferenceKindNamespacedCloudProfile CloudProfileReferenceKind = "NamespacedCloudProfile"
)

// CloudProfileReference refers to a CloudProfile, or to a NamespacedCloudProfile in the
// namespace of the referring object.
type CloudProfileReference struct {
	// kind is CloudProfile or NamespacedCloudProfile.
	// +optional
	// +kubebuilder:default=CloudProfile
	Kind CloudProfileReferenceKind `json:"kind,omitempty"`
	// name of the profile.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}
