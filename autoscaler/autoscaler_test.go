//go:build integration

package autoscaler_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

const (
	timeout = 30 * time.Second
	tick    = 50 * time.Millisecond
)

func ctrlConfig() config.Controller { return config.Controller{SkipNameValidation: ptr.To(true)} }

// events returns the notes of the events with the given reason on the fixture's autoscaler.
func (f *fixture) events(reason string) []string {
	list := &eventsv1.EventList{}
	require.NoError(f.t, env.Client.List(f.ctx, list, client.InNamespace(f.ns)))
	var notes []string
	for _, e := range list.Items {
		if e.Reason == reason && e.Regarding.Name == f.name {
			notes = append(notes, e.Note)
		}
	}
	return notes
}

func (f *fixture) condition(typ string) metav1.Condition {
	c := meta.FindStatusCondition(f.get().Status.Conditions, typ)
	if c == nil {
		return metav1.Condition{}
	}
	return *c
}

func TestScalesOutThroughScaleSubresource(t *testing.T) {
	f := newFixture(t, "scale-out")
	set := f.createSet(2, nil)
	f.addReplica(set, "scale-out-0", 90, false)
	f.addReplica(set, "scale-out-1", 90, false)
	f.metrics.setPending(f.name, 0)
	f.createAutoscaler(1, 10, 50, nil)
	f.start(false)

	// 90% against 50% over two seeds: ceil(2 × 1.8) = 4.
	require.Eventually(t, func() bool { return f.specReplicas() == 4 }, timeout, tick)
	require.Eventually(t, func() bool { return len(f.events("SuccessfulRescale")) > 0 }, timeout, tick)
	assert.Equal(t, []string{"2 → 4: resource/shoots is 90% of target 50%"}, f.events("SuccessfulRescale"))

	require.Eventually(t, func() bool { return f.get().Status.CurrentReplicas == 4 }, timeout, tick)
	sa := f.get()
	assert.Equal(t, int32(4), sa.Status.DesiredReplicas)
	assert.Equal(t, "90%/50%", sa.Status.Targets)
	require.NotNil(t, sa.Status.LastScaleTime)
	assert.Equal(t, f.clock.Now().UTC(), sa.Status.LastScaleTime.UTC())
	require.Len(t, sa.Status.ScaleEvents, 1)
	assert.Equal(t, int32(2), sa.Status.ScaleEvents[0].ReplicaChange)
	require.Len(t, sa.Status.CurrentMetrics, 1)
	assert.Equal(t, int32(90), *sa.Status.CurrentMetrics[0].Resource.Current.AverageUtilization)
	assert.Equal(t, metav1.ConditionTrue, f.condition(autoscalingv1alpha1.SeedAutoscalerScalingActive).Status)
	assert.Equal(t, metav1.ConditionTrue, f.condition(autoscalingv1alpha1.SeedAutoscalerAbleToScale).Status)
	assert.Equal(t, metav1.ConditionFalse, f.condition(autoscalingv1alpha1.SeedAutoscalerScalingLimited).Status)

	// Prometheus goes away: no scale-in, ScalingActive False, a Warning.
	f.metrics.setUsage(gardencorev1beta1.ResourceShoots, "scale-out-0", 0)
	f.metrics.setUsage(gardencorev1beta1.ResourceShoots, "scale-out-1", 0)
	f.metrics.setDown(true)
	require.Eventually(t, func() bool {
		c := f.condition(autoscalingv1alpha1.SeedAutoscalerScalingActive)
		return c.Status == metav1.ConditionFalse && c.Reason == "FailedGetResourceMetric"
	}, timeout, tick)
	require.Eventually(t, func() bool { return len(f.events("MetricsUnavailable")) > 0 }, timeout, tick)
	assert.Equal(t, int32(4), f.specReplicas())
	assert.Equal(t, "<unknown>/50%", f.get().Status.Targets)
	require.Len(t, f.get().Status.MetricFailures, 1)
	assert.Equal(t, "resource/shoots", f.get().Status.MetricFailures[0].Metric)
}

