// Package membership says which ManagedSeedSet a replica's Shoot, ManagedSeed or Seed
// belongs to, the same way for every part of the stack and for replicas made by either
// Gardener's ManagedSeedSet controller or seedscaler's.
//
// Gardener's controller writes no label naming the set: a replica's Shoot and ManagedSeed
// carry the templates' labels and a controller reference to the set, and its Seed carries
// the seed template's labels only, named like its ManagedSeed. So a Shoot or ManagedSeed
// belongs to the set its controller reference names, and a Seed to the set of its
// ManagedSeed. The set labels seedscaler's own controller writes are read only as a
// fallback, for objects that carry them and no such reference.
//
// The functions are pure: callers look the ManagedSeed of a Seed up in their own cache
// (ManagedSeedOf names it).
package membership

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

// setKind is the kind of a ManagedSeedSet in an owner reference.
const setKind = "ManagedSeedSet"

// GardenNamespace is where Gardener keeps ManagedSeeds: its admission allows them in no
// other namespace, so the ManagedSeed of a Seed without LabelManagedSeedNamespace is the
// one of the Seed's name in this namespace.
const GardenNamespace = "garden"

// LabelManagedSeedNamespace on a Seed names the namespace of the ManagedSeed it was
// registered from (named like the Seed). seedscaler's seed controller writes it, since its
// ManagedSeeds may live in any namespace; Gardener's Seeds do without it.
const LabelManagedSeedNamespace = "seedmanagement.gardener.cloud/managedseed-namespace"

// SetOf returns the ManagedSeedSet a Shoot or ManagedSeed belongs to: the one its
// controller reference of kind ManagedSeedSet in group seedmanagement.gardener.cloud (any
// version) names, else the one its LabelManagedSeedSet label names; a set is in the
// namespace of its replicas. The second result is false for an object of no set.
func SetOf(obj metav1.Object) (types.NamespacedName, bool) {
	if ref := metav1.GetControllerOfNoCopy(obj); ref != nil && ref.Kind == setKind && ref.Name != "" {
		if gv, err := schema.ParseGroupVersion(ref.APIVersion); err == nil && gv.Group == seedmanagementv1alpha1.GroupVersion.Group {
			return types.NamespacedName{Namespace: obj.GetNamespace(), Name: ref.Name}, true
		}
	}
	if name := obj.GetLabels()[seedmanagementv1alpha1.LabelManagedSeedSet]; name != "" {
		return types.NamespacedName{Namespace: obj.GetNamespace(), Name: name}, true
	}
	return types.NamespacedName{}, false
}

// The fields every Reference shares, so that a reference costs one string of its own, the
// set's name.
var (
	setAPIVersion  = seedmanagementv1alpha1.GroupVersion.String()
	controllerTrue = true
)

// Reference is a controller reference to the named set and nothing else (no UID), which
// SetOf reads back: what a cache that keeps only the set of a replica holds of it.
func Reference(setName string) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: setAPIVersion, Kind: setKind, Name: setName, Controller: &controllerTrue}
}

// IsReplica reports whether a Shoot or ManagedSeed belongs to a ManagedSeedSet (SetOf).
func IsReplica(obj metav1.Object) bool {
	_, ok := SetOf(obj)
	return ok
}

// ManagedSeedOf names the ManagedSeed a Seed may have been registered from: the Seed's
// name, in the namespace of its LabelManagedSeedNamespace label, else in GardenNamespace.
// Whether it exists is for the caller's cache to say.
func ManagedSeedOf(seed metav1.Object) types.NamespacedName {
	namespace := seed.GetLabels()[LabelManagedSeedNamespace]
	if namespace == "" {
		namespace = GardenNamespace
	}
	return types.NamespacedName{Namespace: namespace, Name: seed.GetName()}
}

// SetOfSeed returns the ManagedSeedSet a Seed belongs to: the set of its ManagedSeed
// (managedSeed, the object ManagedSeedOf names, or nil when there is none), else the one its
// LabelManagedSeedSet and LabelManagedSeedSetNamespace labels name. The second result is
// false for a seed of no set.
func SetOfSeed(seed, managedSeed metav1.Object) (types.NamespacedName, bool) {
	if managedSeed != nil && managedSeed.GetName() == seed.GetName() {
		if set, ok := SetOf(managedSeed); ok {
			return set, true
		}
	}
	labels := seed.GetLabels()
	name, namespace := labels[seedmanagementv1alpha1.LabelManagedSeedSet], labels[seedmanagementv1alpha1.LabelManagedSeedSetNamespace]
	if name == "" || namespace == "" {
		return types.NamespacedName{}, false
	}
	return types.NamespacedName{Namespace: namespace, Name: name}, true
}
