package simulator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

var (
	gardenNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	earlier   = "2026-01-01T08:00:00Z"
	stamp     = "2026-01-01T12:00:00Z"
)

// fromYAML decodes a document into unstructured form, as objects are read from Gardener.
func fromYAML(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	data, err := yaml.YAMLToJSON([]byte(doc))
	require.NoError(t, err)
	u := &unstructured.Unstructured{}
	require.NoError(t, u.UnmarshalJSON(data))
	return u
}

func TestDecideManagedSeed(t *testing.T) {
	deleted := metav1.NewTime(gardenNow)
	ms := func(mutate ...func(*seedmanagementv1alpha1.ManagedSeed)) *seedmanagementv1alpha1.ManagedSeed {
		m := &seedmanagementv1alpha1.ManagedSeed{
			ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "set-0", Generation: 1, Finalizers: []string{GardenerFinalizer}},
			Spec:       seedmanagementv1alpha1.ManagedSeedSpec{Shoot: &seedmanagementv1alpha1.Shoot{Name: "set-0"}},
			Status:     seedmanagementv1alpha1.ManagedSeedStatus{ObservedGeneration: 1},
		}
		for _, f := range mutate {
			f(m)
		}
		return m
	}
	deleting := func(m *seedmanagementv1alpha1.ManagedSeed) { m.DeletionTimestamp = &deleted }
	changed := func(m *seedmanagementv1alpha1.ManagedSeed) { m.Generation = 2 }
	shoot := func(typ gardencorev1beta1.LastOperationType, state gardencorev1beta1.LastOperationState, generation, observed int64) *gardencorev1beta1.Shoot {
		s := builders.MakeShoot("garden", "set-0").SeedName("soil").LastOperation(typ, state).Obj()
		s.Generation, s.Status.ObservedGeneration = generation, observed
		return s
	}
	created := shoot(gardencorev1beta1.LastOperationTypeCreate, gardencorev1beta1.LastOperationStateSucceeded, 1, 1)
	seed := builders.MakeSeed("set-0").Obj()
	deletingSeed := builders.MakeSeed("set-0").Obj()
	deletingSeed.DeletionTimestamp = &deleted

	shootReconciled := GardenCondition{"ShootReconciled", controllerutils.True(ReasonReconciled, `Shoot "garden/set-0" has been reconciled`)}
	registered := GardenCondition{"SeedRegistered", controllerutils.True(ReasonReconciled, "Seed set-0 has been registered")}
	waitingForShoot := GardenCondition{"ShootReconciled", controllerutils.False(ReasonReconciling, `Waiting for shoot "garden/set-0" to be reconciled`)}
	waitingForSeed := GardenCondition{"SeedRegistered", controllerutils.False(ReasonDeleting, `Waiting for seed "set-0" to be deleted`)}
	tests := []struct {
		name   string
		ms     *seedmanagementv1alpha1.ManagedSeed
		shoot  *gardencorev1beta1.Shoot
		seed   *gardencorev1beta1.Seed
		hosted []string
		want   ManagedSeedDecision
	}{
		{"the shoot does not exist yet", ms(), nil, nil, nil, ManagedSeedDecision{ManagedSeedWait, []GardenCondition{waitingForShoot}}},
		{"the shoot is being created", ms(), shoot(gardencorev1beta1.LastOperationTypeCreate, gardencorev1beta1.LastOperationStateProcessing, 1, 0), nil, nil,
			ManagedSeedDecision{ManagedSeedWait, []GardenCondition{waitingForShoot}}},
		{"the shoot succeeded for an older generation", ms(), shoot(gardencorev1beta1.LastOperationTypeCreate, gardencorev1beta1.LastOperationStateSucceeded, 2, 1), nil, nil,
			ManagedSeedDecision{ManagedSeedWait, []GardenCondition{waitingForShoot}}},
		{"the shoot's creation failed", ms(), shoot(gardencorev1beta1.LastOperationTypeCreate, gardencorev1beta1.LastOperationStateFailed, 1, 1), nil, nil,
			ManagedSeedDecision{ManagedSeedWait, []GardenCondition{waitingForShoot}}},
		{"the shoot succeeded: the seed is registered", ms(), created, nil, nil, ManagedSeedDecision{ManagedSeedRegisterSeed, []GardenCondition{shootReconciled, registered}}},
		{"registered, nothing changed", ms(), created, seed, nil, ManagedSeedDecision{ManagedSeedWait, []GardenCondition{shootReconciled, registered}}},
		{"a changed ManagedSeed updates its seed", ms(changed), created, seed, nil, ManagedSeedDecision{ManagedSeedUpdateSeed, []GardenCondition{shootReconciled, registered}}},
		{"deleted, its seed hosts shoots: it waits", ms(deleting), created, seed, []string{"garden-a/x", "garden-a/y"},
			ManagedSeedDecision{ManagedSeedWait, []GardenCondition{{"SeedRegistered", controllerutils.False(ReasonDeleting,
				"Waiting for seed set-0 to host no shoots before deleting it: it still hosts 2 shoots (garden-a/x, garden-a/y)")}}}},
		{"deleted, its seed is empty: the seed is deleted", ms(deleting), created, seed, nil, ManagedSeedDecision{ManagedSeedDeleteSeed, []GardenCondition{waitingForSeed}}},
		{"deleted, its seed is deleting", ms(deleting), created, deletingSeed, nil, ManagedSeedDecision{ManagedSeedWait, []GardenCondition{waitingForSeed}}},
		{"deleted, its seed is gone: it lets go", ms(deleting), created, nil, nil, ManagedSeedDecision{ManagedSeedRelease, []GardenCondition{{
			"SeedRegistered", controllerutils.False(ReasonDeleted, "Seed set-0 has been unregistered")}}}},
		{"deleted without Gardener's finalizer: nothing left to do", ms(deleting, func(m *seedmanagementv1alpha1.ManagedSeed) { m.Finalizers = nil }), created, nil, nil,
			ManagedSeedDecision{Action: ManagedSeedNone}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, DecideManagedSeed(tc.ms, tc.shoot, tc.seed, tc.hosted))
		})
	}
}

