//go:build integration

package managedseedset

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

const (
	eventually = 90 * time.Second
	tick       = 100 * time.Millisecond
)

// namespace creates a namespace with a unique name starting with prefix.
func namespace(ctx context.Context, t *testing.T, prefix string) string {
	t.Helper()
	name, err := env.Namespace(ctx, prefix)
	require.NoError(t, err)
	return name
}

// newSet is the GEP's example ManagedSeedSet (examples/managedseedset.yaml) with the given
// name, namespace and replicas, and partition 0.
func newSet(t *testing.T, ns, name string, replicas int32) *seedmanagementv1alpha1.ManagedSeedSet {
	t.Helper()
	set, err := testenv.ExampleManagedSeedSet(ns, name, replicas)
	require.NoError(t, err)
	return set
}

func createSet(ctx context.Context, t *testing.T, ns, name string, replicas int32) client.ObjectKey {
	t.Helper()
	set := newSet(t, ns, name, replicas)
	require.NoError(t, env.Client.Create(ctx, set))
	return client.ObjectKeyFromObject(set)
}

func getSet(ctx context.Context, t require.TestingT, key client.ObjectKey) *seedmanagementv1alpha1.ManagedSeedSet {
	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(t, env.Client.Get(ctx, key, set))
	return set
}

// updateSet changes the set's spec with an optimistic lock, retrying on conflicts.
func updateSet(ctx context.Context, t *testing.T, key client.ObjectKey, change func(*seedmanagementv1alpha1.ManagedSeedSet)) {
	t.Helper()
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		set := getSet(ctx, c, key)
		patch := client.MergeFromWithOptions(set.DeepCopy(), client.MergeFromWithOptimisticLock{})
		change(set)
		require.NoError(c, env.Client.Patch(ctx, set, patch))
	}, 10*time.Second, tick)
}

func scale(ctx context.Context, t *testing.T, key client.ObjectKey, replicas int32) {
	t.Helper()
	updateSet(ctx, t, key, func(set *seedmanagementv1alpha1.ManagedSeedSet) { set.Spec.Replicas = ptr.To(replicas) })
}

// requireSettled waits until the set observed its spec, has no replica in flight and has
// want replicas, all ready, and returns it.
func requireSettled(ctx context.Context, t *testing.T, key client.ObjectKey, want int32) *seedmanagementv1alpha1.ManagedSeedSet {
	t.Helper()
	var set *seedmanagementv1alpha1.ManagedSeedSet
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		set = getSet(ctx, c, key)
		require.Equal(c, set.Generation, set.Status.ObservedGeneration, "observedGeneration")
		require.Nil(c, set.Status.PendingReplica, "pendingReplica")
		require.Equal(c, want, set.Status.Replicas, "replicas")
		require.Equal(c, want, set.Status.ReadyReplicas, "readyReplicas")
		require.ElementsMatch(c, replicaNames(ctx, c, key), managedSeedNames(ctx, c, key), "every replica has its Shoot and ManagedSeed")
		require.Len(c, replicaNames(ctx, c, key), int(want))
	}, eventually, tick)
	return set
}

// replicaNames lists the names of the set's Shoots that are not being deleted, sorted.
func replicaNames(ctx context.Context, t require.TestingT, key client.ObjectKey) []string {
	return liveNames(ctx, t, key, &gardencorev1beta1.ShootList{})
}

// managedSeedNames lists the names of the set's ManagedSeeds that are not being deleted.
func managedSeedNames(ctx context.Context, t require.TestingT, key client.ObjectKey) []string {
	return liveNames(ctx, t, key, &seedmanagementv1alpha1.ManagedSeedList{})
}

// liveNames lists the names of the set's objects of a kind that are not being deleted, sorted.
func liveNames(ctx context.Context, t require.TestingT, key client.ObjectKey, list client.ObjectList) []string {
	require.NoError(t, env.Client.List(ctx, list, client.InNamespace(key.Namespace),
		client.MatchingLabels{seedmanagementv1alpha1.LabelManagedSeedSet: key.Name}))
	items, err := meta.ExtractList(list)
	require.NoError(t, err)
	var out []string
	for _, item := range items {
		if obj := item.(client.Object); obj.GetDeletionTimestamp() == nil {
			out = append(out, obj.GetName())
		}
	}
	slices.Sort(out)
	return out
}

