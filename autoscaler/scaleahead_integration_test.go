//go:build integration

package autoscaler_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler"
)

// createAheadAutoscaler creates the fixture's autoscaler at 70% shoots utilization with
// spec.scaleAhead set to ahead.
func (f *fixture) createAheadAutoscaler(maxR int32, ahead *autoscalingv1alpha1.ScaleAhead) {
	f.t.Helper()
	sa := f.createAutoscaler(1, maxR, 70, nil)
	sa.Spec.ScaleAhead = ahead
	require.NoError(f.t, env.Client.Update(f.ctx, sa))
}

// waitForAhead waits until status.scaleAhead shows the reason, at the fake clock's time.
func (f *fixture) waitForAhead(reason autoscalingv1alpha1.ScaleAheadReason) *autoscalingv1alpha1.ScaleAheadStatus {
	f.t.Helper()
	f.waitForEvaluation()
	f.waitForStatus("scale-ahead "+string(reason), func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		return st.ScaleAhead != nil && st.ScaleAhead.Reason == reason
	})
	return f.get().Status.ScaleAhead
}

// seedsOf100 sizes the set's new replicas as the fixture's seeds: 100 shoots, 70 at the target.
var seedsOf100 = map[string]string{seedmanagementv1alpha1.AnnotationCapacityPrefix + "shoots": "100"}

// aheadSet creates the fixture's set of two replicas with the given usage each, nothing
// pending, and the trend forecast at trend (none when negative).
func (f *fixture) aheadSet(usage, trend float64) {
	f.t.Helper()
	set := f.createSet(2, seedsOf100)
	f.addReplica(set, replicaName(f.name, 0), usage, false)
	f.addReplica(set, replicaName(f.name, 1), usage, false)
	f.metrics.setPending(f.name, 0)
	if trend >= 0 {
		f.metrics.setForecast(autoscaler.MetricDemandTrend, f.name, trend)
	}
}

func trendAhead(leadSeconds int32) *autoscalingv1alpha1.ScaleAhead {
	return &autoscalingv1alpha1.ScaleAhead{
		Forecasts:       []autoscalingv1alpha1.ForecastType{autoscalingv1alpha1.TrendForecast},
		LeadTimeSeconds: ptr.To(leadSeconds),
	}
}

// A rising trend asks for the seeds its demand needs before the reactive decision does.
func TestScaleAheadScalesOutOnARisingTrend(t *testing.T) {
	f := newFixture(t, "ahead-trend")
	// 120 shoots at 70 a seed: the reactive decision keeps 2; the trend of 350 needs 5.
	f.aheadSet(60, 350)
	f.createAheadAutoscaler(10, trendAhead(600))
	f.start(false)

	require.Eventually(t, func() bool { return f.specReplicas() == 5 }, timeout, tick)
	assert.Equal(t, []string{"2 → 5: the forecast of 350 shoots needs 5 replicas ahead of the demand, the reactive decision 2"},
		f.eventsOnceThere("ScaledOutAhead", 1))
	// Once scaled, the forecast holds the replicas the reactive decision would remove again.
	st := f.waitForAhead("HeldScaleIn")
	assert.Equal(t, int32(600), st.LeadTimeSeconds)
	assert.Equal(t, autoscalingv1alpha1.LeadTimeFromSpec, st.LeadTimeSource)
	assert.Equal(t, ptr.To[int32](5), st.ForecastReplicas)
	assert.Equal(t, "120", st.Demand.String())
	require.Len(t, st.Forecasts, 1)
	assert.Equal(t, "350", st.Forecasts[0].Demand.String())
	assert.NotEmpty(t, st.Forecasts[0].Predictions, "the forecast is kept to judge it when its time comes")
	assert.Equal(t, "lead_seconds=600,managedseedset=ahead-trend,window_seconds=600", f.metrics.lastForecastSelector())
	c := f.condition(autoscalingv1alpha1.SeedAutoscalerScaleAheadActive)
	assert.Equal(t, metav1.ConditionTrue, c.Status)
}

