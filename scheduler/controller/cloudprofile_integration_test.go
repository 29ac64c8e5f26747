//go:build integration

package controller

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// A shoot that refers to a NamespacedCloudProfile in spec.cloudProfile is placed by its
// parent's seed selector until Gardener writes the merged profile into its status, and by the
// merged one from then on.
func TestShootsOfANamespacedCloudProfile(t *testing.T) {
	ctx := context.Background()
	const ns, provider = "garden-ncp", "ncp"
	createNamespace(t, ns)
	createCloudProfile(t, provider, &gardencorev1beta1.SeedSelector{LabelSelector: metav1.LabelSelector{
		MatchLabels: map[string]string{"tier": "parent"},
	}}, "r1")
	ncp := &gardencorev1beta1.NamespacedCloudProfile{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team"},
		Spec: gardencorev1beta1.NamespacedCloudProfileSpec{Parent: gardencorev1beta1.CloudProfileReference{
			Kind: gardencorev1beta1.CloudProfileReferenceKindCloudProfile, Name: provider,
		}},
	}
	require.NoError(t, env.Client.Create(ctx, ncp))
	for _, seed := range []*gardencorev1beta1.Seed{
		builders.MakeSeed("ncp-parent").Provider(provider, "r1").Labels("tier", "parent").Ready().Obj(),
		builders.MakeSeed("ncp-merged").Provider(provider, "r1").Labels("tier", "merged").Ready().Obj(),
	} {
		createSeed(t, seed)
		// Other tests count every seed of the apiserver in their messages.
		t.Cleanup(func() { require.NoError(t, env.Client.Delete(context.Background(), seed)) })
	}
	s := startScheduler(t, &config.SchedulerConfiguration{Backoff: &config.Backoff{BaseSeconds: 1, MaxSeconds: 2}})

	shoot := func(name string) *gardencorev1beta1.Shoot {
		return builders.MakeShoot(ns, name).Provider(provider, "r1").
			CloudProfileRef(gardencorev1beta1.CloudProfileReferenceKindNamespacedCloudProfile, "team").Obj()
	}
	require.NoError(t, env.Client.Create(ctx, shoot("before-merge")))
	assert.Equal(t, "ncp-parent", waitForSeed(t, ns, "before-merge"), "the parent's seed selector")

	ncp.Status.CloudProfileSpec = &gardencorev1beta1.CloudProfileSpec{
		Type: provider, Regions: []gardencorev1beta1.Region{{Name: "r1"}},
		SeedSelector: &gardencorev1beta1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"tier": "merged"}}},
	}
	require.NoError(t, env.Client.Status().Update(ctx, ncp))
	require.Eventually(t, func() bool {
		cached := &gardencorev1beta1.NamespacedCloudProfile{}
		return s.manager.GetCache().Get(ctx, client.ObjectKeyFromObject(ncp), cached) == nil && cached.Status.CloudProfileSpec != nil
	}, 10*time.Second, 20*time.Millisecond, "the scheduler's cache shows the merged profile")
	require.NoError(t, env.Client.Create(ctx, shoot("after-merge")))
	assert.Equal(t, "ncp-merged", waitForSeed(t, ns, "after-merge"), "the merged profile's seed selector")

	// A profile that does not exist is named in the shoot's status.
	missing := builders.MakeShoot(ns, "lost").Provider(provider, "r1").
		CloudProfileRef(gardencorev1beta1.CloudProfileReferenceKindNamespacedCloudProfile, "nobody").Obj()
	require.NoError(t, env.Client.Create(ctx, missing))
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		got := &gardencorev1beta1.Shoot{}
		require.NoError(c, env.Client.Get(ctx, client.ObjectKeyFromObject(missing), got))
		require.NotNil(c, got.Status.LastOperation)
		assert.Equal(c, "Failed to schedule shoot: NamespacedCloudProfile garden-ncp/nobody of the shoot (spec.cloudProfile) does not exist\nWould fit no ManagedSeedSet's template.",
			got.Status.LastOperation.Description)
	}, 20*time.Second, 50*time.Millisecond)
}
