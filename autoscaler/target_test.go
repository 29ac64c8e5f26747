//go:build integration

package autoscaler_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
)

// poolGVK is a kind other than ManagedSeedSet with a scale subresource whose status.selector
// picks seeds: what docs/autoscaler.md says a SeedAutoscaler can scale.
var poolGVK = schema.GroupVersionKind{Group: "pools.test.seedscaler.io", Version: "v1", Kind: "SeedPool"}

// installSeedPools installs the SeedPool CRD once and waits until it is served.
func installSeedPools(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "seedpools." + poolGVK.Group},
		"spec": map[string]any{
			"group": poolGVK.Group,
			"names": map[string]any{"plural": "seedpools", "singular": "seedpool", "kind": poolGVK.Kind, "listKind": poolGVK.Kind + "List"},
			"scope": "Namespaced",
			"versions": []any{map[string]any{
				"name": poolGVK.Version, "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
				"subresources": map[string]any{
					"status": map[string]any{},
					"scale":  map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".status.selector"},
				},
			}},
		},
	}}
	if err := env.Client.Create(ctx, u); err != nil && !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(poolGVK.GroupVersion().WithKind(poolGVK.Kind + "List"))
		return env.Client.List(ctx, list) == nil
	}, timeout, tick, "the SeedPool CRD is never served")
}

// createPool creates a SeedPool with the given replicas whose scale selects the fixture's
// seeds by the label pool=<name>.
func (f *fixture) createPool(replicas int64) {
	f.t.Helper()
	pool := &unstructured.Unstructured{}
	pool.SetGroupVersionKind(poolGVK)
	pool.SetNamespace(f.ns)
	pool.SetName(f.name)
	require.NoError(f.t, unstructured.SetNestedField(pool.Object, replicas, "spec", "replicas"))
	require.NoError(f.t, env.Client.Create(f.ctx, pool))
	require.NoError(f.t, unstructured.SetNestedField(pool.Object, replicas, "status", "replicas"))
	require.NoError(f.t, unstructured.SetNestedField(pool.Object, "pool="+f.name, "status", "selector"))
	require.NoError(f.t, env.Client.Status().Update(f.ctx, pool))
}

func (f *fixture) poolReplicas() int64 {
	f.t.Helper()
	pool := &unstructured.Unstructured{}
	pool.SetGroupVersionKind(poolGVK)
	require.NoError(f.t, env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: f.name}, pool))
	n, _, _ := unstructured.NestedInt64(pool.Object, "spec", "replicas")
	return n
}

// A target other than a ManagedSeedSet has no template a pending shoot could fit, so the
// scheduler publishes no pending-fit series for it: there is no pending demand to wait for,
// and it scales in on its seeds' utilization alone.
func TestTargetOtherThanManagedSeedSetScalesIn(t *testing.T) {
	installSeedPools(t)
	f := newFixture(t, "pool")
	f.createPool(4)
	for i := range 4 {
		f.addSeed(replicaName(f.name, i), 0, "pool", f.name)
	}
	sa := f.createAutoscaler(1, 10, 50, &autoscalingv1alpha1.SeedAutoscalerBehavior{
		ScaleDown: &autoscalingv1alpha1.ScalingRules{StabilizationWindowSeconds: ptr.To[int32](0)},
	})
	sa.Spec.ScaleTargetRef = autoscalingv1alpha1.CrossVersionObjectReference{APIVersion: poolGVK.GroupVersion().String(), Kind: poolGVK.Kind, Name: f.name}
	require.NoError(t, env.Client.Update(f.ctx, sa))
	f.start(false)

	f.waitForStatus("1 replica", func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool { return st.CurrentReplicas == 1 })
	assert.Equal(t, int64(1), f.poolReplicas())
	assert.Equal(t, []string{"4 → 1: resource/shoots is 0% of target 50%"}, f.eventsOnceThere("SuccessfulRescale", 1))
	assert.Equal(t, metav1.ConditionTrue, f.condition(autoscalingv1alpha1.SeedAutoscalerScalingActive).Status)
	assert.Empty(t, f.events("MetricsUnavailable"))
}
