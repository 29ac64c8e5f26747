package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version of seedscaler's autoscaling API.
	GroupVersion = schema.GroupVersion{Group: "autoscaling.seedscaler.io", Version: "v1alpha1"}

	// SchemeBuilder registers the kinds of this package with a runtime.Scheme. An API
	// package depends on apimachinery alone, so that anyone can import it.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the kinds of this package to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &SeedAutoscaler{}, &SeedAutoscalerList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