func TestShootList(t *testing.T) {
	assert.Equal(t, "shoot p/a", shootList([]string{"p/a"}))
	assert.Equal(t, "3 shoots (p/a, p/b, p/c)", shootList([]string{"p/a", "p/b", "p/c"}))
	assert.Equal(t, "5 shoots (p/a, p/b, p/c and 2 more)", shootList([]string{"p/a", "p/b", "p/c", "p/d", "p/e"}))
}

func TestGardenletReport(t *testing.T) {
	gardenletMS := func(capacity, reserved string) *seedmanagementv1alpha1.ManagedSeed {
		resources := &seedmanagementv1alpha1.ResourcesConfiguration{Capacity: corev1.ResourceList{"shoots": resource.MustParse(capacity)}}
		if reserved != "" {
			resources.Reserved = corev1.ResourceList{"shoots": resource.MustParse(reserved)}
		}
		return &seedmanagementv1alpha1.ManagedSeed{Spec: seedmanagementv1alpha1.ManagedSeedSpec{
			Gardenlet: &seedmanagementv1alpha1.Gardenlet{Config: &seedmanagementv1alpha1.GardenletConfiguration{Resources: resources}}}}
	}
	types := func(r SeedReport) []string {
		var out []string
		for _, c := range r.Conditions {
			out = append(out, c.Type+"="+string(c.Status))
		}
		return out
	}
	t.Run("a heartbeating gardenlet of a seed without backup", func(t *testing.T) {
		r := GardenletReport(builders.MakeSeed("s").Obj(), nil, nil, true, true)
		assert.Equal(t, []string{"GardenletReady=True", "SeedSystemComponentsHealthy=True"}, types(r))
		assert.Nil(t, r.Capacity, "a seed made by hand keeps the capacity someone gave it")
		assert.Nil(t, r.Allocatable)
	})
	t.Run("a missed heartbeat leaves GardenletReady to gardener-controller-manager", func(t *testing.T) {
		r := GardenletReport(builders.MakeSeed("s").Backup("gcp").Obj(), nil, nil, false, false)
		assert.Equal(t, []string{"SeedSystemComponentsHealthy=True", "BackupBucketsReady=False"}, types(r))
		assert.Equal(t, ReasonBackupBucketsUnavailable, string(r.Conditions[1].Reason))
	})
	t.Run("a ManagedSeed's seed advertises its gardenlet configuration's resources", func(t *testing.T) {
		r := GardenletReport(builders.MakeSeed("s").Backup("gcp").Obj(), gardenletMS("10", "2"), nil, true, true)
		assert.Equal(t, []string{"GardenletReady=True", "SeedSystemComponentsHealthy=True", "BackupBucketsReady=True"}, types(r))
		assertQuantity(t, "10", r.Capacity["shoots"])
		assertQuantity(t, "8", r.Allocatable["shoots"])
	})
	t.Run("what the configuration lacks comes from the parent gardenlet's seed", func(t *testing.T) {
		parent := builders.MakeSeed("soil").Obj()
		parent.Status.Capacity = corev1.ResourceList{"shoots": resource.MustParse("20")}
		parent.Status.Allocatable = corev1.ResourceList{"shoots": resource.MustParse("15")}
		r := GardenletReport(builders.MakeSeed("s").Obj(), &seedmanagementv1alpha1.ManagedSeed{
			Spec: seedmanagementv1alpha1.ManagedSeedSpec{Gardenlet: &seedmanagementv1alpha1.Gardenlet{}},
		}, parent, true, true)
		assertQuantity(t, "20", r.Capacity["shoots"])
		assertQuantity(t, "15", r.Allocatable["shoots"])
	})
	t.Run("without resources, the default shoots", func(t *testing.T) {
		r := GardenletReport(builders.MakeSeed("s").Obj(), &seedmanagementv1alpha1.ManagedSeed{}, nil, true, true)
		assertQuantity(t, "250", r.Capacity["shoots"])
		assertQuantity(t, "250", r.Allocatable["shoots"])
	})
}