func names(set string, ordinals ...int) []string {
	var out []string
	for _, o := range ordinals {
		out = append(out, fmt.Sprintf("%s-%d", set, o))
	}
	return out
}

// placeShoot creates a tenant shoot that the scheduler bound to the seed.
func placeShoot(ctx context.Context, t require.TestingT, ns, name, seedName string) {
	require.NoError(t, env.Client.Create(ctx, builders.MakeShoot(ns, name).Provider("gcp", "europe-west1").SeedName(seedName).Obj()))
}

func deleteShoot(ctx context.Context, t require.TestingT, ns, name string) {
	require.NoError(t, client.IgnoreNotFound(env.Client.Delete(ctx, &gardencorev1beta1.Shoot{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})))
}

// annotateManagedSeed sets (or, with an empty value, removes) an annotation of a replica.
func annotateManagedSeed(ctx context.Context, t *testing.T, ns, name, key, value string) {
	t.Helper()
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		ms := &seedmanagementv1alpha1.ManagedSeed{}
		require.NoError(c, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, ms))
		patch := client.MergeFromWithOptions(ms.DeepCopy(), client.MergeFromWithOptimisticLock{})
		if ms.Annotations == nil {
			ms.Annotations = map[string]string{}
		}
		if value == "" {
			delete(ms.Annotations, key)
		} else {
			ms.Annotations[key] = value
		}
		require.NoError(c, env.Client.Patch(ctx, ms, patch))
	}, 10*time.Second, tick)
}

func setCondition(set *seedmanagementv1alpha1.ManagedSeedSet, typ string) *metav1.Condition {
	return meta.FindStatusCondition(set.Status.Conditions, typ)
}

// eventNotes returns the notes of the events with the given reason recorded on the set.
func eventNotes(ctx context.Context, t require.TestingT, key client.ObjectKey, reason controllerutils.EventReason) []string {
	list := &eventsv1.EventList{}
	require.NoError(t, env.Client.List(ctx, list, client.InNamespace(key.Namespace)))
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Kind == "ManagedSeedSet" && e.Regarding.Name == key.Name && e.Reason == reason.Reason() {
			out = append(out, e.Note)
		}
	}
	return out
}

// seedExists reports whether the Seed exists.
func seedExists(ctx context.Context, t require.TestingT, name string) bool {
	err := env.Client.Get(ctx, client.ObjectKey{Name: name}, &gardencorev1beta1.Seed{})
	require.NoError(t, client.IgnoreNotFound(err))
	return err == nil
}

// seedReady reports whether the seed's GardenletReady is True.
func seedIsReady(ctx context.Context, t require.TestingT, name string) bool {
	s := &gardencorev1beta1.Seed{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: name}, s))
	return meta.IsStatusConditionTrue(s.Status.Conditions, gardencorev1beta1.SeedGardenletReady)
}

// assertInvariants checks, on the recorded history of the set, that no ManagedSeed of the set
// began its deletion and no Seed was deleted while a shoot occupied the seed, and that no
// replica name was ever used by two objects.
func assertInvariants(t *testing.T, set string) {
	t.Helper()
	msKeys, msAt := hist.removals("ManagedSeed", set)
	for _, key := range msKeys {
		name := key[strings.Index(key, "/")+1:]
		assert.Empty(t, hist.shootsOnSeedAt(name, msAt[key]), "ManagedSeed %s began its deletion (resource version %d) while shoots occupied its seed", key, msAt[key])
	}
	seedKeys, seedAt := hist.removals("Seed", set)
	for _, name := range seedKeys {
		assert.Empty(t, hist.shootsOnSeedAt(name, seedAt[name]), "Seed %s began its deletion (resource version %d) while shoots occupied it", name, seedAt[name])
	}
	for _, kind := range []string{"Shoot", "ManagedSeed", "Seed"} {
		for key, uids := range hist.uids(kind, set) {
			assert.Len(t, uids, 1, "%s %s was created more than once: a replica name was reused", kind, key)
		}
	}
}
