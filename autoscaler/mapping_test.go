package autoscaler

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/scheme"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// A seed wakes the autoscalers of the sets whose spec.selector picks it: a set of Gardener's
// has no status.selector (its /scale computes the selector from spec.selector).
func TestMapSeedToAutoscalersBySpecSelector(t *testing.T) {
	set := func(name string, matchLabels map[string]seedmanagementv1alpha1.LabelValue) *seedmanagementv1alpha1.ManagedSeedSet {
		return &seedmanagementv1alpha1.ManagedSeedSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: name},
			Spec:       seedmanagementv1alpha1.ManagedSeedSetSpec{Selector: seedmanagementv1alpha1.LabelSelector{MatchLabels: matchLabels}},
		}
	}
	autoscalerOf := func(target string) *autoscalingv1alpha1.SeedAutoscaler {
		return &autoscalingv1alpha1.SeedAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: target + "-autoscaler"},
			Spec: autoscalingv1alpha1.SeedAutoscalerSpec{ScaleTargetRef: autoscalingv1alpha1.CrossVersionObjectReference{
				APIVersion: seedmanagementv1alpha1.GroupVersion.String(), Kind: "ManagedSeedSet", Name: target,
			}},
		}
	}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).
		WithObjects(
			set("soil", map[string]seedmanagementv1alpha1.LabelValue{"pool": "soil"}),
			set("clay", map[string]seedmanagementv1alpha1.LabelValue{"pool": "clay"}),
			set("unselective", nil),
			autoscalerOf("soil"), autoscalerOf("clay"), autoscalerOf("unselective"),
		).
		WithIndex(&autoscalingv1alpha1.SeedAutoscaler{}, targetIndex, func(o client.Object) []string {
			ref := o.(*autoscalingv1alpha1.SeedAutoscaler).Spec.ScaleTargetRef
			return []string{targetKey(ref.APIVersion, ref.Kind, ref.Name)}
		}).Build()
	r := &Reconciler{Client: c}
	ctx := context.Background()

	got := r.MapSeedToAutoscalers(ctx, builders.MakeSeed("soil-0").Labels("pool", "soil").Obj())
	assert.Equal(t, []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: "garden", Name: "soil-autoscaler"}}}, got,
		"the autoscaler of the set whose spec.selector picks the seed, and no set with an empty selector")

	assert.Empty(t, r.MapSeedToAutoscalers(ctx, builders.MakeSeed("tenant-seed").Obj()), "a seed of no set wakes no autoscaler")
}
