package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of the seed management API.
	GroupVersion = schema.GroupVersion{Group: "seedmanagement.gardener.cloud", Version: "v1alpha1"}

	// SchemeBuilder registers the kinds of this package with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the kinds of this package to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func init() {
	SchemeBuilder.Register(
		&ManagedSeed{}, &ManagedSeedList{},
		&ManagedSeedSet{}, &ManagedSeedSetList{},
		&SeedAutoscaler{}, &SeedAutoscalerList{},
	)
}