func assertQuantity(t *testing.T, want string, got resource.Quantity) {
	t.Helper()
	q := resource.MustParse(want)
	assert.Zero(t, q.Cmp(got), "want %s, got %s", want, got.String())
}

func TestReportHolds(t *testing.T) {
	report := GardenletReport(builders.MakeSeed("s").Obj(), &seedmanagementv1alpha1.ManagedSeed{}, nil, true, true)
	seed := func(mutate func(*gardencorev1beta1.Seed)) *gardencorev1beta1.Seed {
		s := builders.MakeSeed("s").Obj()
		s.Generation = 2
		s.Status = gardencorev1beta1.SeedStatus{
			ObservedGeneration: 2,
			LastOperation:      &gardencorev1beta1.LastOperation{Type: gardencorev1beta1.LastOperationTypeReconcile, State: gardencorev1beta1.LastOperationStateSucceeded},
			Capacity:           corev1.ResourceList{"shoots": resource.MustParse("250")},
			Allocatable:        corev1.ResourceList{"shoots": resource.MustParse("250")},
		}
		for _, c := range report.Conditions {
			s.Status.Conditions = append(s.Status.Conditions, metav1.Condition{Type: c.Type, Status: c.Status, Reason: string(c.Reason), Message: c.Message})
		}
		if mutate != nil {
			mutate(s)
		}
		return s
	}
	assert.True(t, reportHolds(seed(nil), report))
	assert.False(t, reportHolds(seed(func(s *gardencorev1beta1.Seed) { s.Generation = 3 }), report), "a new generation is reconciled")
	assert.False(t, reportHolds(seed(func(s *gardencorev1beta1.Seed) { s.Status.LastOperation = nil }), report), "never reconciled")
	assert.False(t, reportHolds(seed(func(s *gardencorev1beta1.Seed) { s.Status.Conditions[0].Status = metav1.ConditionUnknown }), report),
		"GardenletReady went Unknown after missed heartbeats")
	assert.False(t, reportHolds(seed(func(s *gardencorev1beta1.Seed) { s.Status.Allocatable["shoots"] = resource.MustParse("8") }), report))
}

