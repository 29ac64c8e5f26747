//go:build integration

package crds

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/manifest"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// mutation changes one thing of a valid object.
type mutation func(obj map[string]any)

func set(value any, path ...string) mutation {
	return func(obj map[string]any) {
		if err := unstructured.SetNestedField(obj, value, path...); err != nil {
			panic(err)
		}
	}
}

// setMetric changes the first metric of a SeedAutoscaler (SetNestedField cannot index lists).
func setMetric(value any, path ...string) mutation {
	return func(obj map[string]any) {
		metrics, _, _ := unstructured.NestedSlice(obj, "spec", "metrics")
		m := metrics[0].(map[string]any)
		if err := unstructured.SetNestedField(m, value, path...); err != nil {
			panic(err)
		}
		metrics[0] = m
		if err := unstructured.SetNestedSlice(obj, metrics, "spec", "metrics"); err != nil {
			panic(err)
		}
	}
}

// duplicateMetric appends a copy of the first metric of a SeedAutoscaler with another
// target of the given type: the same metric twice, however the targets differ.
func duplicateMetric(targetType string) mutation {
	return func(obj map[string]any) {
		metrics, _, _ := unstructured.NestedSlice(obj, "spec", "metrics")
		dup := runtime.DeepCopyJSONValue(metrics[0]).(map[string]any)
		target := map[string]any{"type": targetType, "averageValue": "40"}
		if err := unstructured.SetNestedField(dup, target, "resource", "target"); err != nil {
			panic(err)
		}
		if err := unstructured.SetNestedSlice(obj, append(metrics, dup), "spec", "metrics"); err != nil {
			panic(err)
		}
	}
}

func remove(path ...string) mutation {
	return func(obj map[string]any) { unstructured.RemoveNestedField(obj, path...) }
}

// example loads the single object of an example file into a fresh namespace-less copy.
func example(t *testing.T, file string) *unstructured.Unstructured {
	t.Helper()
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	objs, err := manifest.ReadFile(filepath.Join(root, "examples", file))
	require.NoError(t, err)
	require.NotEmpty(t, objs)
	return objs[0]
}

func ensureNamespace(t *testing.T, name string) {
	t.Helper()
	err := env.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil && !strings.Contains(err.Error(), "already exists") {
		require.NoError(t, err)
	}
}

