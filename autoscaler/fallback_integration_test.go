//go:build integration

package autoscaler_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// The kube-apiserver defaults behavior to today's CurrentReplicasIfHigher, and refuses a
// fallback whose replicas its behavior needs and lacks, or has and ignores, naming the
// field and the fix.
func TestFallbackBehaviorIsDefaultedAndValidated(t *testing.T) {
	f := newFixture(t, "fallback-validation")
	sa := f.createAutoscaler(1, 10, 50, nil)
	sa.Spec.Metrics[0].Fallback = &autoscalingv1alpha1.MetricFallback{FailureDurationSeconds: 60, Replicas: ptr.To[int32](3)}
	require.NoError(t, env.Client.Update(f.ctx, sa))
	assert.Equal(t, autoscalingv1alpha1.CurrentReplicasIfHigherFallback, f.get().Spec.Metrics[0].Fallback.Behavior)

	tests := []struct {
		behavior autoscalingv1alpha1.FallbackBehavior
		replicas *int32
		wantErr  string
	}{
		{autoscalingv1alpha1.StaticFallback, ptr.To[int32](0), ""},
		{autoscalingv1alpha1.StaticFallback, nil,
			"spec.metrics[].fallback.replicas is required with behavior Static: set the replicas to fall back to, e.g. replicas: 3, or use behavior CurrentReplicas to hold the current replicas"},
		{"", nil, "spec.metrics[].fallback.replicas is required with behavior CurrentReplicasIfHigher"},
		{autoscalingv1alpha1.CurrentReplicasIfLowerFallback, nil, "spec.metrics[].fallback.replicas is required with behavior CurrentReplicasIfLower"},
		{autoscalingv1alpha1.CurrentReplicasFallback, nil, ""},
		{autoscalingv1alpha1.CurrentReplicasFallback, ptr.To[int32](3),
			"spec.metrics[].fallback.replicas has no effect with behavior CurrentReplicas, which holds the current replicas: remove replicas, or use behavior Static, CurrentReplicasIfHigher or CurrentReplicasIfLower"},
		{"currentReplicas", nil, `Unsupported value: "currentReplicas"`},
	}
	for i, tt := range tests {
		name := fmt.Sprintf("behavior %q, replicas unset", tt.behavior)
		if tt.replicas != nil {
			name = fmt.Sprintf("behavior %q, replicas %d", tt.behavior, *tt.replicas)
		}
		t.Run(name, func(t *testing.T) {
			obj := sa.DeepCopy()
			obj.ObjectMeta = metav1.ObjectMeta{Name: fmt.Sprintf("fallback-%d", i), Namespace: f.ns}
			obj.Spec.Metrics[0].Fallback = &autoscalingv1alpha1.MetricFallback{FailureDurationSeconds: 60, Behavior: tt.behavior, Replicas: tt.replicas}
			err := env.Client.Create(f.ctx, obj)
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

// A Static fallback stands in for a metric that stays unavailable, a scale-in included,
// and status says since when it applies and what it proposes; once the metric is back the
// failure is forgotten.
func TestStaticFallbackScalesInWhileTheMetricIsUnavailable(t *testing.T) {
	f := newFixture(t, "fallback-static")
	set := f.createSet(3, nil)
	seed := replicaName(f.name, 0)
	f.addReplica(set, seed, 50, false) // and two replicas asked for that do not exist yet: removable
	f.metrics.setPending(f.name, 0)
	sa := f.createAutoscaler(1, 10, 50, &autoscalingv1alpha1.SeedAutoscalerBehavior{
		ScaleDown: &autoscalingv1alpha1.ScalingRules{StabilizationWindowSeconds: ptr.To[int32](0)},
	})
	sa.Spec.Metrics[0].Fallback = &autoscalingv1alpha1.MetricFallback{
		FailureDurationSeconds: 60, Behavior: autoscalingv1alpha1.StaticFallback, Replicas: ptr.To[int32](1),
	}
	require.NoError(t, env.Client.Update(f.ctx, sa))
	f.start(false)
	f.waitForTargets("50%/50%")
	assert.Equal(t, int32(3), f.specReplicas())

	// The seed's usage goes missing: within failureDurationSeconds the replicas hold.
	f.metrics.dropUsage(gardencorev1beta1.ResourceShoots, seed)
	failedAt := f.clock.Now().Add(15 * time.Second)
	f.clock.Step(15 * time.Second)
	f.waitForReason(autoscalingv1alpha1.SeedAutoscalerScalingActive, "FailedGetResourceMetric")
	failures := f.get().Status.MetricFailures
	require.Len(t, failures, 1)
	assert.Equal(t, failedAt, failures[0].Since.Time.UTC())
	assert.Nil(t, failures[0].FallbackActiveSince)
	assert.Nil(t, failures[0].FallbackReplicas)
	assert.Equal(t, int32(3), f.specReplicas())

	// Past it, the fallback's 1 replica stands in for the metric.
	f.clock.Step(time.Minute)
	activeAt := f.clock.Now()
	require.Eventually(t, func() bool { return f.specReplicas() == 1 }, timeout, tick)
	f.waitForReason(autoscalingv1alpha1.SeedAutoscalerScalingActive, "FallbackActive")
	failures = f.get().Status.MetricFailures
	require.Len(t, failures, 1)
	assert.Equal(t, "resource/shoots", failures[0].Metric)
	assert.Equal(t, failedAt, failures[0].Since.Time.UTC())
	require.NotNil(t, failures[0].FallbackActiveSince)
	assert.Equal(t, activeAt, failures[0].FallbackActiveSince.Time.UTC())
	assert.Equal(t, ptr.To[int32](1), failures[0].FallbackReplicas)
	assert.Equal(t, []string{"3 → 1: resource/shoots has been unavailable since " + failedAt.Format(time.RFC3339) + ", its fallback (Static) sets 1 replicas"},
		f.eventsOnceThere("SuccessfulRescale", 1))

	// Since when it applies stays while it does.
	f.clock.Step(time.Minute)
	f.waitForEvaluation()
	assert.Equal(t, activeAt, f.get().Status.MetricFailures[0].FallbackActiveSince.Time.UTC())

	// The metric is back: no failure, no fallback.
	f.metrics.setUsage(gardencorev1beta1.ResourceShoots, seed, 50)
	f.clock.Step(15 * time.Second)
	f.waitForReason(autoscalingv1alpha1.SeedAutoscalerScalingActive, "ValidMetricFound")
	assert.Empty(t, f.get().Status.MetricFailures)
}
