//go:build integration

package controller

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// Beside gardener-scheduler, the shoots it cannot place ask for seeds too: a shoot of
// default-scheduler that gardener-scheduler reported unschedulable counts for the set whose
// template fits it, and stops counting once bound or deleted. A shoot not reported, or
// bound, never counts; the scheduler never binds or writes to any of them; and with
// pendingFit.otherSchedulers off, a scheduler counts none of them.
func TestShootsOtherSchedulersCannotPlaceCountInPendingFit(t *testing.T) {
	ctx := context.Background()
	const ns, provider = "elsewhere", "elsewhere"
	createNamespace(t, ns)
	createCloudProfile(t, provider, nil, "e1", "e2")
	setSpec := func(region string) gardencorev1beta1.SeedSpec {
		return builders.MakeSeed("x").Provider(provider, region).Zones("z1").Networks("10.251.0.0/16", "100.96.0.0/11", "100.64.0.0/13").Obj().Spec
	}
	near, far := managedSeedSet(ns, "near", setSpec("e1"), "5"), managedSeedSet(ns, "far", setSpec("e2"), "5")
	for _, set := range []client.Object{near, far} {
		require.NoError(t, env.Client.Create(ctx, set))
		// Other tests' schedulers report every set: leave none behind.
		t.Cleanup(func() { assert.NoError(t, client.IgnoreNotFound(env.Client.Delete(ctx, set))) })
	}

	// gardener-scheduler's shoots (no schedulerName): one it reported unschedulable, one it has
	// not reported on yet, and one bound although its last report said it could not place it.
	shoot := func(name string) *gardencorev1beta1.Shoot {
		s := builders.MakeShoot(ns, name).CloudProfile(provider).Provider(provider, "e1").Obj()
		require.NoError(t, env.Client.Create(ctx, s))
		// Others schedule default-scheduler's shoots in the tests after this one.
		t.Cleanup(func() { assert.NoError(t, client.IgnoreNotFound(env.Client.Delete(ctx, s))) })
		return s
	}
	report := func(s *gardencorev1beta1.Shoot) {
		patch := client.MergeFrom(s.DeepCopy())
		s.Status.LastOperation = &gardencorev1beta1.LastOperation{
			Type:           gardencorev1beta1.LastOperationTypeCreate,
			State:          gardencorev1beta1.LastOperationStatePending,
			Description:    "Failed to schedule Shoot: none out of the 0 seeds has the matching labels required by seed selector of 'CloudProfile'",
			LastUpdateTime: metav1.Now(),
		}
		require.NoError(t, env.Client.Status().Patch(ctx, s, patch))
	}
	reported, unreported := shoot("reported"), shoot("unreported")
	report(reported)
	bound := builders.MakeShoot(ns, "bound").CloudProfile(provider).Provider(provider, "e1").SeedName("elsewhere-1").Obj()
	require.NoError(t, env.Client.Create(ctx, bound))
	t.Cleanup(func() { assert.NoError(t, client.IgnoreNotFound(env.Client.Delete(ctx, bound))) })
	report(bound)

	s := startScheduler(t, &config.SchedulerConfiguration{SchedulerName: "seedscaler-scheduler"})
	quiet := startScheduler(t, &config.SchedulerConfiguration{SchedulerName: "quiet-scheduler", PendingFit: &config.PendingFit{OtherSchedulers: ptr.To(false)}})
	pending := func(c assert.TestingT, sched *scheduler, set string) float64 {
		v, found, err := testenv.Gathered(sched.registry, "seedscaler_scheduler_pending_shoots", map[string]string{"namespace": ns, "managedseedset": set})
		assert.NoError(c, err)
		assert.True(c, found, "a series for set %s", set)
		return v
	}
	expect := func(wantNear float64, why string) {
		t.Helper()
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			assert.Equal(c, wantNear, pending(c, s, "near"), why)
			assert.Zero(c, pending(c, s, "far"), "its template is in another region")
			assert.Zero(c, pending(c, quiet, "near"), "pendingFit.otherSchedulers: false")
		}, 15*time.Second, 100*time.Millisecond)
	}

	expect(1, "the reported shoot counts; the unreported and the bound one do not")
	assert.Never(t, func() bool { return pending(t, s, "near") != 1 }, time.Second, 100*time.Millisecond,
		"only the reported shoot counts, once every shoot has been seen")
	report(unreported)
	expect(2, "reported now, it counts as well")

	// Counted, never bound and never written to: the description is gardener-scheduler's.
	got := getShoot(t, ns, "reported")
	assert.Nil(t, got.Spec.SeedName)
	assert.Equal(t, reported.Status.LastOperation.Description, got.Status.LastOperation.Description)
	assert.Empty(t, schedulerEvents(t, ns, "reported"))

	// gardener-scheduler binds one; the other is deleted.
	require.NoError(t, env.Client.Patch(ctx, reported, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"seedName":"elsewhere-1"}}`))))
	expect(1, "a bound shoot leaves pending-fit")
	require.NoError(t, env.Client.Delete(ctx, unreported))
	expect(0, "a deleted shoot leaves pending-fit")
}