func TestApplySeedReport(t *testing.T) {
	seed := func(generation, observed int64) *unstructured.Unstructured {
		return fromYAML(t, `
apiVersion: core.gardener.cloud/v1beta1
kind: Seed
metadata: {name: set-0, generation: `+itoa(generation)+`}
status:
  observedGeneration: `+itoa(observed)+`
  gardener: {id: abc, name: gardenlet-xyz}
  lastOperation: {type: Reconcile, state: Succeeded, progress: 100, description: old, lastUpdateTime: '`+earlier+`'}
  capacity: {shoots: "10"}
  conditions:
  - {type: GardenletReady, status: Unknown, reason: StatusUnknown, message: Gardenlet stopped posting status updates., lastTransitionTime: '`+earlier+`', lastUpdateTime: '`+earlier+`'}
  - {type: ExtensionsReady, status: "True", reason: AllExtensionsReady, message: ok, lastTransitionTime: '`+earlier+`', lastUpdateTime: '`+earlier+`', codes: [ERR_X]}
`)
	}
	report := SeedReport{
		Conditions:  []GardenCondition{{"GardenletReady", controllerutils.True(ReasonGardenletReady, "Gardenlet is posting ready status.")}},
		Capacity:    corev1.ResourceList{"shoots": resource.MustParse("1e1")},
		Allocatable: corev1.ResourceList{"shoots": resource.MustParse("8")},
	}

	t.Run("same generation: conditions and resources, the last operation stays", func(t *testing.T) {
		u := seed(4, 4)
		changed, err := ApplySeedReport(u, report, gardenNow)
		require.NoError(t, err)
		assert.True(t, changed)
		conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		require.Len(t, conditions, 2)
		assert.Equal(t, "True", conditions[0].(map[string]any)["status"])
		assert.Equal(t, []any{"ERR_X"}, conditions[1].(map[string]any)["codes"], "gardener-controller-manager's condition is kept")
		capacity, _, _ := unstructured.NestedStringMap(u.Object, "status", "capacity")
		assert.Equal(t, map[string]string{"shoots": "10"}, capacity, "10 is 1e1: the capacity is left as written")
		allocatable, _, _ := unstructured.NestedStringMap(u.Object, "status", "allocatable")
		assert.Equal(t, map[string]string{"shoots": "8"}, allocatable)
		description, _, _ := unstructured.NestedString(u.Object, "status", "lastOperation", "description")
		assert.Equal(t, "old", description)
		id, _, _ := unstructured.NestedString(u.Object, "status", "gardener", "id")
		assert.Equal(t, "abc", id, "fields the simulator does not know are kept")

		changed, err = ApplySeedReport(u, report, gardenNow.Add(time.Minute))
		require.NoError(t, err)
		assert.False(t, changed, "a second application changes nothing")
	})
	t.Run("a new generation is reconciled", func(t *testing.T) {
		u := seed(5, 4)
		changed, err := ApplySeedReport(u, SeedReport{}, gardenNow)
		require.NoError(t, err)
		assert.True(t, changed)
		observed, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
		assert.Equal(t, int64(5), observed)
		operation, _, _ := unstructured.NestedMap(u.Object, "status", "lastOperation")
		assert.Equal(t, map[string]any{"type": "Reconcile", "state": "Succeeded", "progress": int64(100),
			"description": "Seed cluster has been successfully reconciled.", "lastUpdateTime": stamp}, operation)
		_, hasAllocatable, _ := unstructured.NestedMap(u.Object, "status", "allocatable")
		assert.False(t, hasAllocatable, "a report without resources writes none")
	})
}

func itoa(n int64) string { return resource.NewQuantity(n, resource.DecimalSI).String() }

func TestApplyManagedSeedConditions(t *testing.T) {
	u := fromYAML(t, `
apiVersion: seedmanagement.gardener.cloud/v1alpha1
kind: ManagedSeed
metadata: {namespace: garden, name: set-0, generation: 2}
status:
  observedGeneration: 1
  conditions:
  - {type: SeedRegistered, status: "True", reason: Reconciled, message: Seed set-0 has been registered, lastTransitionTime: '`+earlier+`', lastUpdateTime: '`+earlier+`'}
`)
	conditions := []GardenCondition{{"SeedRegistered", controllerutils.True(ReasonReconciled, "Seed set-0 has been registered")}}
	changed, err := ApplyManagedSeedConditions(u, conditions, gardenNow)
	require.NoError(t, err)
	assert.True(t, changed, "only observedGeneration is new")
	observed, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	assert.Equal(t, int64(2), observed)
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	assert.Equal(t, earlier, list[0].(map[string]any)["lastUpdateTime"])

	changed, err = ApplyManagedSeedConditions(u, conditions, gardenNow)
	require.NoError(t, err)
	assert.False(t, changed)
}