func TestRestartDecidesTheSameFromStatus(t *testing.T) {
	f := newFixture(t, "restart")
	set := f.createSet(2, nil)
	f.addReplica(set, "restart-0", 100, false)
	f.addReplica(set, "restart-1", 100, false)
	f.metrics.setPending(f.name, 0)
	f.createAutoscaler(1, 50, 10, nil)

	stop := f.start(false)
	// 100% against 10% wants 20; the default policies allow max(2 + 4, 2 × 2) = 6 per 15 s.
	require.Eventually(t, func() bool { return f.specReplicas() == 6 }, timeout, tick)
	require.Eventually(t, func() bool {
		return f.condition(autoscalingv1alpha1.SeedAutoscalerScalingLimited).Reason == "ScaleUpLimit"
	}, timeout, tick)
	stop()

	// A new instance, 5 s later: the scale event in status still holds the policy period.
	f.clock.Step(5 * time.Second)
	f.start(false)
	require.Eventually(t, func() bool {
		recs := f.get().Status.Recommendations
		return len(recs) > 0 && recs[len(recs)-1].Timestamp.Time.Equal(f.clock.Now())
	}, timeout, tick)
	assert.Equal(t, int32(6), f.specReplicas(), "a restart must not forget the scale-up it just made")

	// Once the period has passed: 6 + 100% = 12.
	f.clock.Step(15 * time.Second)
	require.Eventually(t, func() bool { return f.specReplicas() == 12 }, timeout, tick)
	notes := f.events("SuccessfulRescale")
	assert.ElementsMatch(t, []string{
		"2 → 6: resource/shoots is 100% of target 10%",
		"6 → 12: resource/shoots is 100% of target 10%",
	}, notes)
}

func TestScaleInLimitedByRemovableSeeds(t *testing.T) {
	f := newFixture(t, "scale-in")
	set := f.createSet(3, nil)
	f.addReplica(set, "scale-in-0", 0, true)
	f.addReplica(set, "scale-in-1", 0, true)
	f.addReplica(set, "scale-in-2", 0, false)
	f.metrics.setPending(f.name, 0)
	f.createAutoscaler(1, 10, 50, &autoscalingv1alpha1.SeedAutoscalerBehavior{
		ScaleDown: &autoscalingv1alpha1.ScalingRules{StabilizationWindowSeconds: ptr.To[int32](0)},
	})
	f.start(false)

	// Empty seeds want 1 replica (minReplicas), but two are protected: only one goes.
	require.Eventually(t, func() bool { return f.specReplicas() == 2 }, timeout, tick)
	// The first decision (from 3) is held at 2 too; the next one, from 2, knows the one
	// removable seed is already on its way out (no set controller runs here to remove it).
	const held = "scaling in to 1 replicas needs 1 seeds removed, but only 0 can be removed (empty and not protected from deletion); holding at 2"
	require.Eventually(t, func() bool {
		c := f.condition(autoscalingv1alpha1.SeedAutoscalerScalingLimited)
		return c.Reason == "TooFewRemovableSeeds" && c.Message == held
	}, timeout, tick, "the one removable seed is already on its way out")
	c := f.condition(autoscalingv1alpha1.SeedAutoscalerScalingLimited)
	assert.Equal(t, metav1.ConditionTrue, c.Status)
	assert.Equal(t, int32(2), f.specReplicas(), "protected seeds are never asked for")
	assert.Equal(t, []string{"3 → 2: resource/shoots is 0% of target 50%"}, f.events("SuccessfulRescale"))
}

func TestScaleFromZeroOnPendingDemandAndDryRun(t *testing.T) {
	f := newFixture(t, "from-zero")
	f.createSet(0, map[string]string{seedmanagementv1alpha1.AnnotationCapacityPrefix + "shoots": "40"})
	f.metrics.setPending(f.name, 50)
	f.createAutoscaler(0, 10, 50, nil)

	// Dry run first: recorded, not scaled.
	stop := f.start(true)
	require.Eventually(t, func() bool { return f.get().Status.DesiredReplicas == 3 }, timeout, tick)
	require.Eventually(t, func() bool { return len(f.events("DryRunRescale")) > 0 }, timeout, tick)
	assert.True(t, strings.HasPrefix(f.events("DryRunRescale")[0], "Dry run, not scaled: 0 → 3: 50 pending shoots fit no seed of the target and need 3 new replicas"), f.events("DryRunRescale")[0])
	assert.Equal(t, "DryRun", f.condition(autoscalingv1alpha1.SeedAutoscalerAbleToScale).Reason)
	assert.Equal(t, int32(0), f.specReplicas())
	stop()

	// For real: ceil(50 / (40 × 50%)) = 3 from the capacity annotation.
	f.start(false)
	require.Eventually(t, func() bool { return f.specReplicas() == 3 }, timeout, tick)
}
