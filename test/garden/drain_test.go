//go:build integration

package garden

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// A drained seed's shoots move through shoots/binding to a seed gardener-apiserver's
// ShootValidator accepts for a change of seed (backup on both, the same internal domain),
// and the drain's Drained condition joins the gardenlet's conditions without changing them.
func TestDrainMigratesWithBindingsGardenerAccepts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	g := startGarden(t, ctx)
	apply(t, ctx, g.Apply, "drain-source.yaml")
	startPart(t, g, "scheduler", "--config="+writeSchedulerConfig(t, "SameRegion"))

	names := []string{"s-drained-1", "s-drained-2"}
	for _, name := range names {
		shoot := tenantShoot(name, ourScheduler)
		require.NoError(t, unstructured.SetNestedField(shoot.Object, "us-east1", "spec", "region"))
		require.NoError(t, g.Client.Create(ctx, shoot))
		require.Equal(t, "seed-d1", seedOf(t, ctx, g.Client, name))
		// What the gardenlet writes once the shoot's control plane runs on its seed: a drain
		// moves only shoots whose last operation succeeded.
		require.NoError(t, g.Client.Status().Patch(ctx, shoot, client.RawPatch(types.MergePatchType, []byte(`{"status":{"seedName":"seed-d1",`+
			`"lastOperation":{"type":"Create","state":"Succeeded","progress":100,"description":"Shoot created","lastUpdateTime":"2026-01-01T00:00:00Z"}}}`))))
	}

	apply(t, ctx, g.Apply, "drain-target.yaml")
	source := &unstructured.Unstructured{}
	source.SetAPIVersion("core.gardener.cloud/v1beta1")
	source.SetKind("Seed")
	source.SetName("seed-d1")
	require.NoError(t, g.Client.Patch(ctx, source, client.RawPatch(types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"`+gardencorev1beta1.AnnotationDrain+`":"true"}}}`))))

	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, name := range names {
			shoot := &unstructured.Unstructured{}
			shoot.SetAPIVersion("core.gardener.cloud/v1beta1")
			shoot.SetKind("Shoot")
			if err := g.Client.Get(ctx, client.ObjectKey{Namespace: tenantNamespace, Name: name}, shoot); err != nil {
				return false, err
			}
			if seed, _, _ := unstructured.NestedString(shoot.Object, "spec", "seedName"); seed != "seed-d2" {
				return false, nil
			}
		}
		return true, nil
	})
	require.NoError(t, err, "the drain never moved both shoots to seed-d2 through bindings gardener-apiserver accepts")

	require.NoError(t, g.Client.Get(ctx, client.ObjectKey{Name: "seed-d1"}, source))
	conditions, _, err := unstructured.NestedSlice(source.Object, "status", "conditions")
	require.NoError(t, err)
	byType := map[string]map[string]any{}
	for _, c := range conditions {
		m := c.(map[string]any)
		byType[m["type"].(string)] = m
	}
	require.Contains(t, byType, gardencorev1beta1.SeedDrained, "the drain writes its condition")
	assert.NotEmpty(t, byType[gardencorev1beta1.SeedDrained]["lastUpdateTime"], "in Gardener's form")
	assert.Equal(t, []any{"ERR_INFRA_RATE_LIMITS_EXCEEDED"}, byType["GardenletReady"]["codes"], "the gardenlet's condition keeps its codes")
	assert.Equal(t, "2026-01-01T00:00:00Z", byType["GardenletReady"]["lastUpdateTime"], "and its lastUpdateTime")
}

// apply creates the objects of a file under testdata.
func apply(t *testing.T, ctx context.Context, applyFn func(context.Context, []byte) error, file string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	require.NoError(t, err)
	require.NoError(t, applyFn(ctx, data))
}