// Each invalid object differs from a valid example in one field and must be rejected with
// a message that names that field.
func TestInvalidObjectsAreRejectedNamingTheField(t *testing.T) {
	ensureNamespace(t, "invalid")
	cases := []struct {
		name    string
		example string
		change  mutation
		want    string
	}{
		{"managedseed with seedTemplate and gardenlet", "managedseed-seedtemplate.yaml",
			set(map[string]any{"bootstrap": "None"}, "spec", "gardenlet"),
			"exactly one of seedTemplate and gardenlet must be set"},
		{"managedseed with neither seedTemplate nor gardenlet", "managedseed-seedtemplate.yaml",
			remove("spec", "seedTemplate"), "exactly one of seedTemplate and gardenlet must be set"},
		{"managedseed without shoot", "managedseed-seedtemplate.yaml",
			remove("spec", "shoot"), "spec.shoot.name is required"},
		{"reserved above capacity", "managedseed-gardenlet.yaml",
			set(int64(201), "spec", "gardenlet", "config", "resources", "reserved", "persistent-volumes"),
			"resources.reserved exceeds resources.capacity"},
		{"reserved resource without capacity", "managedseed-gardenlet.yaml",
			set("5", "spec", "gardenlet", "config", "resources", "reserved", "load-balancers"),
			"resources.reserved names a resource that resources.capacity lacks"},
		{"seed template taint key not a qualified name", "managedseed-seedtemplate.yaml",
			set([]any{map[string]any{"key": "-not valid/"}}, "spec", "seedTemplate", "spec", "taints"),
			"spec.taints[].key must be a qualified name"},
		{"seed template pods not a CIDR", "managedseed-seedtemplate.yaml",
			set("100.96.0.0", "spec", "seedTemplate", "spec", "networks", "pods"),
			"spec.networks.pods must be a CIDR"},
		{"autoscaler min above max", "seedautoscaler.yaml",
			set(int64(11), "spec", "minReplicas"), "spec.minReplicas must not exceed spec.maxReplicas"},
		{"autoscaler max zero", "seedautoscaler.yaml",
			set(int64(0), "spec", "maxReplicas"), "spec.maxReplicas in body should be greater than or equal to 1"},
		{"autoscaler min negative", "seedautoscaler.yaml",
			set(int64(-1), "spec", "minReplicas"), "spec.minReplicas in body should be greater than or equal to 0"},
		{"utilization target without averageUtilization", "seedautoscaler.yaml",
			setMetric(map[string]any{"type": "Utilization"}, "resource", "target"),
			"target.averageUtilization is required when target.type is Utilization"},
		{"utilization target of zero", "seedautoscaler.yaml",
			setMetric(map[string]any{"type": "Utilization", "averageUtilization": int64(0)}, "resource", "target"),
			"averageUtilization in body should be greater than or equal to 1"},
		{"average value target without averageValue", "seedautoscaler.yaml",
			setMetric(map[string]any{"type": "AverageValue"}, "resource", "target"),
			"target.averageValue is required when target.type is AverageValue"},
		{"metric type other than Resource", "seedautoscaler.yaml",
			setMetric("Pods", "type"), `spec.metrics[0].type: Unsupported value: "Pods"`},
		// The exporter publishes usage for shoots only: any other resource (a typo such as
		// shots included) would fail to fetch for ever and hold every scale-in.
		{"metric on a typo of shoots", "seedautoscaler.yaml", setMetric("shots", "resource", "name"),
			`spec.metrics[0].resource.name: Unsupported value: "shots": supported values: "shoots"`},
		{"metric on a resource without published usage", "seedautoscaler.yaml", setMetric("persistent-volumes", "resource", "name"),
			`spec.metrics[0].resource.name: Unsupported value: "persistent-volumes": supported values: "shoots"`},
		{"autoscaler max above the bound", "seedautoscaler.yaml",
			set(int64(autoscalingv1alpha1.MaxReplicasLimit+1), "spec", "maxReplicas"), fmt.Sprintf("spec.maxReplicas: Invalid value: %d: spec.maxReplicas in body should be less than or equal to %d", autoscalingv1alpha1.MaxReplicasLimit+1, autoscalingv1alpha1.MaxReplicasLimit)},
		{"fallback replicas above the bound", "seedautoscaler.yaml",
			setMetric(map[string]any{"failureDurationSeconds": int64(60), "replicas": int64(autoscalingv1alpha1.MaxReplicasLimit + 1)}, "fallback"),
			fmt.Sprintf("spec.metrics[0].fallback.replicas in body should be less than or equal to %d", autoscalingv1alpha1.MaxReplicasLimit)},
		{"the same metric twice", "seedautoscaler.yaml", duplicateMetric("AverageValue"),
			"spec.metrics: Invalid value: spec.metrics lists the same metric twice (same type and resource name): list each metric once, with one target"},
		{"scale target without apiVersion", "seedautoscaler.yaml",
			remove("spec", "scaleTargetRef", "apiVersion"), "spec.scaleTargetRef.apiVersion: Required value"},
		{"scale target apiVersion without version", "seedautoscaler.yaml",
			set("seedmanagement.gardener.cloud", "spec", "scaleTargetRef", "apiVersion"),
			"spec.scaleTargetRef.apiVersion must be group/version in lower case, e.g. seedmanagement.gardener.cloud/v1alpha1"},
		{"scale target apiVersion with a kind in it", "seedautoscaler.yaml",
			set("seedmanagement.gardener.cloud/v1alpha1/ManagedSeedSet", "spec", "scaleTargetRef", "apiVersion"),
			"spec.scaleTargetRef.apiVersion must be group/version in lower case"},
		{"scale target ManagedSeedSet of another group", "seedautoscaler.yaml",
			set("apps/v1", "spec", "scaleTargetRef", "apiVersion"),
			"spec.scaleTargetRef.apiVersion of a ManagedSeedSet is seedmanagement.gardener.cloud/v1alpha1"},
		{"scale target resource instead of kind", "seedautoscaler.yaml",
			set("managedseedsets", "spec", "scaleTargetRef", "kind"),
			"spec.scaleTargetRef.kind must be a kind such as ManagedSeedSet: a capital letter, then letters and digits"},
		{"scale target empty kind", "seedautoscaler.yaml",
			set("", "spec", "scaleTargetRef", "kind"), "spec.scaleTargetRef.kind in body should be at least 1 chars long"},
		{"scale target empty name", "seedautoscaler.yaml",
			set("", "spec", "scaleTargetRef", "name"), "spec.scaleTargetRef.name in body should be at least 1 chars long"},
		{"scale target name not a name", "seedautoscaler.yaml",
			set("Crazy Botany", "spec", "scaleTargetRef", "name"),
			"spec.scaleTargetRef.name must be the name of an object: lower case letters, digits, '-' and '.'"},
		{"scale ahead on a forecast that does not exist", "seedautoscaler.yaml",
			set([]any{"Linear"}, "spec", "scaleAhead", "forecasts"),
			`spec.scaleAhead.forecasts[0]: Unsupported value: "Linear": supported values: "Trend", "Seasonal"`},
		{"scale ahead without forecasts", "seedautoscaler.yaml",
			set([]any{}, "spec", "scaleAhead", "forecasts"), "spec.scaleAhead.forecasts in body should have at least 1 items"},
		{"scale ahead on the same forecast twice", "seedautoscaler.yaml",
			set([]any{"Trend", "Trend"}, "spec", "scaleAhead", "forecasts"),
			"spec.scaleAhead.forecasts lists a forecast twice: list Trend and Seasonal at most once each"},
		{"scale ahead lead time below the bound", "seedautoscaler.yaml",
			set(map[string]any{"forecasts": []any{"Trend"}, "leadTimeSeconds": int64(14)}, "spec", "scaleAhead"),
			"spec.scaleAhead.leadTimeSeconds in body should be greater than or equal to 15"},
		{"scale ahead lead time above the bound", "seedautoscaler.yaml",
			set(map[string]any{"forecasts": []any{"Trend"}, "leadTimeSeconds": int64(86400)}, "spec", "scaleAhead"),
			"spec.scaleAhead.leadTimeSeconds in body should be less than or equal to 21600"},
		{"scale ahead trend window below the bound", "seedautoscaler.yaml",
			set(map[string]any{"forecasts": []any{"Trend"}, "trend": map[string]any{"windowSeconds": int64(59)}}, "spec", "scaleAhead"),
			"spec.scaleAhead.trend.windowSeconds in body should be greater than or equal to 60"},
		{"scale ahead seasonal period of an hour", "seedautoscaler.yaml",
			set(map[string]any{"forecasts": []any{"Seasonal"}, "seasonal": map[string]any{"periodSeconds": int64(3600)}}, "spec", "scaleAhead"),
			"spec.scaleAhead.seasonal.periodSeconds must be 86400 (a day) or 604800 (a week)"},
		{"scale ahead accuracy threshold of zero", "seedautoscaler.yaml",
			set(map[string]any{"forecasts": []any{"Trend"}, "accuracy": map[string]any{"thresholdPercent": int64(0)}}, "spec", "scaleAhead"),
			"spec.scaleAhead.accuracy.thresholdPercent in body should be greater than or equal to 1"},
		{"scale ahead accuracy window above the bound", "seedautoscaler.yaml",
			set(map[string]any{"forecasts": []any{"Trend"}, "accuracy": map[string]any{"windowSeconds": int64(86401)}}, "spec", "scaleAhead"),
			"spec.scaleAhead.accuracy.windowSeconds in body should be less than or equal to 86400"},
		{"scale ahead configures a seasonal forecast it does not use", "seedautoscaler.yaml",
			set(map[string]any{"forecasts": []any{"Trend"}, "seasonal": map[string]any{"periodSeconds": int64(86400)}}, "spec", "scaleAhead"),
			"spec.scaleAhead.seasonal configures a forecast that spec.scaleAhead.forecasts does not list: add Seasonal to forecasts or remove seasonal"},
		{"scale ahead configures a trend forecast it does not use", "seedautoscaler.yaml",
			set(map[string]any{"forecasts": []any{"Seasonal"}, "trend": map[string]any{"windowSeconds": int64(1800)}}, "spec", "scaleAhead"),
			"spec.scaleAhead.trend configures a forecast that spec.scaleAhead.forecasts does not list: add Trend to forecasts or remove trend"},
		{"set with replicas above the bound", "managedseedset.yaml",
			set(int64(autoscalingv1alpha1.MaxReplicasLimit+1), "spec", "replicas"), fmt.Sprintf("spec.replicas: Invalid value: %d: spec.replicas in body should be less than or equal to %d", autoscalingv1alpha1.MaxReplicasLimit+1, autoscalingv1alpha1.MaxReplicasLimit)},
		{"scale target without kind", "seedautoscaler.yaml",
			remove("spec", "scaleTargetRef", "kind"), "spec.scaleTargetRef.kind: Required value"},
		{"scale target without name", "seedautoscaler.yaml",
			remove("spec", "scaleTargetRef", "name"), "spec.scaleTargetRef.name: Required value"},
		{"set with negative replicas", "managedseedset.yaml",
			set(int64(-1), "spec", "replicas"), "spec.replicas in body should be greater than or equal to 0"},
		{"set without selector", "managedseedset.yaml",
			remove("spec", "selector"), "spec.selector: Required value"},
		{"set with empty selector", "managedseedset.yaml",
			set(map[string]any{}, "spec", "selector"), "spec.selector must not be empty"},
		{"set selector not matching the ManagedSeed template", "managedseedset.yaml",
			set(map[string]any{"other": "label"}, "spec", "template", "metadata", "labels"),
			"spec.selector does not match spec.template.metadata.labels"},
		{"set selector not matching the shoot template", "managedseedset.yaml",
			remove("spec", "shootTemplate", "metadata"),
			"spec.selector does not match spec.shootTemplate.metadata.labels"},
		{"set selector not matching the seed template", "managedseedset.yaml",
			set(map[string]any{"foo": "baz"}, "spec", "template", "spec", "seedTemplate", "metadata", "labels"),
			"the labels of the seed template"},
		{"set match expression not matching the seed template", "managedseedset.yaml",
			set([]any{map[string]any{"key": "tier", "operator": "Exists"}}, "spec", "selector", "matchExpressions"),
			"spec.selector does not match spec.template.metadata.labels"},
		{"set with negative partition", "managedseedset.yaml",
			set(int64(-1), "spec", "updateStrategy", "rollingUpdate", "partition"),
			"spec.updateStrategy.rollingUpdate.partition in body should be greater than or equal to 0"},
		{"set with negative revision history", "managedseedset.yaml",
			set(int64(-1), "spec", "revisionHistoryLimit"),
			"spec.revisionHistoryLimit in body should be greater than or equal to 0"},
		{"set with an update strategy other than RollingUpdate", "managedseedset.yaml",
			set("OnDelete", "spec", "updateStrategy", "type"), `spec.updateStrategy.type: Unsupported value: "OnDelete"`},
		{"shoot template nodes not a CIDR", "managedseedset.yaml",
			set("10.250.0.0/33", "spec", "shootTemplate", "spec", "networking", "nodes"),
			"spec.networking.nodes must be a CIDR"},
		{"unknown field", "managedseedset.yaml",
			set("x", "spec", "replicaCount"), `unknown field "spec.replicaCount"`},
		{"consolidation under scale up", "seedautoscaler.yaml",
			set(map[string]any{"consolidation": map[string]any{"windowSeconds": int64(600)}}, "spec", "behavior", "scaleUp"),
			"spec.behavior.scaleUp.consolidation is not allowed: consolidation drains seeds to scale down, set it under spec.behavior.scaleDown"},
		{"consolidation window below the bound", "seedautoscaler.yaml",
			set(map[string]any{"consolidation": map[string]any{"windowSeconds": int64(59)}}, "spec", "behavior", "scaleDown"),
			"spec.behavior.scaleDown.consolidation.windowSeconds in body should be greater than or equal to 60"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := example(t, tc.example)
			obj.SetNamespace("invalid")
			obj.SetName(fmt.Sprintf("invalid-%d", i))
			tc.change(obj.Object)
			err := env.Client.Create(context.Background(), obj, client.FieldValidation("Strict"))
			require.Error(t, err, "the apiserver accepted an invalid object")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// The checks of a SeedAutoscaler's references and bounds refuse typos, not what works:
// a kind of another group with a scale subresource, the bounds themselves, and one metric
// per resource are accepted.
func TestValidSeedAutoscalerVariantsAreAccepted(t *testing.T) {
	ensureNamespace(t, "valid")
	cases := []struct {
		name   string
		change mutation
	}{
		{"another kind with a scale subresource", set(map[string]any{"apiVersion": "pools.test.seedscaler.io/v1", "kind": "SeedPool", "name": "pool-1.eu"}, "spec", "scaleTargetRef")},
		{"a kind of the core group", set(map[string]any{"apiVersion": "v1", "kind": "ReplicationController", "name": "rc"}, "spec", "scaleTargetRef")},
		{"maxReplicas at the bound", set(int64(autoscalingv1alpha1.MaxReplicasLimit), "spec", "maxReplicas")},
		{"scale ahead on both forecasts with every setting", set(map[string]any{
			"forecasts": []any{"Trend", "Seasonal"}, "leadTimeSeconds": int64(21600),
			"trend": map[string]any{"windowSeconds": int64(1800)}, "seasonal": map[string]any{"periodSeconds": int64(604800)},
			"accuracy": map[string]any{"thresholdPercent": int64(50), "windowSeconds": int64(3600)},
		}, "spec", "scaleAhead")},
		{"scale ahead on the trend alone", set(map[string]any{"forecasts": []any{"Trend"}}, "spec", "scaleAhead")},
		{"fallback at the bound", setMetric(map[string]any{"failureDurationSeconds": int64(60), "replicas": int64(autoscalingv1alpha1.MaxReplicasLimit)}, "fallback")},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := example(t, "seedautoscaler.yaml")
			obj.SetNamespace("valid")
			obj.SetName(fmt.Sprintf("valid-%d", i))
			tc.change(obj.Object)
			require.NoError(t, env.Client.Create(context.Background(), obj, client.FieldValidation("Strict")))
		})
	}
}

func TestInvalidSeedsAndShootsAreRejected(t *testing.T) {
	ensureNamespace(t, "invalid-core")
	cases := []struct {
		name string
		obj  map[string]any
		want string
	}{
		{"seed nodes not a CIDR", seedObject("bad-nodes", set("10.0.0.0/8x", "spec", "networks", "nodes")),
			"spec.networks.nodes must be a CIDR"},
		{"seed taint key with a space", seedObject("bad-taint", set([]any{map[string]any{"key": "a b"}}, "spec", "taints")),
			"spec.taints[].key must be a qualified name"},
		{"seed shoot default not a CIDR", seedObject("bad-default", set("100.72.0.0", "spec", "networks", "shootDefaults", "services")),
			"shootDefaults.services must be a CIDR"},
		{"shoot pods not a CIDR", shootObject("bad-pods", set("100.96.0.0/", "spec", "networking", "pods")),
			"spec.networking.pods must be a CIDR"},
		{"shoot with an unknown purpose", shootObject("bad-purpose", set("fun", "spec", "purpose")),
			`spec.purpose: Unsupported value: "fun"`},
		{"shoot cloud profile of an unknown kind", shootObject("bad-profile-kind", set(map[string]any{"kind": "Profile", "name": "gcp"}, "spec", "cloudProfile")),
			`spec.cloudProfile.kind: Unsupported value: "Profile": supported values: "CloudProfile", "NamespacedCloudProfile"`},
		{"shoot cloud profile without name", shootObject("bad-profile-name", set(map[string]any{"kind": "CloudProfile"}, "spec", "cloudProfile")),
			"spec.cloudProfile.name: Required value"},
		{"shoot naming two CloudProfiles", shootObject("two-profiles", set("gcp", "spec", "cloudProfileName"), set(map[string]any{"name": "aws"}, "spec", "cloudProfile")),
			"spec.cloudProfileName and spec.cloudProfile.name name different CloudProfiles: spec.cloudProfileName is deprecated, set spec.cloudProfile alone"},
		{"shoot with an unknown IP family", shootObject("bad-family", set([]any{"IPv5"}, "spec", "networking", "ipFamilies")),
			`spec.networking.ipFamilies[0]: Unsupported value: "IPv5"`},
		{"shoot with four control plane zones", shootObject("many-zones", set([]any{"a", "b", "c", "d"}, "spec", "controlPlane", "zones")),
			"spec.controlPlane.zones: Too many: 4: must have at most 3 items"},
		{"shoot worker pool name too long", shootObject("long-pool", set([]any{map[string]any{"name": "a-very-long-pool", "machine": map[string]any{"type": "m"}, "minimum": int64(1), "maximum": int64(2)}}, "spec", "provider", "workers")),
			"spec.provider.workers[0].name: Too long"},
		{"shoot worker pool without machine", shootObject("no-machine", set([]any{map[string]any{"name": "pool", "minimum": int64(1), "maximum": int64(2)}}, "spec", "provider", "workers")),
			"spec.provider.workers[0].machine: Required value"},
		{"shoot access restriction without name", shootObject("bad-restriction", set([]any{map[string]any{"options": map[string]any{"a": "b"}}}, "spec", "accessRestrictions")),
			"spec.accessRestrictions[0].name: Required value"},
		{"seed with an unknown zone selection mode", seedObject("bad-zone-mode", set(map[string]any{"mode": "Always"}, "spec", "settings", "zoneSelection")),
			`spec.settings.zoneSelection.mode: Unsupported value: "Always": supported values: "Prefer", "Enforce"`},
		{"seed internal domain without domain", seedObject("bad-internal", set(map[string]any{"type": "aws-route53"}, "spec", "dns", "internal")),
			"spec.dns.internal.domain: Required value"},
		{"namespaced cloud profile deriving from a namespaced cloud profile", namespacedCloudProfileObject("bad-parent", set("NamespacedCloudProfile", "spec", "parent", "kind")),
			"spec.parent.kind must be CloudProfile: a NamespacedCloudProfile derives from a CloudProfile"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := env.Client.Create(context.Background(), &unstructured.Unstructured{Object: tc.obj}, client.FieldValidation("Strict"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// Gardener's manifests with the fields the scheduler judges by apply unchanged.
func TestSchedulingFieldsOfGardenerManifestsAreAccepted(t *testing.T) {
	ensureNamespace(t, "invalid-core")
	objs := []map[string]any{
		shootObject("all-scheduling-fields",
			set(map[string]any{"kind": "NamespacedCloudProfile", "name": "team"}, "spec", "cloudProfile"),
			set("gcp", "spec", "cloudProfileName"),
			set([]any{map[string]any{"name": "eu-access-only", "options": map[string]any{"support.gardener.cloud/eu-access-for-cluster-nodes": "true"}}}, "spec", "accessRestrictions"),
			set("api.all-scheduling-fields.dev.shoots.example.com", "spec", "dns", "domain"),
			set([]any{"europe-west1-b"}, "spec", "controlPlane", "zones"),
			set([]any{"IPv4", "IPv6"}, "spec", "networking", "ipFamilies"),
			set([]any{map[string]any{"name": "worker-1", "machine": map[string]any{"type": "n1-standard-4", "image": map[string]any{"name": "gardenlinux", "version": "1877.0.0"}},
				"minimum": int64(1), "maximum": int64(3), "zones": []any{"europe-west1-b", "europe-west1-c"}}}, "spec", "provider", "workers"),
		),
		shootObject("kind-defaults-to-cloudprofile", set(map[string]any{"name": "gcp"}, "spec", "cloudProfile"), set("gcp", "spec", "cloudProfileName")),
		seedObject("all-scheduling-fields",
			set([]any{map[string]any{"name": "eu-access-only"}}, "spec", "accessRestrictions"),
			set(map[string]any{
				"internal": map[string]any{"type": "aws-route53", "domain": "internal.example.com", "credentialsRef": map[string]any{"apiVersion": "v1", "kind": "Secret", "namespace": "garden", "name": "internal-domain"}},
				"defaults": []any{map[string]any{"type": "aws-route53", "domain": "shoots.example.com", "zone": "Z123"}},
			}, "spec", "dns"),
			set(map[string]any{"mode": "Prefer"}, "spec", "settings", "zoneSelection"),
		),
		namespacedCloudProfileObject("team"),
	}
	for _, obj := range objs {
		u := &unstructured.Unstructured{Object: obj}
		require.NoError(t, env.Client.Create(context.Background(), u, client.FieldValidation("Strict")), "%s %s", u.GetKind(), u.GetName())
	}
	// Gardener writes the merged profile into the status of a NamespacedCloudProfile.
	ncp := &unstructured.Unstructured{}
	ncp.SetGroupVersionKind(schema.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "NamespacedCloudProfile"})
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: "invalid-core", Name: "team"}, ncp))
	require.NoError(t, unstructured.SetNestedField(ncp.Object, map[string]any{
		"type": "gcp", "regions": []any{map[string]any{"name": "europe-west1", "accessRestrictions": []any{map[string]any{"name": "eu-access-only"}}}},
		"seedSelector": map[string]any{"matchLabels": map[string]any{"seed.gardener.cloud/shoots": "allowed"}},
	}, "status", "cloudProfileSpec"))
	require.NoError(t, env.Client.Status().Update(context.Background(), ncp, client.FieldValidation("Strict")))

	shoot := &unstructured.Unstructured{}
	shoot.SetGroupVersionKind(schema.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Shoot"})
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: "invalid-core", Name: "kind-defaults-to-cloudprofile"}, shoot))
	kind, _, _ := unstructured.NestedString(shoot.Object, "spec", "cloudProfile", "kind")
	assert.Equal(t, "CloudProfile", kind, "spec.cloudProfile.kind defaults to CloudProfile")
}

