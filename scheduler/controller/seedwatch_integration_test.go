//go:build integration

package controller

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// A shoot no seed takes waits in backoff, here two minutes. When the only seed of its region
// turns ready, the shoot is tried again at once and bound, long before its backoff ends.
func TestWaitingShootIsTriedAgainWhenASeedTurnsReady(t *testing.T) {
	ctx := context.Background()
	const ns = "seed-turns-ready"
	createNamespace(t, ns)
	createCloudProfile(t, "retrycloud", nil, "rc-1")
	seed := builders.MakeSeed("rc-seed").Provider("retrycloud", "rc-1").Zones("z1").Allocatable(10).Ready().Obj()
	meta.SetStatusCondition(&seed.Status.Conditions, metav1.Condition{
		Type: gardencorev1beta1.SeedGardenletReady, Status: metav1.ConditionFalse, Reason: "Bootstrapping",
	})
	createSeed(t, seed)
	startScheduler(t, &config.SchedulerConfiguration{Backoff: &config.Backoff{BaseSeconds: 120, MaxSeconds: 300}})

	shoot := builders.MakeShoot(ns, "waits").CloudProfile("retrycloud").Provider("retrycloud", "rc-1").Obj()
	require.NoError(t, env.Client.Create(ctx, shoot))
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		assert.NotEmpty(c, schedulerEvents(c, ns, "waits")[string(EventSchedulingFailed)], "the shoot waits in backoff")
	}, 15*time.Second, 100*time.Millisecond)

	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(seed), seed))
	meta.SetStatusCondition(&seed.Status.Conditions, metav1.Condition{
		Type: gardencorev1beta1.SeedGardenletReady, Status: metav1.ConditionTrue, Reason: "GardenletReady",
	})
	require.NoError(t, env.Client.Status().Update(ctx, seed))
	require.Eventually(t, func() bool {
		got := &gardencorev1beta1.Shoot{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(shoot), got))
		return got.Spec.SeedName != nil && *got.Spec.SeedName == "rc-seed"
	}, 15*time.Second, 100*time.Millisecond, "the waiting shoot was not bound when its seed turned ready, only at its backoff two minutes on")
}
