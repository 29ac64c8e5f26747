package controller

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// +kubebuilder:rbac:groups=core.gardener.cloud,resources=shoots/binding,verbs=update

// bindSubresource binds as gardener-scheduler does, for shoots that gardener-apiserver
// serves: it refuses spec.seedName set by patching the shoot and takes it only through an
// update of shoots/binding, whose body is the whole shoot with nothing else changed. The
// shoot is read live and whole (unstructured: the scheduler's Shoot type holds only the
// fields it needs, and an update with it would drop the others), and the update carries
// the resourceVersion the decision was made on, so a shoot changed since is a conflict.
func (r *Reconciler) bindSubresource(ctx context.Context, shoot *gardencorev1beta1.Shoot, seed string) error {
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(gardencorev1beta1.GroupVersion.WithKind("Shoot"))
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(shoot), live); err != nil {
		return err
	}
	live.SetResourceVersion(shoot.ResourceVersion)
	if err := unstructured.SetNestedField(live.Object, seed, "spec", "seedName"); err != nil {
		return err
	}
	if err := r.Client.SubResource("binding").Update(ctx, live); err != nil {
		return err
	}
	shoot.ResourceVersion = live.GetResourceVersion()
	shoot.Spec.SeedName = &seed
	return nil
}