func namespacedCloudProfileObject(name string, changes ...mutation) map[string]any {
	obj := map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1",
		"kind":       "NamespacedCloudProfile",
		"metadata":   map[string]any{"name": name, "namespace": "invalid-core"},
		"spec":       map[string]any{"parent": map[string]any{"kind": "CloudProfile", "name": "gcp"}},
	}
	for _, c := range changes {
		c(obj)
	}
	return obj
}

func seedObject(name string, changes ...mutation) map[string]any {
	obj := map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1",
		"kind":       "Seed",
		"metadata":   map[string]any{"name": name},
		"spec": map[string]any{
			"provider": map[string]any{"type": "gcp", "region": "europe-west1"},
			"networks": map[string]any{"pods": "100.96.0.0/11", "services": "100.64.0.0/13"},
		},
	}
	for _, c := range changes {
		c(obj)
	}
	return obj
}

func shootObject(name string, changes ...mutation) map[string]any {
	obj := map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1",
		"kind":       "Shoot",
		"metadata":   map[string]any{"name": name, "namespace": "invalid-core"},
		"spec": map[string]any{
			"provider": map[string]any{"type": "gcp"},
			"region":   "europe-west1",
		},
	}
	for _, c := range changes {
		c(obj)
	}
	return obj
}

// Immutable fields: a shoot's seedName once set cannot be removed (changing it migrates the
// control plane), a set's selector.
func TestImmutableFieldsCannotChange(t *testing.T) {
	ctx := context.Background()
	ensureNamespace(t, "invalid-core")

	shoot := &unstructured.Unstructured{Object: shootObject("bound", set("seed-a", "spec", "seedName"))}
	require.NoError(t, env.Client.Create(ctx, shoot))
	unstructured.RemoveNestedField(shoot.Object, "spec", "seedName")
	err := env.Client.Update(ctx, shoot)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.seedName cannot be removed once set; to move the shoot, set spec.seedName to another seed")
	require.NoError(t, unstructured.SetNestedField(shoot.Object, "seed-b", "spec", "seedName"))
	require.NoError(t, env.Client.Update(ctx, shoot), "changing spec.seedName (a control plane migration) must be allowed")

	// An unbound shoot may be bound once.
	unbound := &unstructured.Unstructured{Object: shootObject("unbound")}
	require.NoError(t, env.Client.Create(ctx, unbound))
	require.NoError(t, unstructured.SetNestedField(unbound.Object, "seed-a", "spec", "seedName"))
	require.NoError(t, env.Client.Update(ctx, unbound), "binding an unbound shoot must be allowed")

	set := example(t, "managedseedset.yaml")
	set.SetNamespace("invalid-core")
	require.NoError(t, env.Client.Create(ctx, set))
	require.NoError(t, unstructured.SetNestedField(set.Object, map[string]any{"foo": "bar", "x": "y"}, "spec", "selector", "matchLabels"))
	err = env.Client.Update(ctx, set)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.selector is immutable")
}