// managedSeedYAML is a ManagedSeed as gardener-apiserver stores it, its seedConfig defaulted
// by the ManagedSeed admission plugin.
const managedSeedYAML = `
apiVersion: seedmanagement.gardener.cloud/v1alpha1
kind: ManagedSeed
metadata: {namespace: garden, name: set-1, generation: 1}
spec:
  shoot: {name: set-1}
  gardenlet:
    config:
      apiVersion: gardenlet.config.gardener.cloud/v1alpha1
      kind: GardenletConfiguration
      resources:
        capacity: {shoots: "10"}
        reserved: {shoots: "2"}
      seedConfig:
        metadata:
          labels: {name: set}
          annotations: {note: from-template}
        spec:
          provider: {type: gcp, region: europe-west1, zones: [europe-west1-b]}
          dns:
            provider:
              type: test-dns
              credentialsRef: {apiVersion: v1, kind: Secret, name: seed-dns, namespace: garden}
          ingress:
            domain: ingress.set-1.example.com
            controller: {kind: nginx}
          networks: {nodes: 10.250.0.0/16, pods: 10.251.0.0/16, services: 10.252.0.0/16}
          settings:
            verticalPodAutoscaler: {enabled: false}
`

func TestSeedOfManagedSeed(t *testing.T) {
	ms := fromYAML(t, managedSeedYAML)
	seed, err := SeedOfManagedSeed(ms)
	require.NoError(t, err)
	assert.Equal(t, "core.gardener.cloud/v1beta1", seed.GetAPIVersion())
	assert.Equal(t, "Seed", seed.GetKind())
	assert.Equal(t, "set-1", seed.GetName())
	assert.Equal(t, map[string]string{"name": "set", "gardener.cloud/role": "seed"}, seed.GetLabels())
	assert.Equal(t, map[string]string{"note": "from-template"}, seed.GetAnnotations())
	assert.Equal(t, []string{GardenerFinalizer}, seed.GetFinalizers())
	want, _, _ := unstructured.NestedMap(ms.Object, "spec", "gardenlet", "config", "seedConfig", "spec")
	assert.Equal(t, want, seed.Object["spec"], "the whole spec, also what seedscaler's types lack")

	// The Seed is a copy: changing it leaves the ManagedSeed alone.
	require.NoError(t, unstructured.SetNestedField(seed.Object, "aws", "spec", "provider", "type"))
	typ, _, _ := unstructured.NestedString(ms.Object, "spec", "gardenlet", "config", "seedConfig", "spec", "provider", "type")
	assert.Equal(t, "gcp", typ)

	_, err = SeedOfManagedSeed(fromYAML(t, `{apiVersion: seedmanagement.gardener.cloud/v1alpha1, kind: ManagedSeed, metadata: {namespace: garden, name: x}, spec: {shoot: {name: x}}}`))
	assert.ErrorContains(t, err, "spec.gardenlet.config.seedConfig")
}

func TestUpdateSeedFrom(t *testing.T) {
	desired, err := SeedOfManagedSeed(fromYAML(t, managedSeedYAML))
	require.NoError(t, err)
	current := desired.DeepCopy()
	current.SetLabels(map[string]string{"name": "set", "gardener.cloud/role": "seed", "added-by": "an-operator"})
	current.SetFinalizers([]string{GardenerFinalizer, "someone-else"})
	assert.False(t, UpdateSeedFrom(current, desired), "nothing changed")

	require.NoError(t, unstructured.SetNestedField(desired.Object, "ingress.elsewhere.example.com", "spec", "ingress", "domain"))
	desired.SetLabels(map[string]string{"name": "set", "gardener.cloud/role": "seed", "tier": "2"})
	assert.True(t, UpdateSeedFrom(current, desired))
	domain, _, _ := unstructured.NestedString(current.Object, "spec", "ingress", "domain")
	assert.Equal(t, "ingress.elsewhere.example.com", domain)
	assert.Equal(t, map[string]string{"name": "set", "gardener.cloud/role": "seed", "added-by": "an-operator", "tier": "2"}, current.GetLabels())
	assert.Equal(t, []string{GardenerFinalizer, "someone-else"}, current.GetFinalizers())
}

