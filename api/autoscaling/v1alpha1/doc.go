// Package v1alpha1 holds autoscaling.seedscaler.io/v1alpha1: SeedAutoscaler, seedscaler's
// own kind, which scales a ManagedSeedSet (or any kind with a scale subresource) on the
// utilization of its seeds.
//
// The kind has a group of its own because no Gardener release serves it: in a garden
// cluster gardener-apiserver serves all of seedmanagement.gardener.cloud/v1alpha1 through
// an aggregated APIService, where a CRD could add no kind.
//
// +kubebuilder:object:generate=true
// +groupName=autoscaling.seedscaler.io
package v1alpha1
