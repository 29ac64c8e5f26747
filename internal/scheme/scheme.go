// Package scheme builds the runtime.Scheme every part of seedscaler uses: Kubernetes'
// built-in kinds, Gardener's core and seed management kinds, and seedscaler's own
// autoscaling kind.
package scheme

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

// New returns a scheme with the built-in kinds and every kind of seedscaler's APIs.
func New() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(gardencorev1beta1.AddToScheme(s))
	utilruntime.Must(seedmanagementv1alpha1.AddToScheme(s))
	utilruntime.Must(autoscalingv1alpha1.AddToScheme(s))
	return s
}
