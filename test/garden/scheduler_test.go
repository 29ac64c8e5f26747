//go:build integration

package garden

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	tenantNamespace = "garden-tenant"
	// ourScheduler is the schedulerName that hands a shoot to seedscaler's scheduler beside
	// gardener-scheduler, as the chart's beside-Gardener values configure it.
	ourScheduler = "seedscaler-scheduler"
)

// tenantShoot is a workerless Shoot as a tenant writes it for Gardener: the cloud profile
// named in spec.cloudProfile, no spec.cloudProfileName, networks from the seed's defaults.
func tenantShoot(name, schedulerName string, tolerations ...map[string]any) *unstructured.Unstructured {
	spec := map[string]any{
		"cloudProfile": map[string]any{"kind": "CloudProfile", "name": "gcp"},
		"region":       "europe-west1",
		"provider":     map[string]any{"type": "gcp"},
		"kubernetes":   map[string]any{"version": "1.34.2"},
	}
	if schedulerName != "" {
		spec["schedulerName"] = schedulerName
	}
	if len(tolerations) > 0 {
		list := make([]any, len(tolerations))
		for i, t := range tolerations {
			list[i] = t
		}
		spec["tolerations"] = list
	}
	shoot := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1",
		"kind":       "Shoot",
		"metadata":   map[string]any{"namespace": tenantNamespace, "name": name},
		"spec":       spec,
	}}
	return shoot
}

// writeSchedulerConfig writes the configuration of seedscaler's scheduler beside Gardener.
func writeSchedulerConfig(t *testing.T, strategy string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scheduler.yaml")
	require.NoError(t, os.WriteFile(path, fmt.Appendf(nil, `apiVersion: scheduler.seedscaler.io/v1alpha1
kind: SchedulerConfiguration
schedulerName: %s
binding: Subresource
strategy: %s
`, ourScheduler, strategy), 0o600))
	return path
}

// seedOf waits until the shoot is bound and returns its seed.
func seedOf(t *testing.T, ctx context.Context, c client.Client, name string) string {
	t.Helper()
	var seed string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		shoot := &unstructured.Unstructured{}
		shoot.SetAPIVersion("core.gardener.cloud/v1beta1")
		shoot.SetKind("Shoot")
		if err := c.Get(ctx, client.ObjectKey{Namespace: tenantNamespace, Name: name}, shoot); err != nil {
			return false, err
		}
		seed, _, _ = unstructured.NestedString(shoot.Object, "spec", "seedName")
		return seed != "", nil
	})
	require.NoError(t, err, "shoot %s/%s was never bound", tenantNamespace, name)
	return seed
}

// Both schedulers place tenant shoots in the same garden, each the shoots that name it, and
// gardener-apiserver's ShootValidator accepts every binding seedscaler makes: a toleration
// without a value tolerates only a taint without one, and an emergency-stopped seed takes no
// shoot, whoever schedules.
func TestBindingsGardenerAccepts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	g := startGarden(t, ctx)
	_, err := g.StartScheduler("SameRegion")
	require.NoError(t, err)
	startPart(t, g, "scheduler", "--config="+writeSchedulerConfig(t, "SameRegion"))

	keyOnly := map[string]any{"key": "dedicated"}
	withValue := map[string]any{"key": "dedicated", "value": "infra"}
	shoots := []struct {
		name, scheduler string
		toleration      map[string]any
		wantSeeds       []string
	}{
		{"g-key-only", "", keyOnly, []string{"seed-b2"}},
		{"s-key-only", ourScheduler, keyOnly, []string{"seed-b2"}},
		{"s-untainted", ourScheduler, nil, []string{"seed-b2"}},
		{"s-with-value", ourScheduler, withValue, []string{"seed-b1", "seed-b2"}},
		{"g-with-value", "", withValue, []string{"seed-b1", "seed-b2"}},
	}
	for _, s := range shoots {
		var shoot *unstructured.Unstructured
		if s.toleration != nil {
			shoot = tenantShoot(s.name, s.scheduler, s.toleration)
		} else {
			shoot = tenantShoot(s.name, s.scheduler)
		}
		require.NoError(t, g.Client.Create(ctx, shoot), "creating shoot %s", s.name)
	}
	for _, s := range shoots {
		assert.Contains(t, s.wantSeeds, seedOf(t, ctx, g.Client, s.name), "the seed of shoot %s", s.name)
	}
	// Both schedulers bound through shoots/binding, as gardener-apiserver's own metrics count.
	traffic, err := g.ShootTraffic(ctx)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, traffic.Bindings, float64(len(shoots)))
}
