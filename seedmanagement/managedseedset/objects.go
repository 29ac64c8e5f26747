package managedseedset

import (
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

// replicaLabels are the template labels plus the set label and the revision label.
func replicaLabels(template map[string]string, setName, revision string) map[string]string {
	labels := maps.Clone(template)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[seedmanagementv1alpha1.LabelManagedSeedSet] = setName
	labels[seedmanagementv1alpha1.LabelControllerRevisionHash] = revision
	return labels
}

func controllerRef(set *seedmanagementv1alpha1.ManagedSeedSet) metav1.OwnerReference {
	return *metav1.NewControllerRef(set, seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet"))
}

// newShoot is the Shoot of the replica with the given name, from the templates of a revision.
func newShoot(set *seedmanagementv1alpha1.ManagedSeedSet, name, revision string, templates revisionData) *gardencorev1beta1.Shoot {
	t := templates.ShootTemplate.DeepCopy()
	return &gardencorev1beta1.Shoot{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       set.Namespace,
			Labels:          replicaLabels(t.Labels, set.Name, revision),
			Annotations:     t.Annotations,
			OwnerReferences: []metav1.OwnerReference{controllerRef(set)},
		},
		Spec: t.Spec,
	}
}

// managedSeedSpec is the template's ManagedSeed spec for a replica: spec.shoot.name filled in
// and the set label added to the seed template, so the registered Seed carries it.
func managedSeedSpec(set *seedmanagementv1alpha1.ManagedSeedSet, name string, templates revisionData) seedmanagementv1alpha1.ManagedSeedSpec {
	spec := *templates.Template.Spec.DeepCopy()
	spec.Shoot = &seedmanagementv1alpha1.Shoot{Name: name}
	labelSeed := func(t *gardencorev1beta1.SeedTemplate) {
		if t == nil {
			return
		}
		if t.Labels == nil {
			t.Labels = map[string]string{}
		}
		t.Labels[seedmanagementv1alpha1.LabelManagedSeedSet] = set.Name
	}
	labelSeed(spec.SeedTemplate)
	if spec.Gardenlet != nil && spec.Gardenlet.Config != nil {
		labelSeed(spec.Gardenlet.Config.SeedConfig)
	}
	return spec
}

// newManagedSeed is the ManagedSeed of the replica with the given name, from the templates of
// a revision.
func newManagedSeed(set *seedmanagementv1alpha1.ManagedSeedSet, name, revision string, templates revisionData) *seedmanagementv1alpha1.ManagedSeed {
	t := templates.Template.DeepCopy()
	return &seedmanagementv1alpha1.ManagedSeed{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       set.Namespace,
			Labels:          replicaLabels(t.Labels, set.Name, revision),
			Annotations:     t.Annotations,
			OwnerReferences: []metav1.OwnerReference{controllerRef(set)},
		},
		Spec: managedSeedSpec(set, name, templates),
	}
}

// mergeInto sets the given labels or annotations on top of what an object has, keeping
// the ones others set (protect-from-deletion, priority, ...).
func mergeInto(existing, desired map[string]string) map[string]string {
	out := maps.Clone(existing)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, desired)
	return out
}

// updateShoot applies a revision's Shoot template to an existing replica shoot in place. The
// shoot keeps its spec.seedName (immutable once the scheduler bound it) and its status.
func updateShoot(set *seedmanagementv1alpha1.ManagedSeedSet, shoot *gardencorev1beta1.Shoot, revision string, templates revisionData) {
	desired := newShoot(set, shoot.Name, revision, templates)
	seedName := shoot.Spec.SeedName
	shoot.Labels = mergeInto(shoot.Labels, desired.Labels)
	shoot.Annotations = mergeInto(shoot.Annotations, desired.Annotations)
	shoot.Spec = desired.Spec
	if seedName != nil {
		shoot.Spec.SeedName = seedName
	}
	// A new spec gets fresh retries.
	delete(shoot.Annotations, AnnotationReconcileRetries)
}

// updateManagedSeed applies a revision's ManagedSeed template to an existing replica.
func updateManagedSeed(set *seedmanagementv1alpha1.ManagedSeedSet, ms *seedmanagementv1alpha1.ManagedSeed, revision string, templates revisionData) {
	desired := newManagedSeed(set, ms.Name, revision, templates)
	ms.Labels = mergeInto(ms.Labels, desired.Labels)
	ms.Annotations = mergeInto(ms.Annotations, desired.Annotations)
	ms.Spec = desired.Spec
}
