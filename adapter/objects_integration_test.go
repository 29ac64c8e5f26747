//go:build integration

package adapter

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// TestObjectNamesFollowTheSeeds runs the object cache against the real kube-apiserver: each
// change to which seeds a selector matches shows in the names, though the names of an
// unchanged selection are remembered.
func TestObjectNamesFollowTheSeeds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for name, tier := range map[string]string{"names-a": "gold", "names-b": "silver"} {
		createSeed(ctx, t, builders.MakeSeed(name).Provider("aws", "eu-west-1").Labels("names-test", "x", "tier", tier).Obj())
	}
	gr := seedsResource.GroupResource()
	objects, err := startObjectCache(ctx, env.Config, map[schema.GroupResource]schema.GroupVersionResource{gr: seedsResource})
	require.NoError(t, err)
	gold := labels.SelectorFromSet(labels.Set{"names-test": "x", "tier": "gold"})
	requireNames := func(want ...string) {
		t.Helper()
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			names, err := objects.Names(gr, "", gold)
			if assert.NoError(c, err) {
				assert.ElementsMatch(c, want, names)
			}
		}, 30*time.Second, 50*time.Millisecond)
	}
	requireNames("names-a")

	relabel := func(name, tier string) {
		t.Helper()
		seed := builders.MakeSeed(name).Obj()
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(seed), seed))
		seed.Labels["tier"] = tier
		require.NoError(t, env.Client.Update(ctx, seed))
	}
	relabel("names-b", "gold")
	requireNames("names-a", "names-b")

	createSeed(ctx, t, builders.MakeSeed("names-c").Provider("aws", "eu-west-1").Labels("names-test", "x", "tier", "gold").Obj())
	requireNames("names-a", "names-b", "names-c")

	require.NoError(t, env.Client.Delete(ctx, builders.MakeSeed("names-a").Obj()))
	relabel("names-c", "silver")
	requireNames("names-b")

	_, err = objects.Names(schema.GroupResource{Group: "core.gardener.cloud", Resource: "shoots"}, "", gold)
	assert.EqualError(t, err, "no cache of shoots.core.gardener.cloud")
}
