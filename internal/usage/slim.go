package usage

import (
	"sync"
	"unique"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

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
// generation, creation and deletion time, spec.seedName and status.seedName. The strings
// many shoots share (API version and kind, namespace, seed names) are interned: a cache of
// 100,000 slim shoots holds each of them once, not once per shoot.
func Counted(shoot *gardencorev1beta1.Shoot) *gardencorev1beta1.Shoot {
	return &gardencorev1beta1.Shoot{
		TypeMeta: metav1.TypeMeta{APIVersion: Intern(shoot.APIVersion), Kind: Intern(shoot.Kind)},
		ObjectMeta: metav1.ObjectMeta{
			Name: shoot.Name, Namespace: Intern(shoot.Namespace), UID: shoot.UID, ResourceVersion: shoot.ResourceVersion,
			Generation: shoot.Generation, CreationTimestamp: shoot.CreationTimestamp, DeletionTimestamp: shoot.DeletionTimestamp,
		},
		Spec:   gardencorev1beta1.ShootSpec{SeedName: InternPointer(shoot.Spec.SeedName)},
		Status: gardencorev1beta1.ShootStatus{SeedName: InternPointer(shoot.Status.SeedName)},
	}
}

// Intern returns the one copy of s that every interned string equal to it shares: for the
// strings many cached objects repeat. The empty string, which needs no copy, skips the
// lookup.
func Intern(s string) string {
	if s == "" {
		return ""
	}
	return unique.Make(s).Value()
}

// pointers holds one *string per value InternPointer was given, which every slim shoot
// with that value points at: for values that are few (seed names, the seeds a garden ever
// had; scheduler names) where shoots are many.
var pointers sync.Map // string -> *string

// InternPointer returns the one pointer to the value of p that every interned pointer to
// an equal value shares; nil for nil. The pointers are shared, so nothing may write through
// them: objects in a cache are not written to, and copies (DeepCopy) get pointers of their
// own.
func InternPointer(p *string) *string {
	if p == nil {
		return nil
	}
	if shared, ok := pointers.Load(*p); ok {
		return shared.(*string)
	}
	shared, _ := pointers.LoadOrStore(*p, ptr.To(Intern(*p)))
	return shared.(*string)
}
