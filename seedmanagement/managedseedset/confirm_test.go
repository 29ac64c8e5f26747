//go:build integration

package managedseedset

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// TestScaleInConfirmsOnTheAPIServerThatTheSeedIsEmpty gives an actuator a usage index that
// missed a shoot's binding (a lagging cache) and a set that scales in: it must not delete the
// ManagedSeed of the seed the shoot landed on, and must ask to look again soon.
func TestScaleInConfirmsOnTheAPIServerThatTheSeedIsEmpty(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := namespace(ctx, t, "confirm")
	set := testenv.Unique("confirm")
	key := createSet(ctx, t, ns, set, 1)
	requireSettled(ctx, t, key, 1)
	replica := client.ObjectKey{Namespace: ns, Name: set + "-0"}
	placeShoot(ctx, t, ns, "tenant", replica.Name)
	// The running controllers see the shoot and hold the scale-in back.
	scale(ctx, t, key, 0)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		s := getSet(ctx, c, key)
		require.Equal(c, s.Generation, s.Status.ObservedGeneration)
		require.Equal(c, metav1.ConditionTrue, setCondition(s, seedmanagementv1alpha1.ManagedSeedSetScaleInBlocked).Status)
	}, eventually, tick)

	stale := &Actuator{
		LiveReplicas: true, Client: env.Client, APIReader: env.Client, Clock: clock.RealClock{},
		Recorder: events.NewFakeRecorder(100), Usage: usage.NewIndex(), MaxShootRetries: testMaxRetries,
		expectations: newExpectations(),
	}
	staleSet := getSet(ctx, t, key)
	out, err := stale.Reconcile(ctx, staleSet)
	require.NoError(t, err)
	assert.True(t, out.recheck, "the stale index picked the seed; the set looks again once the cache catches up")
	ms := &seedmanagementv1alpha1.ManagedSeed{}
	require.NoError(t, env.Client.Get(ctx, replica, ms))
	assert.Nil(t, ms.DeletionTimestamp, "the ManagedSeed of a seed that hosts a shoot stays")
	assert.Nil(t, staleSet.Status.PendingReplica)

	deleteShoot(ctx, t, ns, "tenant")
	requireSettled(ctx, t, key, 0)
	assertInvariants(t, set)
}
