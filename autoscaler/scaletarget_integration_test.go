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

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
)

// heapGVK is a kind without a scale subresource: the apiserver accepts it as a scale
// target (CEL cannot look other kinds up), the autoscaler says why it cannot scale it.
var heapGVK = schema.GroupVersionKind{Group: "heaps.test.seedscaler.io", Version: "v1", Kind: "SeedHeap"}

func installSeedHeaps(t *testing.T) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "seedheaps." + heapGVK.Group},
		"spec": map[string]any{
			"group": heapGVK.Group,
			"names": map[string]any{"plural": "seedheaps", "singular": "seedheap", "kind": heapGVK.Kind, "listKind": heapGVK.Kind + "List"},
			"scope": "Namespaced",
			"versions": []any{map[string]any{
				"name": heapGVK.Version, "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
			}},
		},
	}}
	if err := env.Client.Create(t.Context(), u); err != nil && !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(heapGVK.GroupVersion().WithKind(heapGVK.Kind + "List"))
		return env.Client.List(t.Context(), list) == nil
	}, timeout, tick, "the SeedHeap CRD is never served")
}

// A scale target the cluster does not back: AbleToScale is False with a reason that says
// which part of spec.scaleTargetRef is wrong, and the message names the fix.
func TestScaleTargetProblemsAreNamedInAbleToScale(t *testing.T) {
	installSeedHeaps(t)
	installSeedPools(t)
	for _, tc := range []struct {
		name   string
		ref    autoscalingv1alpha1.CrossVersionObjectReference
		reason string
		want   string
	}{{
		name:   "no-scale",
		ref:    autoscalingv1alpha1.CrossVersionObjectReference{APIVersion: heapGVK.GroupVersion().String(), Kind: heapGVK.Kind, Name: "no-scale"},
		reason: "MissingScaleSubresource",
		want:   "SeedHeap no-scale/no-scale exists, but SeedHeap heaps.test.seedscaler.io/v1 has no scale subresource: target a ManagedSeedSet, or a kind whose CRD declares subresources.scale",
	}, {
		name:   "unknown-kind",
		ref:    autoscalingv1alpha1.CrossVersionObjectReference{APIVersion: "seedmanagement.gardener.cloud/v1alpha1", Kind: "ManagedSeedSett", Name: "unknown-kind"},
		reason: "UnknownTargetKind",
		want:   "the cluster serves no kind ManagedSeedSett in seedmanagement.gardener.cloud/v1alpha1: correct spec.scaleTargetRef.apiVersion and kind, or install the CRD",
	}, {
		name:   "missing-pool",
		ref:    autoscalingv1alpha1.CrossVersionObjectReference{APIVersion: poolGVK.GroupVersion().String(), Kind: poolGVK.Kind, Name: "absent"},
		reason: "TargetNotFound",
		want:   "SeedPool missing-pool/absent does not exist: create it or correct spec.scaleTargetRef.name",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.name)
			if tc.ref.Kind == heapGVK.Kind {
				heap := &unstructured.Unstructured{}
				heap.SetGroupVersionKind(heapGVK)
				heap.SetNamespace(f.ns)
				heap.SetName(tc.ref.Name)
				require.NoError(t, env.Client.Create(f.ctx, heap))
			}
			sa := f.createAutoscaler(1, 10, 50, nil)
			sa.Spec.ScaleTargetRef = tc.ref
			require.NoError(t, env.Client.Update(f.ctx, sa))
			f.start(false)

			f.waitForReason(autoscalingv1alpha1.SeedAutoscalerAbleToScale, tc.reason)
			c := f.condition(autoscalingv1alpha1.SeedAutoscalerAbleToScale)
			assert.Equal(t, metav1.ConditionFalse, c.Status)
			assert.Contains(t, c.Message, tc.want)
			require.Eventually(t, func() bool { return len(f.events("FailedGetScale")) > 0 }, timeout, tick)
			assert.Contains(t, f.events("FailedGetScale")[0], tc.want)
		})
	}
}
