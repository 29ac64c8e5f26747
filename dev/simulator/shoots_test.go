//go:build integration

package simulator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// At speed 60 a wall-clock second is a simulated minute: creations take 10s, deletions 2s.
const lifecycleConfig = `
speed: 60
shoots: {createDelay: 10m, deleteDelay: 2m, jitter: 0}
gardenlets: {renewUnmanagedSeeds: false}
demand: {constant: {shoots: 0}}
`

func TestBoundShootSucceedsAndDeletedShootDisappears(t *testing.T) {
	h := newHarness(t, lifecycleConfig)
	ensureNamespace(t, "garden-hand")
	bound := builders.MakeShoot("garden-hand", "bound").SeedName("seed-a").Obj()
	unbound := builders.MakeShoot("garden-hand", "unbound").Obj()
	require.NoError(t, env.Client.Create(h.ctx, bound))
	require.NoError(t, env.Client.Create(h.ctx, unbound))

	h.step(0)
	sh := h.shoot("garden-hand", "bound")
	assert.True(t, controllerutil.ContainsFinalizer(sh, Finalizer), "the simulator owns the shoot's deletion")
	require.NotNil(t, sh.Status.LastOperation)
	assert.Equal(t, gardencorev1beta1.LastOperationTypeCreate, sh.Status.LastOperation.Type)
	assert.Equal(t, gardencorev1beta1.LastOperationStateProcessing, sh.Status.LastOperation.State)
	assert.Equal(t, ptr.To("seed-a"), sh.Status.SeedName, "status.seedName follows spec.seedName")

	h.step(9 * time.Second)
	assert.Equal(t, gardencorev1beta1.LastOperationStateProcessing, h.shoot("garden-hand", "bound").Status.LastOperation.State,
		"9 simulated minutes into a 10 minute creation")
	h.step(time.Second)
	sh = h.shoot("garden-hand", "bound")
	assert.Equal(t, gardencorev1beta1.LastOperationStateSucceeded, sh.Status.LastOperation.State)
	assert.Equal(t, int32(100), sh.Status.LastOperation.Progress)
	assert.Equal(t, sh.Generation, sh.Status.ObservedGeneration)

	un := h.shoot("garden-hand", "unbound")
	assert.Nil(t, un.Spec.SeedName, "the simulator never binds a shoot")
	assert.Nil(t, un.Status.SeedName)
	assert.Nil(t, un.Status.LastOperation, "an unbound shoot waits for the scheduler")

	// A changed spec is reconciled.
	sh = h.shoot("garden-hand", "bound")
	orig := sh.DeepCopy()
	sh.Spec.Purpose = ptr.To(gardencorev1beta1.ShootPurposeProduction)
	require.NoError(t, env.Client.Patch(h.ctx, sh, client.MergeFrom(orig)))
	h.step(time.Second)
	op := h.shoot("garden-hand", "bound").Status.LastOperation
	assert.Equal(t, gardencorev1beta1.LastOperationTypeReconcile, op.Type)
	assert.Equal(t, gardencorev1beta1.LastOperationStateProcessing, op.State)
	h.step(10 * time.Second)
	sh = h.shoot("garden-hand", "bound")
	assert.Equal(t, gardencorev1beta1.LastOperationStateSucceeded, sh.Status.LastOperation.State)
	assert.Equal(t, sh.Generation, sh.Status.ObservedGeneration)

	// Deleted: Delete/Processing for the deletion delay, then gone.
	require.NoError(t, env.Client.Delete(h.ctx, sh))
	require.NoError(t, env.Client.Delete(h.ctx, un))
	h.step(0)
	sh = h.shoot("garden-hand", "bound")
	require.NotNil(t, sh.DeletionTimestamp)
	assert.Equal(t, gardencorev1beta1.LastOperationTypeDelete, sh.Status.LastOperation.Type)
	assert.Equal(t, gardencorev1beta1.LastOperationStateProcessing, sh.Status.LastOperation.State)
	h.step(time.Second)
	assert.False(t, h.gone("garden-hand", "bound"), "1 simulated minute into a 2 minute deletion")
	h.step(time.Second)
	assert.True(t, h.gone("garden-hand", "bound"), "the infrastructure is gone, and the finalizer with it")
	assert.True(t, h.gone("garden-hand", "unbound"))
}

