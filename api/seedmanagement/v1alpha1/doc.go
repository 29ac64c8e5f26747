// Package v1alpha1 holds seedmanagement.gardener.cloud/v1alpha1: ManagedSeed and
// ManagedSeedSet, with the field names of Gardener's API and GEP-13. SeedAutoscaler, which
// no Gardener release serves, is in autoscaling.seedscaler.io (api/autoscaling/v1alpha1).
//
// +kubebuilder:object:generate=true
// +groupName=seedmanagement.gardener.cloud
package v1alpha1
