package controller_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/membership"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/scheduler/controller"
	"github.com/seedscaler/seedscaler/scheduler/drain"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

func TestSlimBoundShootsKeepsWhatCountingAndDrainingRead(t *testing.T) {
	bound := builders.MakeShoot("garden-dev", "t-1").Provider("gcp", "europe-west1").CloudProfile("gcp").
		SchedulerName("custom").SeedName("seed-b").StatusSeedName("seed-a").
		LastOperation(gardencorev1beta1.LastOperationTypeMigrate, gardencorev1beta1.LastOperationStateFailed).
		Labels("team", "x").
		Annotations(gardencorev1beta1.AnnotationMigration, gardencorev1beta1.MigrationDisabled, "note", "a long text").Obj()
	bound.Status.LastOperation.Description = "a long description"
	// A replica's shoot as Gardener's set controller makes it: a controller reference, no
	// set label.
	bound.OwnerReferences = []metav1.OwnerReference{
		{APIVersion: "v1", Kind: "ConfigMap", Name: "other"},
		{APIVersion: "seedmanagement.gardener.cloud/v1alpha1", Kind: "ManagedSeedSet", Name: "set", UID: "uid-set", Controller: new(true), BlockOwnerDeletion: new(true)},
	}
	bound.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "tenant"}}
	bound.UID, bound.ResourceVersion, bound.Generation = "uid-1", "42", 3
	whole := bound.DeepCopy()

	out, err := controller.SlimBoundShoots(bound)
	require.NoError(t, err)
	record, ok := out.(*usage.Record)
	require.True(t, ok, "a bound shoot is cached as a record, not a %T", out)
	slim := record.Expand().(*gardencorev1beta1.Shoot)

	assert.Equal(t, usage.SeedNames(whole), usage.SeedNames(slim), "counted on the same seeds")
	assert.Equal(t, usage.Key(whole), usage.Key(slim))
	assert.Equal(t, "42", slim.ResourceVersion, "a bind's patch is guarded by it")
	assert.EqualValues(t, "uid-1", slim.UID)
	assert.True(t, controller.Responsible(slim, "custom"))
	set, isReplica := membership.SetOf(slim)
	assert.True(t, isReplica, "still a replica's shoot")
	assert.Equal(t, types.NamespacedName{Namespace: "garden-dev", Name: "set"}, set)
	back, failed := drain.FailedMigration(slim)
	assert.True(t, failed)
	assert.Equal(t, "seed-a", back)
	for _, seed := range []string{"seed-a", "seed-b"} {
		assert.Equal(t, drain.Classify(whole, seed, "custom", time.Time{}, 0, time.Time{}), drain.Classify(slim, seed, "custom", time.Time{}, 0, time.Time{}),
			"a drain of %s classifies it as the whole shoot", seed)
	}

	assert.Nil(t, slim.Labels)
	assert.Equal(t, map[string]string{gardencorev1beta1.AnnotationMigration: gardencorev1beta1.MigrationDisabled}, slim.Annotations)
	require.Len(t, slim.OwnerReferences, 1, "the set's reference only")
	assert.Equal(t, "set", slim.OwnerReferences[0].Name)
	assert.Empty(t, slim.OwnerReferences[0].UID, "the set's name only")
	assert.Empty(t, slim.Status.LastOperation.Description)
	assert.Empty(t, slim.Spec.Region)
	assert.Empty(t, slim.Spec.Provider.Type)
	assert.Nil(t, slim.Spec.CloudProfileName)
	assert.Nil(t, slim.ManagedFields)

	labeled := builders.MakeShoot("garden-dev", "old-0").SeedName("seed-a").Labels(seedmanagementv1alpha1.LabelManagedSeedSet, "old").Obj()
	out, err = controller.SlimBoundShoots(labeled)
	require.NoError(t, err)
	set, isReplica = membership.SetOf(out.(*usage.Record).Expand())
	assert.True(t, isReplica, "a replica's shoot labeled by seedscaler's set controller stays one")
	assert.Equal(t, types.NamespacedName{Namespace: "garden-dev", Name: "old"}, set)

	unbound := builders.MakeShoot("garden-dev", "t-2").Provider("gcp", "europe-west1").Obj()
	unbound.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "tenant"}}
	out, err = controller.SlimBoundShoots(unbound)
	require.NoError(t, err)
	kept := out.(*gardencorev1beta1.Shoot)
	assert.Equal(t, "europe-west1", kept.Spec.Region, "a shoot the scheduler decides about stays whole")
	assert.Nil(t, kept.ManagedFields)
	assert.Nil(t, kept.Spec.SeedName)

	tombstone := "not a shoot"
	out, err = controller.SlimBoundShoots(tombstone)
	require.NoError(t, err)
	assert.Equal(t, tombstone, out)
}

// Bound shoots whose last operation has the same type and state share one record of it:
// at 100,000 shoots a record each was 7.7 MB of the scheduler's heap. A copy of a slim
// shoot has a record of its own, so nothing written to a copy reaches the others.
func TestSlimBoundShootsShareTheirLastOperation(t *testing.T) {
	slim := func(name string, state gardencorev1beta1.LastOperationState) *gardencorev1beta1.Shoot {
		shoot := builders.MakeShoot("garden-dev", name).SeedName("seed-a").
			LastOperation(gardencorev1beta1.LastOperationTypeReconcile, state).Obj()
		shoot.Status.LastOperation.Progress = 100
		out, err := controller.SlimBoundShoots(shoot)
		require.NoError(t, err)
		return out.(*usage.Record).Expand().(*gardencorev1beta1.Shoot)
	}
	a, b := slim("a", gardencorev1beta1.LastOperationStateSucceeded), slim("b", gardencorev1beta1.LastOperationStateSucceeded)
	failed := slim("c", gardencorev1beta1.LastOperationStateFailed)
	assert.Same(t, a.Status.LastOperation, b.Status.LastOperation)
	assert.NotSame(t, a.Status.LastOperation, failed.Status.LastOperation)
	assert.Equal(t, gardencorev1beta1.LastOperationStateFailed, failed.Status.LastOperation.State)
	assert.Equal(t, gardencorev1beta1.LastOperationTypeReconcile, failed.Status.LastOperation.Type)

	copied := a.DeepCopy()
	copied.Status.LastOperation.State = gardencorev1beta1.LastOperationStateError
	assert.Equal(t, gardencorev1beta1.LastOperationStateSucceeded, b.Status.LastOperation.State)
}