func TestProcessingShootOfAnEarlierRunFinishes(t *testing.T) {
	h := newHarness(t, lifecycleConfig)
	ensureNamespace(t, "garden-hand")
	sh := builders.MakeShoot("garden-hand", "inherited").SeedName("seed-a").Obj()
	require.NoError(t, env.Client.Create(h.ctx, sh))
	sh.Status.SeedName = ptr.To("seed-a")
	sh.Status.LastOperation = &gardencorev1beta1.LastOperation{Type: gardencorev1beta1.LastOperationTypeCreate, State: gardencorev1beta1.LastOperationStateProcessing}
	require.NoError(t, env.Client.Status().Update(h.ctx, sh))

	h.step(0)
	assert.Equal(t, gardencorev1beta1.LastOperationStateProcessing, h.shoot("garden-hand", "inherited").Status.LastOperation.State)
	h.step(10 * time.Second)
	assert.Equal(t, gardencorev1beta1.LastOperationStateSucceeded, h.shoot("garden-hand", "inherited").Status.LastOperation.State,
		"an operation the simulator did not start ends a creation delay after it first saw it")
}

func TestFailedCreationsAreRetriedWhenAnnotated(t *testing.T) {
	h := newHarness(t, lifecycleConfig+"randomSeed: 3\n")
	h.cfg.Shoots.FailureRate = 0.5
	ensureNamespace(t, "garden-hand")
	const n = 16
	for i := range n {
		require.NoError(t, env.Client.Create(h.ctx, builders.MakeShoot("garden-hand", "s"+string(rune('a'+i))).SeedName("seed-a").Obj()))
	}
	h.step(0)
	h.step(10 * time.Second)

	states := func() (failed, succeeded []*gardencorev1beta1.Shoot) {
		list := &gardencorev1beta1.ShootList{}
		require.NoError(t, env.Client.List(h.ctx, list, client.InNamespace("garden-hand")))
		for i := range list.Items {
			sh := &list.Items[i]
			switch sh.Status.LastOperation.State {
			case gardencorev1beta1.LastOperationStateFailed:
				failed = append(failed, sh)
			case gardencorev1beta1.LastOperationStateSucceeded:
				succeeded = append(succeeded, sh)
			}
		}
		return failed, succeeded
	}
	failed, succeeded := states()
	require.Len(t, append(failed, succeeded...), n, "every creation ended")
	require.NotEmpty(t, failed, "a failure rate of 0.5 fails some of 16 creations")
	require.NotEmpty(t, succeeded, "a failure rate of 0.5 lets some of 16 creations succeed")
	for _, sh := range failed {
		assert.Equal(t, gardencorev1beta1.LastOperationTypeCreate, sh.Status.LastOperation.Type)
		assert.Contains(t, sh.Status.LastOperation.Description, "gardener.cloud/operation=retry")
	}

	h.step(10 * time.Second)
	again, _ := states()
	assert.Len(t, again, len(failed), "a failed shoot waits for someone to ask for a retry")

	// The set controller asks for a retry by annotating the shoot.
	h.cfg.Shoots.FailureRate = 0
	for _, sh := range failed {
		orig := sh.DeepCopy()
		metav1.SetMetaDataAnnotation(&sh.ObjectMeta, seedmanagementv1alpha1.AnnotationOperation, seedmanagementv1alpha1.OperationRetry)
		require.NoError(t, env.Client.Patch(h.ctx, sh, client.MergeFrom(orig)))
	}
	h.step(time.Second)
	for _, f := range failed {
		sh := h.shoot(f.Namespace, f.Name)
		assert.NotContains(t, sh.Annotations, seedmanagementv1alpha1.AnnotationOperation, "the retry annotation is consumed")
		assert.Equal(t, gardencorev1beta1.LastOperationStateProcessing, sh.Status.LastOperation.State)
		assert.Equal(t, gardencorev1beta1.LastOperationTypeCreate, sh.Status.LastOperation.Type)
	}
	h.step(10 * time.Second)
	failed, succeeded = states()
	assert.Empty(t, failed)
	assert.Len(t, succeeded, n)
}