func TestListedShoots(t *testing.T) {
	managedSeeds := []seedmanagementv1alpha1.ManagedSeed{{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "set-0"},
		Spec:       seedmanagementv1alpha1.ManagedSeedSpec{Shoot: &seedmanagementv1alpha1.Shoot{Name: "set-0"}},
	}}
	shoots := []gardencorev1beta1.Shoot{
		*builders.MakeShoot("garden", "set-0").SeedName("soil").LastOperation(gardencorev1beta1.LastOperationTypeCreate, gardencorev1beta1.LastOperationStateSucceeded).Obj(),
		*builders.MakeShoot("garden-a", "x").SeedName("set-0").Obj(),
		*builders.MakeShoot("garden-a", "y").SeedName("set-1").StatusSeedName("set-0").Obj(),
		*builders.MakeShoot("garden-a", "z").Obj(),
	}
	view := listedShoots(managedSeeds, shoots)
	require.NotNil(t, view.shoot("garden", "set-0"))
	assert.Equal(t, gardencorev1beta1.LastOperationStateSucceeded, view.operation("garden", "set-0").State)
	assert.Nil(t, view.shoot("garden-a", "x"), "only the ManagedSeeds' shoots are looked up")
	assert.Nil(t, view.operation("garden", "set-9"))
	hosted, err := view.hosted("set-0")
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"garden-a/x", "garden-a/y"}, hosted, "a shoot migrating away still counts on its old seed")
	hosted, err = view.hosted("set-2")
	require.NoError(t, err)
	assert.Empty(t, hosted)
}

func TestGardenTenantShoot(t *testing.T) {
	sh := builders.MakeShoot("garden-a", "t-abc").CloudProfile("gcp").Provider("gcp", "europe-west1").Purpose(gardencorev1beta1.ShootPurposeEvaluation).
		Toleration("dedicated", "").Labels(LabelTenant, "true").Obj()
	u, err := GardenTenantShoot(sh)
	require.NoError(t, err)
	assert.Equal(t, "core.gardener.cloud/v1beta1", u.GetAPIVersion())
	assert.Equal(t, "Shoot", u.GetKind())
	assert.Equal(t, "garden-a", u.GetNamespace())
	assert.Equal(t, "t-abc", u.GetName())
	assert.Equal(t, map[string]string{LabelTenant: "true"}, u.GetLabels())
	profile, _, _ := unstructured.NestedStringMap(u.Object, "spec", "cloudProfile")
	assert.Equal(t, map[string]string{"kind": "CloudProfile", "name": "gcp"}, profile)
	_, hasName, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "cloudProfileName")
	assert.False(t, hasName, "gardener-apiserver refuses cloudProfileName from Kubernetes 1.34 on")
	region, _, _ := unstructured.NestedString(u.Object, "spec", "region")
	assert.Equal(t, "europe-west1", region)
	tolerations, _, _ := unstructured.NestedSlice(u.Object, "spec", "tolerations")
	assert.Equal(t, []any{map[string]any{"key": "dedicated"}}, tolerations)
	_, hasStatus, _ := unstructured.NestedFieldNoCopy(u.Object, "status")
	assert.False(t, hasStatus)
	assert.Equal(t, "gcp", *sh.Spec.CloudProfileName, "the tenant's shoot is left as it was")
}

func TestExtensionsPending(t *testing.T) {
	assert.False(t, ExtensionsPending(builders.MakeSeed("s").Obj()), "no condition: no extension to install")
	assert.False(t, ExtensionsPending(builders.MakeSeed("s").Condition("ExtensionsReady", metav1.ConditionTrue).Obj()))
	assert.True(t, ExtensionsPending(builders.MakeSeed("s").Condition("ExtensionsReady", metav1.ConditionFalse).Obj()))
	assert.True(t, ExtensionsPending(builders.MakeSeed("s").Condition("ExtensionsReady", "Progressing").Obj()))
}
