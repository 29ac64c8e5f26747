package local

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
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
