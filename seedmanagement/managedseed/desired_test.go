package managedseed

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/membership"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

func TestShootReconciled(t *testing.T) {
	shoot := func(typ gardencorev1beta1.LastOperationType, state gardencorev1beta1.LastOperationState) *gardencorev1beta1.Shoot {
		return builders.MakeShoot("garden", "s").LastOperation(typ, state).Obj()
	}
	deleting := builders.MakeShoot("garden", "s").LastOperation(gardencorev1beta1.LastOperationTypeReconcile, gardencorev1beta1.LastOperationStateSucceeded).Obj()
	deleting.DeletionTimestamp = &metav1.Time{}
	cases := []struct {
		name       string
		shootName  string
		shoot      *gardencorev1beta1.Shoot
		wantStatus metav1.ConditionStatus
		wantReason controllerutils.Reason
	}{
		{"no shoot named", "", nil, metav1.ConditionFalse, ReasonShootNotSpecified},
		{"shoot missing", "s", nil, metav1.ConditionFalse, ReasonShootNotFound},
		{"never reconciled", "s", builders.MakeShoot("garden", "s").Obj(), metav1.ConditionFalse, ReasonShootReconciling},
		{"create processing", "s", shoot(gardencorev1beta1.LastOperationTypeCreate, gardencorev1beta1.LastOperationStateProcessing), metav1.ConditionFalse, ReasonShootReconciling},
		{"create succeeded", "s", shoot(gardencorev1beta1.LastOperationTypeCreate, gardencorev1beta1.LastOperationStateSucceeded), metav1.ConditionTrue, ReasonShootReconcileSucceed},
		{"reconcile succeeded", "s", shoot(gardencorev1beta1.LastOperationTypeReconcile, gardencorev1beta1.LastOperationStateSucceeded), metav1.ConditionTrue, ReasonShootReconcileSucceed},
		{"reconcile pending", "s", shoot(gardencorev1beta1.LastOperationTypeReconcile, gardencorev1beta1.LastOperationStatePending), metav1.ConditionFalse, ReasonShootReconciling},
		{"reconcile failed", "s", shoot(gardencorev1beta1.LastOperationTypeReconcile, gardencorev1beta1.LastOperationStateFailed), metav1.ConditionFalse, ReasonShootReconcileFailed},
		{"create error", "s", shoot(gardencorev1beta1.LastOperationTypeCreate, gardencorev1beta1.LastOperationStateError), metav1.ConditionFalse, ReasonShootReconcileFailed},
		{"delete succeeded is no reconcile", "s", shoot(gardencorev1beta1.LastOperationTypeDelete, gardencorev1beta1.LastOperationStateSucceeded), metav1.ConditionFalse, ReasonShootDeleting},
		{"deletion timestamp", "s", deleting, metav1.ConditionFalse, ReasonShootDeleting},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := ShootReconciled(tc.shootName, tc.shoot)
			assert.Equal(t, tc.wantStatus, v.Status)
			assert.Equal(t, tc.wantReason, v.Reason)
			assert.NotEmpty(t, v.Message)
		})
	}
}

