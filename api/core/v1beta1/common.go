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
