// Package v1alpha1 holds seedmanagement.gardener.cloud/v1alpha1: ManagedSeed,
// ManagedSeedSet and SeedAutoscaler, with the field names of Gardener's API and GEP-13.
//
// +kubebuilder:object:generate=true
// +groupName=seedmanagement.gardener.cloud
package v1alpha1