func TestDesiredSeed(t *testing.T) {
	spec := builders.MakeSeed("x").Provider("aws", "eu-west-1").Obj().Spec
	fromTemplate := &seedmanagementv1alpha1.ManagedSeed{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "ms-0", Labels: map[string]string{
			seedmanagementv1alpha1.LabelManagedSeedSet: "set", "only-on-the-managedseed": "x",
		}},
		Spec: seedmanagementv1alpha1.ManagedSeedSpec{SeedTemplate: &gardencorev1beta1.SeedTemplate{
			ObjectMetaTemplate: gardencorev1beta1.ObjectMetaTemplate{
				Labels: map[string]string{
					"foo": "bar",
					// A template cannot claim another owner or set.
					membership.LabelManagedSeedNamespace:       "elsewhere",
					seedmanagementv1alpha1.LabelManagedSeedSet: "other",
				},
				Annotations: map[string]string{"note": "hi"},
			},
			Spec: spec,
		}},
	}
	seed, err := DesiredSeed(fromTemplate)
	require.NoError(t, err)
	assert.Equal(t, "ms-0", seed.Name)
	assert.Equal(t, map[string]string{
		"foo":                                "bar",
		membership.LabelManagedSeedNamespace: "garden",
		seedmanagementv1alpha1.LabelManagedSeedSet:          "set",
		seedmanagementv1alpha1.LabelManagedSeedSetNamespace: "garden",
	}, seed.Labels)
	assert.Equal(t, map[string]string{"note": "hi"}, seed.Annotations)
	assert.Equal(t, spec, seed.Spec)
	assert.True(t, RegisteredBy(seed, fromTemplate))
	seed.Spec.Provider.Region = "changed"
	assert.Equal(t, "eu-west-1", fromTemplate.Spec.SeedTemplate.Spec.Provider.Region, "the template is not aliased")

	fromGardenlet := &seedmanagementv1alpha1.ManagedSeed{
		ObjectMeta: metav1.ObjectMeta{Namespace: "p", Name: "g"},
		Spec: seedmanagementv1alpha1.ManagedSeedSpec{Gardenlet: &seedmanagementv1alpha1.Gardenlet{
			Config: &seedmanagementv1alpha1.GardenletConfiguration{SeedConfig: &gardencorev1beta1.SeedTemplate{Spec: spec}},
		}},
	}
	seed, err = DesiredSeed(fromGardenlet)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{membership.LabelManagedSeedNamespace: "p"}, seed.Labels, "no set labels without a set")
	assert.Equal(t, spec, seed.Spec)

	// A replica's ManagedSeed as Gardener's set controller makes it: no set label, a
	// controller reference to the set.
	owned := fromGardenlet.DeepCopy()
	set := &seedmanagementv1alpha1.ManagedSeedSet{ObjectMeta: metav1.ObjectMeta{Namespace: "p", Name: "soil", UID: "uid-soil"}}
	owned.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(set, seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet"))}
	ownedSeed, err := DesiredSeed(owned)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		membership.LabelManagedSeedNamespace:                "p",
		seedmanagementv1alpha1.LabelManagedSeedSet:          "soil",
		seedmanagementv1alpha1.LabelManagedSeedSetNamespace: "p",
	}, ownedSeed.Labels, "the set of the owner reference")

	other := fromGardenlet.DeepCopy()
	other.Namespace = "q"
	assert.False(t, RegisteredBy(seed, other), "same name, other namespace")

	_, err = DesiredSeed(&seedmanagementv1alpha1.ManagedSeed{Spec: seedmanagementv1alpha1.ManagedSeedSpec{Gardenlet: &seedmanagementv1alpha1.Gardenlet{}}})
	assert.ErrorIs(t, err, errNoSeedTemplate)
}

func TestDeletionBlocked(t *testing.T) {
	blocked, msg := DeletionBlocked("s", nil)
	assert.False(t, blocked)
	assert.Empty(t, msg)

	blocked, msg = DeletionBlocked("s", []string{"p/a"})
	assert.True(t, blocked)
	assert.Equal(t, "Seed s still hosts 1 shoot (p/a): move it to other seeds or delete it; the seed is deleted once it is empty.", msg)

	blocked, msg = DeletionBlocked("s", []string{"p/a", "p/b", "p/c", "q/d", "q/e"})
	assert.True(t, blocked)
	assert.Equal(t, "Seed s still hosts 5 shoots (p/a, p/b, p/c and 2 more): move them to other seeds or delete them; the seed is deleted once it is empty.", msg)
}

func TestKeepDrainAnnotations(t *testing.T) {
	drain := map[string]string{gardencorev1beta1.AnnotationDrain: "true", gardencorev1beta1.AnnotationDrainReason: "by hand", "other": "x"}
	assert.Equal(t, map[string]string{gardencorev1beta1.AnnotationDrain: "true", gardencorev1beta1.AnnotationDrainReason: "by hand"},
		KeepDrainAnnotations(nil, drain), "an operator's drain of the Seed stays; other annotations come from the template")
	assert.Equal(t, map[string]string{gardencorev1beta1.AnnotationDrain: "false", gardencorev1beta1.AnnotationDrainReason: "by hand", "t": "v"},
		KeepDrainAnnotations(map[string]string{gardencorev1beta1.AnnotationDrain: "false", "t": "v"}, drain), "the template's value wins")
	assert.Equal(t, map[string]string{"t": "v"}, KeepDrainAnnotations(map[string]string{"t": "v"}, map[string]string{"other": "x"}))
}
