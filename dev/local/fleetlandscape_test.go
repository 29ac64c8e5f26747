package local

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/dev/simulator"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// The fleet of 100 seeds: ten sets, each in its own region with a root seed there, a
// CloudProfile per provider listing its regions, and a SeedAutoscaler per set that never
// goes below the set's replicas; the set's seeds are selected by its selector and carry the
// fleet's capacity.
func TestFleetLandscape(t *testing.T) {
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	objs, err := FleetLandscape(root, 100)
	require.NoError(t, err)
	kinds := map[string]int{}
	var sets []seedmanagementv1alpha1.ManagedSeedSet
	var autoscalers []autoscalingv1alpha1.SeedAutoscaler
	var profiles []gardencorev1beta1.CloudProfile
	for _, o := range objs {
		kinds[o.GetKind()]++
		switch o.GetKind() {
		case "ManagedSeedSet":
			var set seedmanagementv1alpha1.ManagedSeedSet
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &set))
			sets = append(sets, set)
		case "SeedAutoscaler":
			var sa autoscalingv1alpha1.SeedAutoscaler
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &sa))
			autoscalers = append(autoscalers, sa)
		case "CloudProfile":
			var cp gardencorev1beta1.CloudProfile
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &cp))
			profiles = append(profiles, cp)
		}
	}
	assert.Equal(t, map[string]int{"Namespace": 1, "ConfigMap": 3, "CloudProfile": 3, "Seed": 10, "ManagedSeedSet": 10, "SeedAutoscaler": 10}, kinds)
	replicas := int32(0)
	for i, set := range sets {
		replicas += ptr.Deref(set.Spec.Replicas, 0)
		assert.Equal(t, set.Name, string(set.Spec.Selector.MatchLabels["seedscaler.io/set"]))
		assert.Equal(t, set.Name, set.Spec.Template.Labels["seedscaler.io/set"])
		assert.Equal(t, set.Name, autoscalers[i].Spec.ScaleTargetRef.Name)
		assert.Equal(t, ptr.Deref(set.Spec.Replicas, 0), ptr.Deref(autoscalers[i].Spec.MinReplicas, 0))
		assert.Nil(t, autoscalers[i].Spec.ScaleAhead, "the demo's scale-ahead windows are the demo's clock")
		assert.Equal(t, set.Spec.ShootTemplate.Spec.Provider.Type, ptr.Deref(set.Spec.ShootTemplate.Spec.CloudProfileName, ""))
	}
	assert.Equal(t, int32(100), replicas)
	assert.Equal(t, "aws", profiles[0].Spec.Type)
	assert.Equal(t, "eu-central-1", profiles[0].Spec.Regions[0].Name)
}

// The fleet of 100 seeds in Gardener's shapes: a Project per tenant project of the
// simulator's demand, a CloudProfile, credentials and machine type per provider, and per set
// a ManagedSeedSet whose replica shoots name what the landscape holds: the region's root
// seed, the provider's cloud profile and credentials, a machine type of its profile and the
// region's zones. Root seeds take no tenants: only the sets' seeds have shoot capacity.
func TestGardenerFleetLandscape(t *testing.T) {
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	objs, err := GardenerFleetLandscape(root, 100)
	require.NoError(t, err)
	kinds := map[string]int{}
	byName := map[string]*unstructured.Unstructured{}
	var sets []*unstructured.Unstructured
	for _, o := range objs {
		kinds[o.GetKind()]++
		byName[o.GetKind()+"/"+o.GetName()] = o
		if o.GetKind() == "ManagedSeedSet" {
			sets = append(sets, o)
		}
	}
	assert.Equal(t, map[string]int{"Namespace": 20, "Project": 20, "ConfigMap": 3, "CloudProfile": 3, "Secret": 3,
		"CredentialsBinding": 3, "ControllerRegistration": 1, "Seed": 10, "ManagedSeedSet": 10, "SeedAutoscaler": 10}, kinds)
	for _, p := range simulator.FleetConfiguration(100).Demand.Projects {
		project := byName["Project/"+p]
		require.NotNil(t, project, "project %s of the demand", p)
		ns, _, _ := unstructured.NestedString(project.Object, "spec", "namespace")
		assert.Equal(t, simulator.ProjectNamespacePrefix+p, ns)
		assert.Contains(t, byName, "Namespace/"+ns)
	}
	str := func(o *unstructured.Unstructured, path ...string) string {
		v, _, err := unstructured.NestedString(o.Object, path...)
		require.NoError(t, err)
		return v
	}
	replicas := int64(0)
	for _, set := range sets {
		n, _, _ := unstructured.NestedInt64(set.Object, "spec", "replicas")
		replicas += n
		shoot := []string{"spec", "shootTemplate", "spec"}
		provider := str(set, append(shoot, "provider", "type")...)
		region := str(set, append(shoot, "region")...)
		soil := byName["Seed/"+str(set, append(shoot, "seedName")...)]
		require.NotNil(t, soil, "the root seed of set %s", set.GetName())
		assert.Equal(t, region, str(soil, "spec", "provider", "region"))
		_, hasAllocatable, _ := unstructured.NestedMap(soil.Object, "status", "allocatable")
		assert.False(t, hasAllocatable, "root seed %s takes no tenants", soil.GetName())
		profile := byName["CloudProfile/"+str(set, append(shoot, "cloudProfile", "name")...)]
		require.NotNil(t, profile, "the cloud profile of set %s", set.GetName())
		assert.Equal(t, provider, str(profile, "spec", "type"))
		binding := byName["CredentialsBinding/"+str(set, append(shoot, "credentialsBindingName")...)]
		require.NotNil(t, binding, "the credentials of set %s", set.GetName())
		assert.Equal(t, provider, str(binding, "provider", "type"))
		assert.Contains(t, byName, "Secret/"+str(binding, "credentialsRef", "name"))

		workers, _, _ := unstructured.NestedSlice(set.Object, append(shoot, "provider", "workers")...)
		require.Len(t, workers, 1)
		worker := &unstructured.Unstructured{Object: workers[0].(map[string]any)}
		machineTypes, _, _ := unstructured.NestedSlice(profile.Object, "spec", "machineTypes")
		require.Len(t, machineTypes, 1)
		assert.Equal(t, machineTypes[0].(map[string]any)["name"], str(worker, "machine", "type"))
		zones, _, _ := unstructured.NestedStringSlice(worker.Object, "zones")
		regions, _, _ := unstructured.NestedSlice(profile.Object, "spec", "regions")
		var profileZones []string
		for _, r := range regions {
			if r.(map[string]any)["name"] == region {
				for _, z := range r.(map[string]any)["zones"].([]any) {
					profileZones = append(profileZones, z.(map[string]any)["name"].(string))
				}
			}
		}
		assert.Equal(t, profileZones, zones, "set %s's workers in its region's zones", set.GetName())

		seedLabels, _, _ := unstructured.NestedStringMap(set.Object, "spec", "template", "spec", "gardenlet", "config", "seedConfig", "metadata", "labels")
		assert.Equal(t, set.GetName(), seedLabels["seedscaler.io/set"], "the autoscaler's metrics select the set's seeds by it")
		capacity := str(set, "spec", "template", "spec", "gardenlet", "config", "resources", "capacity", "shoots")
		assert.Equal(t, fmt.Sprint(simulator.FleetSeedCapacity), capacity)
		assert.Contains(t, byName, "SeedAutoscaler/"+set.GetName())
	}
	assert.Equal(t, int64(100), replicas)
}
