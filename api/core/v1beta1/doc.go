// Package v1beta1 holds the subset of Gardener's core.gardener.cloud/v1beta1 API that
// seedscaler reads and writes: Seed, Shoot, CloudProfile and NamespacedCloudProfile. Field
// names and meanings follow Gardener's own API so that Gardener manifests apply unchanged.
//
// +kubebuilder:object:generate=true
// +groupName=core.gardener.cloud
package v1beta1
