package usage

import (
	"sync"
	"unique"

	"k8s.io/apimachinery/pkg/util/sets"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
)

// CacheShoots makes a cache keep Shoots through transform, which may store usage.Records
// (Counted): the cache's informers then hand their handlers and indexes the slim Shoots
// the records stand for (controllerutils.NewInformer). A transform that stores records
// must be set with it.
func CacheShoots(opts *cache.Options, transform toolscache.TransformFunc) {
	if opts.ByObject == nil {
		opts.ByObject = map[client.Object]cache.ByObject{}
	}
	opts.ByObject[&gardencorev1beta1.Shoot{}] = cache.ByObject{Transform: transform}
	opts.NewInformer = controllerutils.NewInformer
}

// SlimShootsOutside is the Shoot informer transform (CacheShoots) of a part that counts
// every shoot on its seeds but reads whole shoots only where ManagedSeeds and
// ManagedSeedSets live: the seed and set controllers. A shoot in one of namespaces is kept
// whole (without managedFields); any other shoot, a tenant's, becomes a Record of its name,
// namespace, uid, resource version, generation, creation and deletion time, and
// spec.seedName and status.seedName: what SeedNames and the usage index read. At 100,000
// tenant shoots that is about 150 bytes each instead of several kilobytes. With no
// namespaces every shoot is kept whole.
//
// Writes from such a cache must never start from a slim shoot: the parts that use it write
// only the shoots of their own ManagedSeeds and sets, which are kept whole.
func SlimShootsOutside(namespaces []string) toolscache.TransformFunc {
	whole := sets.New(namespaces...)
	return func(obj any) (any, error) {
		shoot, ok := obj.(*gardencorev1beta1.Shoot)
		if !ok {
			return obj, nil // a tombstone or a record: its object was transformed when it was stored
		}
		shoot.ManagedFields = nil
		if whole.Len() == 0 || whole.Has(shoot.Namespace) {
			return shoot, nil
		}
		return Counted(shoot), nil
	}
}

// Counted is what SeedNames and the usage index read of a shoot, and what a cache needs to
// tell one version from the next: name, namespace, uid, resource version, generation,
// creation and deletion time, spec.seedName and status.seedName. It is a Record, not a
// Shoot: a typed Shoot is a 512-byte struct however few of its fields are set, a Record
// about 150 bytes. The strings many shoots share (namespace, seed names) are interned: a
// cache of 100,000 records holds each of them once, not once per shoot.
func Counted(shoot *gardencorev1beta1.Shoot) *Record {
	r := &Record{
		name: shoot.Name, namespace: Intern(shoot.Namespace), uid: shoot.UID, resourceVersion: shoot.ResourceVersion,
		generation: shoot.Generation, deleted: shoot.DeletionTimestamp,
		seed: InternPointer(shoot.Spec.SeedName), statusSeed: InternPointer(shoot.Status.SeedName),
	}
	if !shoot.CreationTimestamp.IsZero() {
		r.created = shoot.CreationTimestamp.Unix()
	}
	return r
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
