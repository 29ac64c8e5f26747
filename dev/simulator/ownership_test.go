//go:build integration

package simulator

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// simulatorFields returns the top-level field sets (f:metadata, f:spec, f:status) the
// simulator's field manager owns in obj, per subresource ("" is the main resource), and
// whether it owns spec.seedName anywhere.
func simulatorFields(t *testing.T, obj metav1.Object) (map[string][]string, bool) {
	t.Helper()
	out := map[string][]string{}
	seedName := false
	for _, mf := range obj.GetManagedFields() {
		if mf.Manager != FieldOwner || mf.FieldsV1 == nil {
			continue
		}
		var fields map[string]any
		require.NoError(t, json.Unmarshal(mf.FieldsV1.GetRawBytes(), &fields))
		for k := range fields {
			out[mf.Subresource] = append(out[mf.Subresource], k)
		}
		if spec, ok := fields["f:spec"].(map[string]any); ok {
			if _, ok := spec["f:seedName"]; ok {
				seedName = true
			}
		}
	}
	return out, seedName
}

func TestNeverWritesFieldsItDoesNotOwn(t *testing.T) {
	h := newHarness(t, `
speed: 60
shoots: {createDelay: 1m, deleteDelay: 1m, jitter: 0}
gardenlets: {renewUnmanagedSeeds: true}
demand: {constant: {shoots: 3}, projects: [owned]}
`)
	ensureNamespace(t, "garden-hand")
	// Shoots someone else made, with every kind of spec field and metadata set.
	rich := builders.MakeShoot("garden-hand", "rich").SeedName("hand-seed").Purpose(gardencorev1beta1.ShootPurposeProduction).
		Toleration("seed.gardener.cloud/protected", "").SeedSelector(map[string]string{"a": "b"}, "gcp").
		Networks("10.181.0.0/16", "100.160.0.0/11", "100.80.0.0/13").ZoneFailureTolerance().Labels("team", "x").Obj()
	rich.Annotations = map[string]string{"owner": "someone"}
	unbound := builders.MakeShoot("garden-hand", "unbound").Purpose(gardencorev1beta1.ShootPurposeDevelopment).Obj()
	for _, sh := range []*gardencorev1beta1.Shoot{rich, unbound} {
		require.NoError(t, env.Client.Create(h.ctx, sh))
	}
	createSeed(t, builders.MakeSeed("hand-seed").Backup("gcp").Taint("t", "v").Labels("x", "y").Allocatable(10).Ready().Obj())
	before := map[string]*gardencorev1beta1.Shoot{"rich": h.shoot("garden-hand", "rich"), "unbound": h.shoot("garden-hand", "unbound")}
	seedBefore := &gardencorev1beta1.Seed{}
	require.NoError(t, env.Client.Get(h.ctx, client.ObjectKey{Name: "hand-seed"}, seedBefore))

	// Creation, a failure and a retry, a spec change by its owner, many steps.
	h.step(0)
	h.cfg.Shoots.FailureRate = 1
	h.step(time.Second)
	h.cfg.Shoots.FailureRate = 0
	sh := h.shoot("garden-hand", "rich")
	require.Equal(t, gardencorev1beta1.LastOperationStateFailed, sh.Status.LastOperation.State)
	orig := sh.DeepCopy()
	sh.Annotations[seedmanagementv1alpha1.AnnotationOperation] = seedmanagementv1alpha1.OperationRetry
	require.NoError(t, env.Client.Patch(h.ctx, sh, client.MergeFrom(orig)))
	for range 5 {
		h.step(time.Second)
	}
	after := h.shoot("garden-hand", "rich")
	assert.Equal(t, gardencorev1beta1.LastOperationStateSucceeded, after.Status.LastOperation.State)

	for name, b := range before {
		a := h.shoot("garden-hand", name)
		assert.Equal(t, b.Spec, a.Spec, "the spec of %s is untouched", name)
		assert.Equal(t, b.Generation, a.Generation, "%s: no spec write at all", name)
		assert.Equal(t, b.Labels, a.Labels, name)
		assert.Equal(t, b.Annotations, a.Annotations, "%s: only the retry annotation, consumed, came and went", name)
		assert.Equal(t, b.OwnerReferences, a.OwnerReferences, name)
		fields, seedName := simulatorFields(t, a)
		assert.Equal(t, []string{"f:metadata"}, fields[""], "%s: the simulator writes only metadata (its finalizer) of the main resource", name)
		assert.False(t, seedName, name)
		if name == "rich" {
			assert.Equal(t, []string{"f:status"}, fields["status"], name)
		}
	}
	assert.Nil(t, h.shoot("garden-hand", "unbound").Spec.SeedName, "the simulator never binds a shoot")
	assert.Nil(t, h.shoot("garden-hand", "unbound").Status.LastOperation)

	// Its tenants' shoots are its own, yet it never binds them either.
	own := tenants(h.ctx, t)
	require.Len(t, own, 3)
	for i := range own {
		assert.Nil(t, own[i].Spec.SeedName)
		_, seedName := simulatorFields(t, &own[i])
		assert.False(t, seedName)
	}

	// Of the seed, the gardenlet writes only its condition.
	seedAfter := &gardencorev1beta1.Seed{}
	require.NoError(t, env.Client.Get(h.ctx, client.ObjectKey{Name: "hand-seed"}, seedAfter))
	assert.Equal(t, seedBefore.Spec, seedAfter.Spec)
	assert.Equal(t, seedBefore.Labels, seedAfter.Labels)
	assert.Equal(t, seedBefore.Status.Allocatable, seedAfter.Status.Allocatable)
	assert.Equal(t, seedBefore.Status.LastOperation, seedAfter.Status.LastOperation)
	fields, _ := simulatorFields(t, seedAfter)
	assert.Empty(t, fields[""], "nothing of the seed's main resource")
	assert.Equal(t, []string{"f:status"}, fields["status"])
	assert.NotNil(t, h.lease("hand-seed"), "renewUnmanagedSeeds: its gardenlet heartbeats")

	// Deletion: the simulator removes only its own finalizer.
	sh = h.shoot("garden-hand", "rich")
	orig = sh.DeepCopy()
	sh.Finalizers = append(sh.Finalizers, "someone.else/keep")
	require.NoError(t, env.Client.Patch(h.ctx, sh, client.MergeFrom(orig)))
	require.NoError(t, env.Client.Delete(h.ctx, sh))
	h.step(time.Second)
	h.step(2 * time.Second)
	sh = h.shoot("garden-hand", "rich")
	assert.Equal(t, []string{"someone.else/keep"}, sh.Finalizers)
	assert.Equal(t, ptr.To("hand-seed"), sh.Spec.SeedName)
}
