//go:build integration

package garden

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/test/framework/garden"
)

const (
	setNamespace = "garden"
	setName      = "set"
	// setLabel is the label of the set's template, on its replicas' Shoots, ManagedSeeds and
	// Seeds: the set's selector.
	setLabel = "seedscaler.io/set"
)

var (
	shootGVK       = schema.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "ShootList"}
	seedGVK        = schema.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "SeedList"}
	managedSeedGVK = schema.GroupVersionKind{Group: "seedmanagement.gardener.cloud", Version: "v1alpha1", Kind: "ManagedSeedList"}
	setGVK         = schema.GroupVersionKind{Group: "seedmanagement.gardener.cloud", Version: "v1alpha1", Kind: "ManagedSeedSet"}
)

// writeSimulatorConfig writes a configuration of the simulator whose simulated minute is a
// wall-clock second: a replica's shoot is created in one. Two tenant shoots in the project
// tenant live 5 to 10 simulated minutes each, and are replaced when they go; nobody binds
// them.
func writeSimulatorConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "simulator.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`apiVersion: simulator.seedscaler.io/v1alpha1
kind: SimulatorConfiguration
speed: 60
shoots: {createDelay: 1m, deleteDelay: 30s, jitter: 0}
gardenlets: {heartbeatInterval: 10s}
demand:
  constant: {shoots: 2}
  projects: [tenant]
  lifetime: {distribution: uniform, min: 5m, max: 10m}