// A running shoot whose spec.seedName changes migrates: its control plane stays on the old
// seed (status.seedName) for the migration delay, then follows. A failed migration leaves it
// on the old seed until it is rolled back (spec.seedName set back) or retried.
func TestControlPlaneMigrationSucceedsOrFailsOnTheOldSeed(t *testing.T) {
	h := newHarness(t, lifecycleConfig+"randomSeed: 3\n")
	ensureNamespace(t, "garden-move")
	for _, name := range []string{"ok", "fails"} {
		require.NoError(t, env.Client.Create(h.ctx, builders.MakeShoot("garden-move", name).SeedName("seed-a").Obj()))
	}
	h.step(0)
	h.step(10 * time.Second)
	moveTo := func(name, seed string) {
		sh := h.shoot("garden-move", name)
		orig := sh.DeepCopy()
		sh.Spec.SeedName = ptr.To(seed)
		require.NoError(t, env.Client.Patch(h.ctx, sh, client.MergeFrom(orig)))
	}
	moveTo("ok", "seed-b")
	h.step(time.Second)
	sh := h.shoot("garden-move", "ok")
	assert.Equal(t, gardencorev1beta1.LastOperationTypeMigrate, sh.Status.LastOperation.Type)
	assert.Equal(t, gardencorev1beta1.LastOperationStateProcessing, sh.Status.LastOperation.State)
	assert.Equal(t, "Migrating the control plane from seed seed-a to seed seed-b (simulated).", sh.Status.LastOperation.Description)
	assert.Equal(t, ptr.To("seed-a"), sh.Status.SeedName, "the control plane runs on the old seed while it migrates")
	h.step(9 * time.Second)
	assert.Equal(t, ptr.To("seed-a"), h.shoot("garden-move", "ok").Status.SeedName, "9 of the 10 default minutes")
	h.step(time.Second)
	sh = h.shoot("garden-move", "ok")
	assert.Equal(t, gardencorev1beta1.LastOperationStateSucceeded, sh.Status.LastOperation.State)
	assert.Equal(t, ptr.To("seed-b"), sh.Status.SeedName, "the control plane runs on the new seed")

	h.cfg.Shoots.MigrationFailureRate = 1
	moveTo("fails", "seed-b")
	h.step(time.Second)
	h.step(10 * time.Second)
	sh = h.shoot("garden-move", "fails")
	assert.Equal(t, gardencorev1beta1.LastOperationTypeMigrate, sh.Status.LastOperation.Type)
	assert.Equal(t, gardencorev1beta1.LastOperationStateFailed, sh.Status.LastOperation.State)
	assert.Equal(t, ptr.To("seed-a"), sh.Status.SeedName, "a failed migration leaves the control plane on the old seed")
	h.step(10 * time.Second)
	assert.Equal(t, gardencorev1beta1.LastOperationStateFailed, h.shoot("garden-move", "fails").Status.LastOperation.State, "it waits to be rolled back")

	moveTo("fails", "seed-a")
	h.step(time.Second)
	sh = h.shoot("garden-move", "fails")
	assert.Equal(t, gardencorev1beta1.LastOperationTypeReconcile, sh.Status.LastOperation.Type, "rolled back: reconciled where it runs")
	h.step(10 * time.Second)
	sh = h.shoot("garden-move", "fails")
	assert.Equal(t, gardencorev1beta1.LastOperationStateSucceeded, sh.Status.LastOperation.State)
	assert.Equal(t, ptr.To("seed-a"), sh.Status.SeedName)
}
