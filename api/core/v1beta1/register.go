package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version of Gardener's core API.
	GroupVersion = schema.GroupVersion{Group: "core.gardener.cloud", Version: "v1beta1"}

	// SchemeBuilder registers the kinds of this package with a runtime.Scheme. An API
	// package depends on apimachinery alone, so that anyone can import it.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the kinds of this package to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion,
		&Seed{}, &SeedList{}, &Shoot{}, &ShootList{}, &CloudProfile{}, &CloudProfileList{},
		&NamespacedCloudProfile{}, &NamespacedCloudProfileList{},
	)
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