// A forecast that cannot be read never blocks the reactive decision; status says why.
func TestScaleAheadMissingForecastLeavesTheReactiveDecision(t *testing.T) {
	f := newFixture(t, "ahead-missing")
	f.aheadSet(90, -1)
	f.createAheadAutoscaler(10, trendAhead(600))
	f.start(false)

	// 180 shoots at 70 a seed: ceil(180 / 70) = 3.
	require.Eventually(t, func() bool { return f.specReplicas() == 3 }, timeout, tick)
	st := f.waitForAhead("ForecastMissing")
	assert.Contains(t, st.Message, "no forecast is available; the reactive decision stands")
	require.Len(t, st.Forecasts, 1)
	assert.Nil(t, st.Forecasts[0].Demand)
	assert.Contains(t, st.Forecasts[0].Message, "fetching seedscaler_managedseedset_demand_trend{lead_seconds=600,managedseedset=ahead-missing,window_seconds=600} from the external metrics API")
	assert.Nil(t, st.ForecastReplicas)
	assert.Empty(t, f.events("ScaledOutAhead"))
	assert.Len(t, f.eventsOnceThere("SuccessfulRescale", 1), 1)
}

// A forecast beyond maxReplicas scales to maxReplicas, not beyond.
func TestScaleAheadIsCappedAtMaxReplicas(t *testing.T) {
	f := newFixture(t, "ahead-capped")
	// 600 shoots need 9 seeds at 70; maxReplicas is 4.
	f.aheadSet(60, 600)
	f.createAheadAutoscaler(4, trendAhead(600))
	f.start(false)

	require.Eventually(t, func() bool { return f.specReplicas() == 4 }, timeout, tick)
	assert.Equal(t, []string{"2 → 4: the forecast of 600 shoots needs 4 replicas ahead of the demand, the reactive decision 2"},
		f.eventsOnceThere("ScaledOutAhead", 1))
	st := f.waitForAhead("HeldScaleIn")
	assert.Equal(t, ptr.To[int32](4), st.ForecastReplicas)
	for range 3 {
		f.clock.Step(15 * time.Second)
		f.waitForEvaluation()
	}
	assert.Equal(t, int32(4), f.specReplicas(), "never above maxReplicas")
}

// A forecast that misses the demand for the accuracy window switches itself off, and back
// on once it has met the demand for the window again.
func TestScaleAheadInaccurateForecastSwitchesItselfOff(t *testing.T) {
	f := newFixture(t, "ahead-inaccurate")
	// 200 for a demand of 120: 67% off, above the threshold of 50%.
	f.aheadSet(60, 200)
	ahead := trendAhead(60)
	ahead.Accuracy = &autoscalingv1alpha1.ForecastAccuracySpec{WindowSeconds: ptr.To[int32](60)}
	f.createAheadAutoscaler(10, ahead)
	f.start(false)
	step := func() {
		f.clock.Step(time.Minute)
		f.waitForEvaluation()
	}

	f.eventsOnceThere("ScaledOutAhead", 1)
	step() // the first prediction is judged off target: the streak begins
	assert.False(t, f.get().Status.ScaleAhead.Forecasts[0].Inaccurate)
	step() // off target for the window: switched off
	st := f.waitForAhead("ForecastInaccurate")
	assert.True(t, st.Forecasts[0].Inaccurate)
	assert.Nil(t, st.ForecastReplicas)
	c := f.condition(autoscalingv1alpha1.SeedAutoscalerScaleAheadActive)
	assert.Equal(t, metav1.ConditionFalse, c.Status)
	assert.Equal(t, "ForecastInaccurate", c.Reason)
	off := f.eventsOnceThere("ForecastSwitchedOff", 1)
	assert.Contains(t, off[0], "The Trend forecast is switched off: the forecast is 67% off the demand (threshold 50%)")

	f.metrics.setForecast(autoscaler.MetricDemandTrend, f.name, 120)
	step() // judges the last forecast of 200, still off target
	step() // judges 120: on target, the streak begins
	step() // on target for the window: switched on
	require.Eventually(t, func() bool {
		return f.condition(autoscalingv1alpha1.SeedAutoscalerScaleAheadActive).Status == metav1.ConditionTrue
	}, timeout, tick)
	assert.False(t, f.get().Status.ScaleAhead.Forecasts[0].Inaccurate)
	assert.Len(t, f.eventsOnceThere("ForecastSwitchedOn", 1), 1)
	assert.Len(t, f.events("ForecastSwitchedOff"), 1, "one event per switch")
}
