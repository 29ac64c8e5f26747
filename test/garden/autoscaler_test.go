//go:build integration

package garden

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

// A SeedAutoscaler, served from its CRD beside gardener-apiserver, scales Gardener's own
// ManagedSeedSet through gardener-apiserver's /scale: below its minReplicas it raises the set
// to them, gardener-controller-manager creates the replicas and the simulated gardenlets
// register their seeds; the autoscaler finds them through the Scale's selector, which
// gardener-apiserver computes from the set's spec.selector.
func TestSeedAutoscalerScalesGardenersManagedSeedSet(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	g := startGardenWithSet(t, ctx)
	startPart(t, g, "autoscaler", "--sync-period=5s")
	waitForReplicas(t, ctx, g.Client, "set-0")

	sa := &autoscalingv1alpha1.SeedAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: setNamespace, Name: setName},
		Spec: autoscalingv1alpha1.SeedAutoscalerSpec{
			ScaleTargetRef: autoscalingv1alpha1.CrossVersionObjectReference{
				APIVersion: seedmanagementv1alpha1.GroupVersion.String(), Kind: "ManagedSeedSet", Name: setName,
			},
			MinReplicas: ptr.To[int32](3),
			MaxReplicas: 5,
			Metrics: []autoscalingv1alpha1.MetricSpec{{
				Type: autoscalingv1alpha1.ResourceMetricSourceType,
				Resource: &autoscalingv1alpha1.ResourceMetricSource{
					Name:   "shoots",
					Target: autoscalingv1alpha1.MetricTarget{Type: autoscalingv1alpha1.UtilizationMetricType, AverageUtilization: ptr.To[int32](70)},
				},
			}},
		},
	}
	require.NoError(t, g.Client.Create(ctx, sa))

	err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		mss := &unstructured.Unstructured{}
		mss.SetGroupVersionKind(setGVK)
		if err := g.Client.Get(ctx, client.ObjectKey{Namespace: setNamespace, Name: setName}, mss); err != nil {
			return false, err
		}
		replicas, _, _ := unstructured.NestedInt64(mss.Object, "spec", "replicas")
		return replicas == 3, nil
	})
	require.NoError(t, err, "the SeedAutoscaler never raised Gardener's ManagedSeedSet to its minReplicas")
	waitForReplicas(t, ctx, g.Client, "set-0", "set-1", "set-2")
}
