package controller

import (
	"context"
	"maps"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// +kubebuilder:rbac:groups=core.gardener.cloud,resources=shoots/binding,verbs=update

// bindSubresource binds as gardener-scheduler does, for shoots that gardener-apiserver
// serves: it refuses spec.seedName set by patching the shoot and takes it only through an
// update of shoots/binding, whose body is the whole shoot with nothing else changed. The
// shoot is read live and whole (unstructured: the scheduler's Shoot type holds only the
// fields it needs, and an update with it would drop the others).
//
// The update carries the resourceVersion the decision was made on, so that a shoot changed
// since is a conflict, unless the live shoot differs from the decided one only where no
// decision looks (placeLive): then it carries the live one. In a busy garden the cache runs
// behind, and most changes to a pending shoot are its finalizers and status;
// gardener-controller-manager adds its finalizer to every new shoot, often between the read
// and the update. Refusing those would leave the shoot pending until the cache caught up,
// so a conflict on a shoot the decision still holds for reads again, up to bindAttempts
// times.
func (r *Reconciler) bindSubresource(ctx context.Context, shoot *gardencorev1beta1.Shoot, seed string) error {
	var err error
	for range bindAttempts {
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(gardencorev1beta1.GroupVersion.WithKind("Shoot"))
		if err := r.Client.Get(ctx, client.ObjectKeyFromObject(shoot), live); err != nil {
			return err
		}
		holds := placeLive(shoot, live)
		if !holds {
			live.SetResourceVersion(shoot.ResourceVersion)
		}
		if err := unstructured.SetNestedField(live.Object, seed, "spec", "seedName"); err != nil {
			return err
		}
		err = r.Client.SubResource("binding").Update(ctx, live)
		if err == nil {
			shoot.ResourceVersion = live.GetResourceVersion()
			shoot.Spec.SeedName = &seed
			return nil
		}
		if !holds || !apierrors.IsConflict(err) {
			return err
		}
	}
	return err
}

// bindAttempts bounds the reads and bindings of one shoot the decision still holds for.
const bindAttempts = 3

// placeLive reports whether the decision made on the decided shoot holds for the live one:
// the same spec (gardener-apiserver raises the generation with every change of it, and
// with the operation annotations), labels, annotations and owners, still unbound and not
// being deleted. Finalizers, status, managed fields and Gardener's status label may differ.
func placeLive(decided *gardencorev1beta1.Shoot, live *unstructured.Unstructured) bool {
	bound, _, _ := unstructured.NestedString(live.Object, "spec", "seedName")
	return bound == "" &&
		live.GetDeletionTimestamp() == nil &&
		live.GetUID() == decided.UID &&
		live.GetGeneration() == decided.Generation &&
		maps.Equal(withoutStatusLabel(live.GetLabels()), withoutStatusLabel(decided.Labels)) &&
		maps.Equal(live.GetAnnotations(), decided.Annotations) &&
		equality.Semantic.DeepEqual(live.GetOwnerReferences(), decided.OwnerReferences)
}

// labelShootStatus is the label gardener-controller-manager keeps on every shoot, new ones
// included, from its status (healthy, progressing, unhealthy); no decision reads it.
const labelShootStatus = "shoot.gardener.cloud/status"

// withoutStatusLabel is labels without labelShootStatus.
func withoutStatusLabel(labels map[string]string) map[string]string {
	if _, ok := labels[labelShootStatus]; !ok {
		return labels
	}
	out := maps.Clone(labels)
	delete(out, labelShootStatus)
	return out
}
