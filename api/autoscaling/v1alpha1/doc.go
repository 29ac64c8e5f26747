// Package v1alpha1 holds autoscaling.seedscaler.io/v1alpha1: SeedAutoscaler, seedscaler's
// own kind, which scales a ManagedSeedSet (or any kind with a scale subresource) on the
// utilization of its seeds.
//
// The kind has a group of its own because no Gardener release serves it: in a garden
// cluster gardener-apiserver serves all of seedmanagement.gardener.cloud/v1alpha1 through
// an aggregated APIService, where a CRD could add no kind.
//
// Every resource.Quantity has a CEL rule that refuses an exponent of 4 digits or more, and
// says so naming the field (`make generate` also bounds every quantity's pattern to such
// exponents and its length to 64 characters): resource.ParseQuantity, which decodes the
// field wherever a SeedAutoscaler is read, never returns for an exponent beyond int32 and
// compares for seconds with one of tens of millions. A rule that compares a quantity with
// CEL's quantity(), which runs ParseQuantity in the kube-apiserver, first lets such an
// exponent through, leaving it to the bound's own rule: a failed pattern does not stop the
// CEL rules from running.
//
// +kubebuilder:object:generate=true
// +groupName=autoscaling.seedscaler.io
package v1alpha1
