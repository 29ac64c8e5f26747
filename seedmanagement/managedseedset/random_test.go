//go:build integration

package managedseedset

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// TestRandomScalingWhileShootsLand scales sets up and down many times, from fixed seeds, while
// tenant shoots land on and leave their seeds. Throughout, no seed that hosts shoots loses
// its ManagedSeed or Seed, and no replica name is used twice.
func TestRandomScalingWhileShootsLand(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2} {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			t.Parallel()
			randomScaling(t, seed, 25)
		})
	}
}

// tenants is the test's book of the tenant shoots it placed: shoot name to seed.
type tenants map[string]string

func (ts tenants) hosting() map[string]int {
	out := map[string]int{}
	for _, seedName := range ts {
		out[seedName]++
	}
	return out
}

func randomScaling(t *testing.T, seed uint64, iterations int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 0))
	ns := namespace(ctx, t, "random")
	set := testenv.Unique(fmt.Sprintf("random%d-", seed))
	key := createSet(ctx, t, ns, set, 0)
	requireSettled(ctx, t, key, 0)
	placed := tenants{}
	next := 0
	var scaleIns, blockedScaleIns int

	// land puts up to n tenant shoots on random ready seeds of the set, as the scheduler
	// would: never on a seed whose ManagedSeed is being deleted.
	land := func(n int) {
		for range n {
			var ready []string
			for _, name := range managedSeedNames(ctx, t, key) {
				if seedExists(ctx, t, name) && seedIsReady(ctx, t, name) {
					ready = append(ready, name)
				}
			}
			if len(ready) == 0 {
				return
			}
			target := ready[rng.IntN(len(ready))]
			name := fmt.Sprintf("tenant-%d", next)
			next++
			placeShoot(ctx, t, ns, name, target)
			placed[name] = target
		}
	}
	// leave deletes up to n random tenant shoots.
	leave := func(n int) {
		for range n {
			if len(placed) == 0 {
				return
			}
			shoots := make([]string, 0, len(placed))
			for name := range placed {
				shoots = append(shoots, name)
			}
			slices.Sort(shoots)
			name := shoots[rng.IntN(len(shoots))]
			deleteShoot(ctx, t, ns, name)
			delete(placed, name)
		}
	}

	for i := range iterations {
		current := int(getSet(ctx, t, key).Status.Replicas)
		want := rng.IntN(6)
		if want < current {
			scaleIns++
			// Shoots land before the scale-in and may leave during it.
			land(rng.IntN(3))
			scale(ctx, t, key, int32(want))
			leave(rng.IntN(2))
		} else {
			// Shoots land while the set scales out.
			scale(ctx, t, key, int32(want))
			land(rng.IntN(3))
			leave(rng.IntN(2))
		}

		// The set ends at the asked replicas, or above them by the replicas that host shoots.
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			s := getSet(ctx, c, key)
			require.Equal(c, s.Generation, s.Status.ObservedGeneration)
			require.Nil(c, s.Status.PendingReplica)
			replicas := replicaNames(ctx, c, key)
			hosting := 0
			for _, name := range replicas {
				if placed.hosting()[name] > 0 {
					hosting++
				}
			}
			expected := max(want, hosting)
			require.Len(c, replicas, expected, "iteration %d: asked for %d, %d host shoots: %v", i, want, hosting, replicas)
			require.Equal(c, int32(expected), s.Status.Replicas)
			require.Equal(c, int32(expected), s.Status.ReadyReplicas)
			blocked := setCondition(s, seedmanagementv1alpha1.ManagedSeedSetScaleInBlocked)
			require.NotNil(c, blocked)
			if expected > want {
				require.Equal(c, metav1.ConditionTrue, blocked.Status)
			} else {
				require.Equal(c, metav1.ConditionFalse, blocked.Status)
			}
		}, eventually, tick, "iteration %d", i)
		if want < current && int(getSet(ctx, t, key).Status.Replicas) > want {
			blockedScaleIns++
		}

		// Every seed that hosts a shoot still has its replica.
		for shoot, seedName := range placed {
			ms := &seedmanagementv1alpha1.ManagedSeed{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: seedName}, ms), "iteration %d: shoot %s is on %s", i, shoot, seedName)
			require.Nil(t, ms.DeletionTimestamp, "iteration %d: shoot %s is on %s", i, shoot, seedName)
			require.True(t, seedExists(ctx, t, seedName))
		}
	}

	leave(len(placed))
	scale(ctx, t, key, 0)
	s := requireSettled(ctx, t, key, 0)

	// Ordinals were handed out in order, once each.
	created := map[string]uint64{}
	for _, r := range hist.sorted("Shoot") {
		if r.set == set {
			if _, seen := created[r.key]; !seen {
				created[r.key] = r.rv
			}
		}
	}
	require.NotEmpty(t, created)
	byCreation := make([]string, 0, len(created))
	for k := range created {
		byCreation = append(byCreation, k)
	}
	slices.SortFunc(byCreation, func(a, b string) int { return int(created[a]) - int(created[b]) })
	for i, k := range byCreation {
		assert.Equal(t, fmt.Sprintf("%s/%s-%d", ns, set, i), k, "the %d. replica created", i)
	}
	assert.Equal(t, int32(len(created)), s.Status.NextReplicaNumber)
	assertInvariants(t, set)
	assert.Positive(t, blockedScaleIns, "the seed exercises blocked scale-ins")
	assert.Greater(t, scaleIns, blockedScaleIns, "the seed exercises scale-ins that remove replicas")
	t.Logf("%d scale-ins, %d of them blocked; %d replicas created, %d tenant shoots placed: %s",
		scaleIns, blockedScaleIns, len(created), next, strings.Join(byCreation, " "))
}
