package membership_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/membership"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// gardenerSet is a ManagedSeedSet as a Gardener landscape has it: in the garden namespace,
// with no status.selector.
func gardenerSet() *seedmanagementv1alpha1.ManagedSeedSet {
	return &seedmanagementv1alpha1.ManagedSeedSet{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "soil", UID: "uid-soil"}}
}

// gardenerReplica is metadata as Gardener's ManagedSeedSet controller writes it on a
// replica's Shoot and ManagedSeed: the template's labels and a controller reference to
// the set, no set label.
func gardenerReplica(set *seedmanagementv1alpha1.ManagedSeedSet, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Namespace: set.Namespace, Name: name,
		Labels:          map[string]string{"seed.gardener.cloud/pool": "soil"},
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet"))},
	}
}

func TestSetOf(t *testing.T) {
	set := gardenerSet()
	gardenerShoot := &gardencorev1beta1.Shoot{ObjectMeta: gardenerReplica(set, "soil-0")}
	gardenerManagedSeed := &seedmanagementv1alpha1.ManagedSeed{ObjectMeta: gardenerReplica(set, "soil-0")}
	require.Empty(t, gardenerShoot.Labels[seedmanagementv1alpha1.LabelManagedSeedSet], "Gardener writes no set label")

	withRefs := func(refs ...metav1.OwnerReference) metav1.Object {
		shoot := builders.MakeShoot("garden", "soil-1").Obj()
		shoot.OwnerReferences = refs
		return shoot
	}
	controllerRef := func(apiVersion, kind, name string) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: "uid", Controller: new(true)}
	}
	bothWays := withRefs(controllerRef("seedmanagement.gardener.cloud/v1alpha1", "ManagedSeedSet", "soil"))
	bothWays.SetLabels(map[string]string{seedmanagementv1alpha1.LabelManagedSeedSet: "earlier-name"})

	tests := []struct {
		name string
		obj  metav1.Object
		want types.NamespacedName
		ok   bool
	}{
		{"a Gardener replica's Shoot, by its controller reference", gardenerShoot, types.NamespacedName{Namespace: "garden", Name: "soil"}, true},
		{"a Gardener replica's ManagedSeed, by its controller reference", gardenerManagedSeed, types.NamespacedName{Namespace: "garden", Name: "soil"}, true},
		{"the controller reference wins over the label", bothWays, types.NamespacedName{Namespace: "garden", Name: "soil"}, true},
		{"the reference a slim cache keeps", withRefs(membership.Reference("soil")), types.NamespacedName{Namespace: "garden", Name: "soil"}, true},
		{"any version of the group", withRefs(controllerRef("seedmanagement.gardener.cloud/v1beta1", "ManagedSeedSet", "soil")), types.NamespacedName{Namespace: "garden", Name: "soil"}, true},
		{"a replica seedscaler labeled before, by the label",
			builders.MakeShoot("garden-a", "old-0").Labels(seedmanagementv1alpha1.LabelManagedSeedSet, "old").Obj(), types.NamespacedName{Namespace: "garden-a", Name: "old"}, true},
		{"a tenant's shoot", builders.MakeShoot("garden-dev", "tenant").Labels("team", "x").Obj(), types.NamespacedName{}, false},
		{"an owner that is not the controller",
			withRefs(metav1.OwnerReference{APIVersion: "seedmanagement.gardener.cloud/v1alpha1", Kind: "ManagedSeedSet", Name: "soil"}), types.NamespacedName{}, false},
		{"a controller of another group", withRefs(controllerRef("example.com/v1", "ManagedSeedSet", "soil")), types.NamespacedName{}, false},
		{"a controller of another kind", withRefs(controllerRef("seedmanagement.gardener.cloud/v1alpha1", "ManagedSeed", "soil")), types.NamespacedName{}, false},
		{"a malformed apiVersion", withRefs(controllerRef("seedmanagement.gardener.cloud/v1/x", "ManagedSeedSet", "soil")), types.NamespacedName{}, false},
		{"an empty label", builders.MakeShoot("garden", "x").Labels(seedmanagementv1alpha1.LabelManagedSeedSet, "").Obj(), types.NamespacedName{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := membership.SetOf(tt.obj)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.ok, membership.IsReplica(tt.obj))
		})
	}
}

func TestManagedSeedOf(t *testing.T) {
	tests := []struct {
		name string
		seed *gardencorev1beta1.Seed
		want types.NamespacedName
	}{
		{"a Gardener seed: its ManagedSeed is in the garden namespace",
			builders.MakeSeed("soil-0").Labels("seed.gardener.cloud/pool", "soil").Obj(), types.NamespacedName{Namespace: "garden", Name: "soil-0"}},
		{"a seed seedscaler registered names its ManagedSeed's namespace",
			builders.MakeSeed("demo-0").Labels(membership.LabelManagedSeedNamespace, "garden-a").Obj(), types.NamespacedName{Namespace: "garden-a", Name: "demo-0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, membership.ManagedSeedOf(tt.seed))
		})
	}
}

func TestSetOfSeed(t *testing.T) {
	set := gardenerSet()
	// A Gardener seed carries the seed template's labels only.
	gardenerSeed := builders.MakeSeed("soil-0").Labels("seed.gardener.cloud/pool", "soil").Obj()
	gardenerManagedSeed := &seedmanagementv1alpha1.ManagedSeed{ObjectMeta: gardenerReplica(set, "soil-0")}
	require.Equal(t, types.NamespacedName{Namespace: gardenerManagedSeed.Namespace, Name: gardenerManagedSeed.Name}, membership.ManagedSeedOf(gardenerSeed),
		"the ManagedSeed is the one ManagedSeedOf names")
	labeledSeed := builders.MakeSeed("old-0").Labels(seedmanagementv1alpha1.LabelManagedSeedSet, "old",
		seedmanagementv1alpha1.LabelManagedSeedSetNamespace, "garden-a").Obj()
	standalone := &seedmanagementv1alpha1.ManagedSeed{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "soil-0"}}
	otherName := &seedmanagementv1alpha1.ManagedSeed{ObjectMeta: gardenerReplica(set, "soil-7")}

	tests := []struct {
		name        string
		seed        *gardencorev1beta1.Seed
		managedSeed metav1.Object
		want        types.NamespacedName
		ok          bool
	}{
		{"a Gardener seed, by its ManagedSeed's owner", gardenerSeed, gardenerManagedSeed, types.NamespacedName{Namespace: "garden", Name: "soil"}, true},
		{"a Gardener seed whose ManagedSeed is not known", gardenerSeed, nil, types.NamespacedName{}, false},
		{"a seed of a ManagedSeed of no set", gardenerSeed, standalone, types.NamespacedName{}, false},
		{"a ManagedSeed of another name is not the seed's", gardenerSeed, otherName, types.NamespacedName{}, false},
		{"a labeled seed without its ManagedSeed, by its labels", labeledSeed, nil, types.NamespacedName{Namespace: "garden-a", Name: "old"}, true},
		{"the ManagedSeed's set wins over the seed's labels",
			builders.MakeSeed("soil-0").Labels(seedmanagementv1alpha1.LabelManagedSeedSet, "old", seedmanagementv1alpha1.LabelManagedSeedSetNamespace, "garden-a").Obj(),
			gardenerManagedSeed, types.NamespacedName{Namespace: "garden", Name: "soil"}, true},
		{"a set label without its namespace names no set",
			builders.MakeSeed("old-1").Labels(seedmanagementv1alpha1.LabelManagedSeedSet, "old").Obj(), nil, types.NamespacedName{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := membership.SetOfSeed(tt.seed, tt.managedSeed)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}
