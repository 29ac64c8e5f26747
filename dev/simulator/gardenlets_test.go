//go:build integration

package simulator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// createManagedSeed makes what the seed and set controllers would have made: a shoot on the
// soil, its ManagedSeed and the registered Seed, all named name.
func createManagedSeed(t *testing.T, name string, seed *gardencorev1beta1.Seed) {
	t.Helper()
	ctx := t.Context()
	require.NoError(t, env.Client.Create(ctx, builders.MakeShoot("garden", name).SeedName("soil").Purpose(gardencorev1beta1.ShootPurposeInfrastructure).Obj()))
	ms := &seedmanagementv1alpha1.ManagedSeed{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: name},
		Spec: seedmanagementv1alpha1.ManagedSeedSpec{
			Shoot:        &seedmanagementv1alpha1.Shoot{Name: name},
			SeedTemplate: &gardencorev1beta1.SeedTemplate{Spec: *seed.Spec.DeepCopy()},
		},
	}
	require.NoError(t, env.Client.Create(ctx, ms))
	createSeed(t, seed)
}

func TestHeartbeatsAndFaults(t *testing.T) {
	// Speed 60: the creation takes 1s, the heartbeat fault of seed hb-managed lasts from 10s to
	// 20s of wall-clock time. Heartbeats every 10 simulated seconds are at most one a tick (1s).
	h := newHarness(t, `
speed: 60
shoots: {createDelay: 1m, jitter: 0}
gardenlets: {renewUnmanagedSeeds: false, heartbeatInterval: 10s}
faults:
- {type: heartbeat, seed: hb-managed, at: 10m, duration: 10m}
demand: {constant: {shoots: 0}}
`)
	ensureNamespace(t, "garden")
	createManagedSeed(t, "hb-managed", builders.MakeSeed("hb-managed").Backup("gcp").Obj())
	// A ManagedSeed whose shoot is not created yet (unbound): no gardenlet runs.
	require.NoError(t, env.Client.Create(h.ctx, builders.MakeShoot("garden", "hb-pending").Obj()))
	require.NoError(t, env.Client.Create(h.ctx, &seedmanagementv1alpha1.ManagedSeed{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "hb-pending"},
		Spec: seedmanagementv1alpha1.ManagedSeedSpec{Shoot: &seedmanagementv1alpha1.Shoot{Name: "hb-pending"},
			SeedTemplate: &gardencorev1beta1.SeedTemplate{Spec: builders.MakeSeed("x").Obj().Spec}},
	}))
	createSeed(t, builders.MakeSeed("hb-pending").Obj())
	// A seed made by hand, and renewUnmanagedSeeds is off: no gardenlet runs.
	createSeed(t, builders.MakeSeed("hb-unmanaged").Obj())
	seedBefore := &gardencorev1beta1.Seed{}
	require.NoError(t, env.Client.Get(h.ctx, client.ObjectKey{Name: "hb-managed"}, seedBefore))

	h.step(0)
	assert.Nil(t, h.lease("hb-managed"), "the seed's shoot is still being created")
	h.step(time.Second) // the shoot succeeds, and the gardenlet starts
	lease := h.lease("hb-managed")
	require.NotNil(t, lease, "the gardenlet of a seed whose shoot succeeded heartbeats")
	assert.Equal(t, epoch.Add(time.Second), lease.Spec.RenewTime.Time.UTC())
	h.step(time.Second)
	assert.Equal(t, epoch.Add(2*time.Second), h.lease("hb-managed").Spec.RenewTime.Time.UTC())
	assert.Equal(t, "gardenlet-hb-managed", *lease.Spec.HolderIdentity)
	assert.Nil(t, h.lease("hb-pending"), "no gardenlet without a created shoot")
	assert.Nil(t, h.lease("hb-unmanaged"), "no gardenlet for seeds made by hand when renewUnmanagedSeeds is off")
	backup := func() *metav1.Condition {
		seed := &gardencorev1beta1.Seed{}
		require.NoError(t, env.Client.Get(h.ctx, client.ObjectKey{Name: "hb-managed"}, seed))
		return meta.FindStatusCondition(seed.Status.Conditions, gardencorev1beta1.SeedBackupBucketsReady)
	}
	require.NotNil(t, backup())
	assert.Equal(t, metav1.ConditionTrue, backup().Status)

	h.step(time.Second)
	assert.Equal(t, epoch.Add(3*time.Second), h.lease("hb-managed").Spec.RenewTime.Time.UTC(), "renewed every tick")

	// The fault: from 10 simulated minutes on, for 10, no heartbeat.
	h.step(6 * time.Second) // 9s
	assert.Equal(t, epoch.Add(9*time.Second), h.lease("hb-managed").Spec.RenewTime.Time.UTC())
	for range 10 {
		h.step(time.Second) // 10s .. 19s
		assert.Equal(t, epoch.Add(9*time.Second), h.lease("hb-managed").Spec.RenewTime.Time.UTC(), "no heartbeat while the fault lasts")
	}
	h.step(time.Second) // 20s: the fault is over
	assert.Equal(t, epoch.Add(20*time.Second), h.lease("hb-managed").Spec.RenewTime.Time.UTC(), "heartbeats resume after the fault")

	// Faults by hand: the annotation on the seed stops heartbeats and breaks the backup.
	annotate := func(value string) {
		seed := &gardencorev1beta1.Seed{}
		require.NoError(t, env.Client.Get(h.ctx, client.ObjectKey{Name: "hb-managed"}, seed))
		orig := seed.DeepCopy()
		if seed.Annotations == nil {
			seed.Annotations = map[string]string{}
		}
		seed.Annotations[AnnotationFaults] = value
		require.NoError(t, env.Client.Patch(h.ctx, seed, client.MergeFrom(orig)))
	}
	annotate("heartbeat, backup")
	h.step(time.Second)
	h.step(time.Second)
	assert.Equal(t, epoch.Add(20*time.Second), h.lease("hb-managed").Spec.RenewTime.Time.UTC())
	assert.Equal(t, metav1.ConditionFalse, backup().Status)
	assert.Equal(t, ReasonBackupBucketsUnavailable, backup().Reason)
	annotate("")
	h.step(time.Second)
	assert.Equal(t, epoch.Add(23*time.Second), h.lease("hb-managed").Spec.RenewTime.Time.UTC())
	assert.Equal(t, metav1.ConditionTrue, backup().Status)

	// The gardenlet writes the lease and its one condition, nothing else of the seed.
	seedAfter := &gardencorev1beta1.Seed{}
	require.NoError(t, env.Client.Get(h.ctx, client.ObjectKey{Name: "hb-managed"}, seedAfter))
	assert.Equal(t, seedBefore.Spec, seedAfter.Spec)
	assert.Equal(t, seedBefore.Generation, seedAfter.Generation)
	assert.Equal(t, seedBefore.Status.LastOperation, seedAfter.Status.LastOperation)
	assert.Len(t, seedAfter.Status.Conditions, 1)
}
