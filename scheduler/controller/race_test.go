//go:build integration

package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// createInParallel creates objects with 8 concurrent clients.
func createInParallel(tb testing.TB, objs []client.Object) {
	tb.Helper()
	inParallel(tb, objs, func(obj client.Object) error {
		if err := env.Client.Create(context.Background(), obj); err != nil {
			return fmt.Errorf("creating %s: %w", client.ObjectKeyFromObject(obj), err)
		}
		return nil
	})
}

// TestWorkersNeverOvercommitASeed lets 8 workers of the real controller bind 2,000 shoots,
// all queued at once, onto 40 seeds with room for 40 shoots each. The informer lags behind
// the binds, so only the in-memory reservations keep two workers from taking the same last
// place. A seed's shoots can never move (spec.seedName is immutable), so the end state
// shows any overcommit that ever happened.
func TestWorkersNeverOvercommitASeed(t *testing.T) {
	const (
		ns          = "race"
		provider    = "race"
		seeds       = 40
		allocatable = 40
		shoots      = 2000
	)
	ctx := context.Background()
	createNamespace(t, ns)
	createCloudProfile(t, provider, nil, "r1")
	for i := range seeds {
		seed := builders.MakeSeed(fmt.Sprintf("race-%02d", i)).Provider(provider, "r1").Allocatable(allocatable).Ready().Obj()
		createSeed(t, seed)
		t.Cleanup(func() { assert.NoError(t, client.IgnoreNotFound(env.Client.Delete(ctx, seed))) })
	}
	objs := make([]client.Object, shoots)
	for i := range objs {
		objs[i] = builders.MakeShoot(ns, fmt.Sprintf("shoot-%04d", i)).CloudProfile(provider).Provider(provider, "r1").SchedulerName("race-scheduler").Obj()
	}
	createInParallel(t, objs)

	startScheduler(t, &config.SchedulerConfiguration{
		SchedulerName: "race-scheduler",
		Workers:       8,
		// Shoots that fit nowhere fail once during the test instead of retrying.
		Backoff: &config.Backoff{BaseSeconds: 300, MaxSeconds: 300},
	})

	// Wait until every shoot is either bound or reported unschedulable.
	var list gardencorev1beta1.ShootList
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		list = gardencorev1beta1.ShootList{}
		require.NoError(c, env.Client.List(ctx, &list, client.InNamespace(ns)))
		require.Len(c, list.Items, shoots)
		for _, shoot := range list.Items {
			require.True(c, shoot.Spec.SeedName != nil || shoot.Status.LastOperation != nil, "shoot %s is neither bound nor reported", shoot.Name)
		}
	}, 60*time.Second, 250*time.Millisecond)

	perSeed := map[string]int{}
	bound := 0
	for _, shoot := range list.Items {
		if shoot.Spec.SeedName != nil {
			perSeed[*shoot.Spec.SeedName]++
			bound++
			continue
		}
		op := shoot.Status.LastOperation
		assert.Equal(t, gardencorev1beta1.LastOperationStatePending, op.State, shoot.Name)
		assert.True(t, strings.Contains(op.Description, fmt.Sprintf("CapacityExhausted: %d seed(s)", seeds)), "shoot %s: %s", shoot.Name, op.Description)
	}
	for seed, n := range perSeed {
		assert.LessOrEqual(t, n, allocatable, "seed %s is above its allocatable", seed)
	}
	assert.Len(t, perSeed, seeds)
	assert.Equal(t, seeds*allocatable, bound, "every shoot that fits is bound")
}
