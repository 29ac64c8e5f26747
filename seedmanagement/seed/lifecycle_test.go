//go:build integration

package seed

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

const (
	eventually = 30 * time.Second
	tick       = 100 * time.Millisecond
)

// renew plays the gardenlet: it creates or renews the seed's heartbeat Lease now.
func renew(ctx context.Context, t *testing.T, seed string) {
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: LeaseNamespace, Name: seed}}
	err := env.Client.Get(ctx, client.ObjectKeyFromObject(lease), lease)
	now := &metav1.MicroTime{Time: time.Now()}
	switch {
	case apierrors.IsNotFound(err):
		lease.Spec.RenewTime = now
		require.NoError(t, env.Client.Create(ctx, lease))
	case err == nil:
		lease.Spec.RenewTime = now
		require.NoError(t, client.IgnoreNotFound(env.Client.Update(ctx, lease)))
	default:
		require.NoError(t, err)
	}
}

func gardenletReady(ctx context.Context, c *assert.CollectT, name string) *metav1.Condition {
	seed := &gardencorev1beta1.Seed{}
	if !assert.NoError(c, env.Client.Get(ctx, client.ObjectKey{Name: name}, seed)) {
		return nil
	}
	cond := meta.FindStatusCondition(seed.Status.Conditions, gardencorev1beta1.SeedGardenletReady)
	assert.NotNil(c, cond, "GardenletReady is set")
	return cond
}

func TestHeartbeatStalenessFlipsGardenletReady(t *testing.T) {
	ctx := context.Background()
	name := testenv.Unique("heartbeat")
	seed := builders.MakeSeed(name).Obj()
	require.NoError(t, env.Client.Create(ctx, seed))
	// The simulator owns BackupBucketsReady; the lifecycle controller must keep it. The
	// controller writes the status too, so retry on conflicts like any second writer.
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(seed), seed); err != nil {
			return err
		}
		meta.SetStatusCondition(&seed.Status.Conditions, metav1.Condition{
			Type: gardencorev1beta1.SeedBackupBucketsReady, Status: metav1.ConditionTrue, Reason: "Simulated", Message: "Buckets are fine.",
		})
		return env.Client.Status().Update(ctx, seed)
	}))

	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		if cond := gardenletReady(ctx, c, name); cond != nil {
			assert.Equal(c, metav1.ConditionUnknown, cond.Status)
			assert.Equal(c, string(ReasonLeaseNotFound), cond.Reason)
		}
	}, eventually, tick, "a seed whose gardenlet never reported is Unknown")

	// A live gardenlet renews its Lease all the time; renewing on every poll keeps the
	// heartbeat fresh however slow the machine is.
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		renew(ctx, t, name)
		if cond := gardenletReady(ctx, c, name); cond != nil {
			assert.Equal(c, metav1.ConditionTrue, cond.Status)
			assert.Equal(c, string(ReasonHeartbeatFresh), cond.Reason)
		}
	}, eventually, tick, "a renewed heartbeat makes the gardenlet ready")

	// The gardenlet stops; nothing but the requeue at the deadline can flip the condition.
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		if cond := gardenletReady(ctx, c, name); cond != nil {
			assert.Equal(c, metav1.ConditionUnknown, cond.Status)
			assert.Equal(c, string(ReasonSeedStatusUnknown), cond.Reason)
		}
	}, eventually, tick, "a stale heartbeat makes GardenletReady Unknown")

	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		renew(ctx, t, name)
		if cond := gardenletReady(ctx, c, name); cond != nil {
			assert.Equal(c, metav1.ConditionTrue, cond.Status)
		}
	}, eventually, tick, "the gardenlet comes back")

	got := &gardencorev1beta1.Seed{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: name}, got))
	backup := meta.FindStatusCondition(got.Status.Conditions, gardencorev1beta1.SeedBackupBucketsReady)
	require.NotNil(t, backup, "BackupBucketsReady survives every GardenletReady write")
	assert.Equal(t, metav1.ConditionTrue, backup.Status)
	assert.Equal(t, "Simulated", backup.Reason)
}

func TestUsageFollowsShoots(t *testing.T) {
	ctx := context.Background()
	ns, err := env.Namespace(ctx, "usage")
	require.NoError(t, err)
	seedA, seedB := testenv.Unique("usage-a"), testenv.Unique("usage-b")
	require.NoError(t, env.Client.Create(ctx, builders.MakeSeed(seedA).Obj()))
	require.NoError(t, env.Client.Create(ctx, builders.MakeSeed(seedB).Obj()))

	shootsOn := func(c *assert.CollectT, name string) int64 {
		seed := &gardencorev1beta1.Seed{}
		if !assert.NoError(c, env.Client.Get(ctx, client.ObjectKey{Name: name}, seed)) {
			return -1
		}
		q, ok := seed.Status.Usage[gardencorev1beta1.ResourceShoots]
		if !assert.True(c, ok, "status.usage.shoots of %s is set", name) {
			return -1
		}
		return q.Value()
	}
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		assert.Equal(c, int64(0), shootsOn(c, seedA), "an empty seed shows 0")
	}, eventually, tick)

	one := builders.MakeShoot(ns, "one").SeedName(seedA).Obj()
	two := builders.MakeShoot(ns, "two").SeedName(seedA).Obj()
	require.NoError(t, env.Client.Create(ctx, one))
	require.NoError(t, env.Client.Create(ctx, two))
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		assert.Equal(c, int64(2), shootsOn(c, seedA))
	}, eventually, tick)

	// A migration in flight counts on both seeds (status.seedName differs from spec).
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(two), two); err != nil {
			return err
		}
		two.Status.SeedName = ptr.To(seedB)
		return env.Client.Status().Update(ctx, two)
	}))
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		assert.Equal(c, int64(2), shootsOn(c, seedA))
		assert.Equal(c, int64(1), shootsOn(c, seedB))
	}, eventually, tick)

	require.NoError(t, env.Client.Delete(ctx, two))
	require.NoError(t, env.Client.Delete(ctx, one))
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		assert.Equal(c, int64(0), shootsOn(c, seedA))
		assert.Equal(c, int64(0), shootsOn(c, seedB))
	}, eventually, tick, "usage drops when shoots leave")
}