`), 0o600))
	return path
}

// Gardener's own ManagedSeedSet controller, gardener-controller-manager's, scales a set out
// and back in while `seedscaler-dev simulate` plays the gardenlets on Gardener's API: it creates
// each replica's Shoot, waits until the shoot is reconciled, creates its ManagedSeed, and waits
// until the ManagedSeed is registered, the Seed is ready and the shoot is healthy, all of
// which only the simulated gardenlets write; on scale-in it deletes a replica's ManagedSeed,
// waits until the gardenlet has deleted the Seed, then deletes the Shoot and waits until the
// gardenlet lets it go.
func TestSimulatedGardenletsServeGardenersManagedSeedSet(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	g := startGardenWithSet(t, ctx)
	firstTenants := tenantShoots(t, ctx, g.Client)

	waitForReplicas(t, ctx, g.Client, "set-0")
	scaleSet(t, ctx, g.Client, 3)
	waitForReplicas(t, ctx, g.Client, "set-0", "set-1", "set-2")
	// Scale-in removes the replicas of the lowest priority, all else equal the lowest
	// ordinals.
	scaleSet(t, ctx, g.Client, 1)
	waitForReplicas(t, ctx, g.Client, "set-2")

	// The tenants deleted their first shoots when they expired, which gardener-apiserver
	// allows only after the tenant confirmed it, and created others in their place.
	tenants := tenantShoots(t, ctx, g.Client)
	for _, name := range firstTenants {
		assert.NotContains(t, tenants, name, "tenant shoot %s lived 10 simulated minutes at most", name)
	}
}

// startGardenWithSet starts a garden with Gardener's ManagedSeedSet of
// testdata/managedseedset.yaml (one replica), gardener-controller-manager to reconcile it,
// and the simulator playing the gardenlets and two tenant shoots.
func startGardenWithSet(t *testing.T, ctx context.Context) *garden.Garden {
	t.Helper()
	g := startGarden(t, ctx)
	set, err := os.ReadFile(filepath.Join("testdata", "managedseedset.yaml"))
	require.NoError(t, err)
	require.NoError(t, g.Apply(ctx, set))
	_, err = g.StartControllerManager()
	require.NoError(t, err)
	startSimulator(t, g, "--config="+writeSimulatorConfig(t), "--timeline=")
	return g
}

// tenantShoots waits until the simulated tenants have their two shoots and returns their
// names.
func tenantShoots(t *testing.T, ctx context.Context, c client.Client) []string {
	t.Helper()
	var names []string
	err := wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(shootGVK)
		if err := c.List(ctx, list, client.InNamespace(tenantNamespace), client.MatchingLabels{"simulator.seedscaler.io/tenant": "true"}); err != nil {
			return false, err
		}
		names = names[:0]
		for _, shoot := range list.Items {
			if shoot.GetDeletionTimestamp() == nil {
				names = append(names, shoot.GetName())
			}
		}
		return len(names) == 2, nil
	})
	require.NoError(t, err, "the tenants' shoots: %v", names)
	return names
}

// scaleSet sets the set's replicas through its /scale subresource, as `kubectl scale` and a
// SeedAutoscaler do.
func scaleSet(t *testing.T, ctx context.Context, c client.Client, replicas int64) {
	t.Helper()
	set := &unstructured.Unstructured{}
	set.SetGroupVersionKind(setGVK)
	set.SetNamespace(setNamespace)
	set.SetName(setName)
	scale := &unstructured.Unstructured{}
	scale.SetGroupVersionKind(schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"})
	require.NoError(t, c.SubResource("scale").Get(ctx, set, scale))
	require.NoError(t, unstructured.SetNestedField(scale.Object, replicas, "spec", "replicas"))
	require.NoError(t, c.SubResource("scale").Update(ctx, set, client.WithSubResourceBody(scale)))
}

// waitForReplicas waits until the set has exactly the named replicas, each ready as
// Gardener's ManagedSeedSet controller judges it, and nothing is left of any other: a
// reconciled and healthy Shoot, a registered ManagedSeed, and a ready Seed with the
// gardenlet configuration's capacity (10 shoots) and allocatable (10 − 2 reserved).
func waitForReplicas(t *testing.T, ctx context.Context, c client.Client, names ...string) {
	t.Helper()
	var problems []string
	err := wait.PollUntilContextTimeout(ctx, time.Second, 4*time.Minute, true, func(ctx context.Context) (bool, error) {
		problems = replicaProblems(ctx, c, names)
		return len(problems) == 0, nil
	})
	assert.NoError(t, err, "replicas %v of ManagedSeedSet %s/%s:\n%s", names, setNamespace, setName, strings.Join(problems, "\n"))
	if err != nil {
		t.FailNow()
	}
}

// replicaProblems lists what keeps the set's replicas from being exactly names, each ready.
func replicaProblems(ctx context.Context, c client.Client, names []string) []string {
	var problems []string
	byName := map[string]map[string]*unstructured.Unstructured{}
	for _, gvk := range []schema.GroupVersionKind{shootGVK, managedSeedGVK, seedGVK} {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk)
		opts := []client.ListOption{client.MatchingLabels{setLabel: setName}}
		if gvk != seedGVK {
			opts = append(opts, client.InNamespace(setNamespace))
		}
		if err := c.List(ctx, list, opts...); err != nil {
			return []string{fmt.Sprintf("listing %s: %v", gvk.Kind, err)}
		}
		kind := strings.TrimSuffix(gvk.Kind, "List")
		byName[kind] = map[string]*unstructured.Unstructured{}
		for i := range list.Items {
			obj := &list.Items[i]
			byName[kind][obj.GetName()] = obj
			if !slices.Contains(names, obj.GetName()) {
				problems = append(problems, fmt.Sprintf("%s %s is left", kind, obj.GetName()))
			}
		}
	}
	for _, name := range names {
		problems = append(problems, shootProblems(name, byName["Shoot"][name])...)
		problems = append(problems, managedSeedProblems(name, byName["ManagedSeed"][name])...)
		problems = append(problems, seedProblems(name, byName["Seed"][name])...)
	}

	set := &unstructured.Unstructured{}
	set.SetGroupVersionKind(setGVK)
	if err := c.Get(ctx, client.ObjectKey{Namespace: setNamespace, Name: setName}, set); err != nil {
		return append(problems, fmt.Sprintf("reading the ManagedSeedSet: %v", err))
	}
	replicas, _, _ := unstructured.NestedInt64(set.Object, "status", "replicas")
	ready, _, _ := unstructured.NestedInt64(set.Object, "status", "readyReplicas")
	if want := int64(len(names)); replicas != want || ready != want {
		pending, _, _ := unstructured.NestedMap(set.Object, "status", "pendingReplica")
		problems = append(problems, fmt.Sprintf("ManagedSeedSet: %d replicas, %d ready, want %d; pending replica %v", replicas, ready, want, pending))
	}
	return problems
}

func shootProblems(name string, shoot *unstructured.Unstructured) []string {
	if shoot == nil {
		return []string{"Shoot " + name + " is missing"}
	}
	var problems []string
	state, _, _ := unstructured.NestedString(shoot.Object, "status", "lastOperation", "state")
	observed, _, _ := unstructured.NestedInt64(shoot.Object, "status", "observedGeneration")
	seed, _, _ := unstructured.NestedString(shoot.Object, "status", "seedName")
	if state != "Succeeded" || observed != shoot.GetGeneration() || seed != "soil" {
		problems = append(problems, fmt.Sprintf("Shoot %s: last operation %q, observed generation %d of %d, status.seedName %q; want Succeeded for its generation on soil",
			name, state, observed, shoot.GetGeneration(), seed))
	}
	if health := shoot.GetLabels()["shoot.gardener.cloud/status"]; health != "healthy" {
		problems = append(problems, fmt.Sprintf("Shoot %s is labeled shoot.gardener.cloud/status=%q, want healthy", name, health))
	}
	if !slices.Contains(shoot.GetFinalizers(), "gardener") {
		problems = append(problems, fmt.Sprintf("Shoot %s lacks Gardener's finalizer: %v", name, shoot.GetFinalizers()))
	}
	return problems
}

func managedSeedProblems(name string, ms *unstructured.Unstructured) []string {
	if ms == nil {
		return []string{"ManagedSeed " + name + " is missing"}
	}
	var problems []string
	observed, _, _ := unstructured.NestedInt64(ms.Object, "status", "observedGeneration")
	if observed != ms.GetGeneration() {
		problems = append(problems, fmt.Sprintf("ManagedSeed %s: observed generation %d of %d", name, observed, ms.GetGeneration()))
	}
	for _, typ := range []string{"ShootReconciled", "SeedRegistered"} {
		if status := conditionStatus(ms, typ); status != "True" {
			problems = append(problems, fmt.Sprintf("ManagedSeed %s: condition %s is %q", name, typ, status))
		}
	}
	return problems
}

func seedProblems(name string, seed *unstructured.Unstructured) []string {
	if seed == nil {
		return []string{"Seed " + name + " is missing"}
	}
	var problems []string
	observed, _, _ := unstructured.NestedInt64(seed.Object, "status", "observedGeneration")
	if observed != seed.GetGeneration() {
		problems = append(problems, fmt.Sprintf("Seed %s: observed generation %d of %d", name, observed, seed.GetGeneration()))
	}
	for _, typ := range []string{"GardenletReady", "SeedSystemComponentsHealthy"} {
		if status := conditionStatus(seed, typ); status != "True" {
			problems = append(problems, fmt.Sprintf("Seed %s: condition %s is %q", name, typ, status))
		}
	}
	for field, want := range map[string]int64{"capacity": 10, "allocatable": 8} {
		value, _, _ := unstructured.NestedString(seed.Object, "status", field, "shoots")
		if q, err := resource.ParseQuantity(value); err != nil || q.Value() != want {
			problems = append(problems, fmt.Sprintf("Seed %s: status.%s.shoots is %q, want %d", name, field, value, want))
		}
	}
	if role := seed.GetLabels()["gardener.cloud/role"]; role != "seed" {
		problems = append(problems, fmt.Sprintf("Seed %s is labeled gardener.cloud/role=%q, want seed", name, role))
	}
	return problems
}

func conditionStatus(obj *unstructured.Unstructured, typ string) string {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			status, _ := m["status"].(string)
			return status
		}
	}
	return ""
}
