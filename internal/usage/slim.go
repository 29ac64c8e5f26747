package usage

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	toolscache "k8s.io/client-go/tools/cache"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// SlimShootsOutside is the Shoot informer transform of a part that counts every shoot on
// its seeds but reads whole shoots only where ManagedSeeds and ManagedSeedSets live: the
// seed and set controllers. A shoot in one of namespaces is kept whole (without
// managedFields); any other shoot, a tenant's, becomes its name, namespace, uid, resource
// version, generation, creation and deletion time, and spec.seedName and status.seedName:
// what SeedNames and the usage index read. At 100,000 tenant shoots that is a few hundred
// bytes each instead of several kilobytes. With no namespaces every shoot is kept whole.
//
// Writes from such a cache must never start from a slim shoot: the parts that use it write
// only the shoots of their own ManagedSeeds and sets, which are kept whole.
func SlimShootsOutside(namespaces []string) toolscache.TransformFunc {
	whole := sets.New(namespaces...)
	return func(obj any) (any, error) {
		shoot, ok := obj.(*gardencorev1beta1.Shoot)
		if !ok {
			return obj, nil // a tombstone: its object was transformed when it was stored
		}
		shoot.ManagedFields = nil
		if whole.Len() == 0 || whole.Has(shoot.Namespace) {
			return shoot, nil
		}
		return Counted(shoot), nil
	}
}

// Counted is the part of a shoot that SeedNames and the usage index read, and what a cache
// needs to tell one version from the next: name, namespace, uid, resource version,
// generation, creation and deletion time, spec.seedName and status.seedName.
func Counted(shoot *gardencorev1beta1.Shoot) *gardencorev1beta1.Shoot {
	return &gardencorev1beta1.Shoot{
		TypeMeta: shoot.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name: shoot.Name, Namespace: shoot.Namespace, UID: shoot.UID, ResourceVersion: shoot.ResourceVersion,
			Generation: shoot.Generation, CreationTimestamp: shoot.CreationTimestamp, DeletionTimestamp: shoot.DeletionTimestamp,
		},
		Spec:   gardencorev1beta1.ShootSpec{SeedName: shoot.Spec.SeedName},
		Status: gardencorev1beta1.ShootStatus{SeedName: shoot.Status.SeedName},
	}
}
