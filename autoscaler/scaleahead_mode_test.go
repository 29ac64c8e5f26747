package autoscaler

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	emv1beta1 "k8s.io/metrics/pkg/apis/external_metrics/v1beta1"
	externalmetrics "k8s.io/metrics/pkg/client/external_metrics"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler/forecast"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
)

// staticForecast is an external metrics API that serves every forecast at one value, or
// fails when err is set.
type staticForecast struct {
	value float64
	at    time.Time
	err   error
}

func (s staticForecast) NamespacedMetrics(string) externalmetrics.MetricsInterface { return s }

func (s staticForecast) List(metric string, _ labels.Selector) (*emv1beta1.ExternalMetricValueList, error) {
	if s.err != nil {
		return nil, s.err
	}
	return &emv1beta1.ExternalMetricValueList{Items: []emv1beta1.ExternalMetricValue{{
		MetricName: metric, Timestamp: metav1.NewTime(s.at), Value: *resource.NewMilliQuantity(int64(s.value*1000), resource.DecimalSI),
	}}}, nil
}

// reactiveInput is a set of current replicas with one ready seed of 100 shoots per
// replica, each holding usage shoots, at a 70% target.
func reactiveInput(now time.Time, current int32, usage float64) recommend.Input {
	target := recommend.Target{UtilizationPercent: 70}
	var seeds []recommend.Seed
	for i := range current {
		seeds = append(seeds, recommend.Seed{Name: fmt.Sprintf("s-%d", i), Ready: true, Allocatable: 100, Usage: usage, HasUsage: true})
	}
	return recommend.Input{
		Now: now, CurrentReplicas: current, MinReplicas: 1, MaxReplicas: 20,
		Behavior:          recommend.BehaviorFromSpec(nil),
		Metrics:           []recommend.Metric{{Key: "resource/shoots", Resource: "shoots", Target: target, Seeds: seeds}},
		Demand:            recommend.Demand{Seeds: seeds, PendingKnown: true, Target: target, AllocatablePerSeed: 100},
		RemovableReplicas: current,
	}
}

// withoutScaleDownWindow lets in scale in at once.
func withoutScaleDownWindow(in recommend.Input) recommend.Input {
	in.Behavior.ScaleDown.StabilizationWindow = 0
	return in
}

// In ForecastOnly mode the decision is the reactive one, exactly, whatever the forecast
// says; status shows what the forecast asked for and what ForecastAndScale would have done.
func TestForecastOnlyDecidesAsWithoutScaleAhead(t *testing.T) {
	now := ahead0
	cases := []struct {
		name     string
		in       recommend.Input
		forecast staticForecast
		// inaccurate switches the forecast off for missing the demand.
		inaccurate bool
		// wantReactive and wantAhead are the replicas without scale-ahead (and in
		// ForecastOnly mode) and in ForecastAndScale mode.
		wantReactive, wantAhead int32
		wantOutcome             forecast.Reason
	}{
		{name: "a rising trend scales out ahead", in: reactiveInput(now, 2, 60), forecast: staticForecast{value: 350, at: now},
			wantReactive: 2, wantAhead: 5, wantOutcome: forecast.ReasonScaledOutAhead},
		{name: "a forecast holds a scale-in", in: withoutScaleDownWindow(reactiveInput(now, 5, 20)), forecast: staticForecast{value: 280, at: now},
			wantReactive: 2, wantAhead: 4, wantOutcome: forecast.ReasonHeldScaleIn},
		{name: "the reactive decision is larger", in: reactiveInput(now, 2, 90), forecast: staticForecast{value: 100, at: now},
			wantReactive: 3, wantAhead: 3, wantOutcome: forecast.ReasonReactiveWins},
		{name: "a forecast that cannot be read", in: reactiveInput(now, 2, 90), forecast: staticForecast{err: errors.New("no such metric")},
			wantReactive: 3, wantAhead: 3, wantOutcome: forecast.ReasonMissing},
		{name: "an absurd forecast", in: reactiveInput(now, 2, 60), forecast: staticForecast{value: 100000, at: now},
			wantReactive: 2, wantAhead: 2, wantOutcome: forecast.ReasonAbsurd},
		{name: "a forecast switched off for missing the demand", in: reactiveInput(now, 2, 60), forecast: staticForecast{value: 350, at: now}, inaccurate: true,
			wantReactive: 2, wantAhead: 2, wantOutcome: forecast.ReasonInaccurate},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reactive := recommend.Decide(c.in)
			require.Equal(t, c.wantReactive, reactive.DesiredReplicas, reactive.Reason)

			decide := func(mode autoscalingv1alpha1.ScaleAheadMode) (ahead, *autoscalingv1alpha1.SeedAutoscaler) {
				sa := &autoscalingv1alpha1.SeedAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "demo"}}
				sa.Spec.ScaleAhead = aheadInMode(mode)
				if c.inaccurate {
					sa.Status.ScaleAhead = &autoscalingv1alpha1.ScaleAheadStatus{Forecasts: []autoscalingv1alpha1.ForecastStatus{{Type: autoscalingv1alpha1.TrendForecast, Inaccurate: true}}}
				}
				r := &Reconciler{ExternalMetrics: c.forecast, Clock: clocktesting.NewFakePassiveClock(now), MetricMaxAge: time.Minute, SyncPeriod: 15 * time.Second}
				obs := &observation{set: &seedmanagementv1alpha1.ManagedSeedSet{}}
				return r.scaleAhead(t.Context(), sa, obs, c.in, reactive), sa
			}
			acting, actingSA := decide(autoscalingv1alpha1.ForecastAndScale)
			assert.Equal(t, c.wantAhead, acting.decision.DesiredReplicas, "ForecastAndScale acts on the forecast")
			assert.Equal(t, autoscalingv1alpha1.ScaleAheadReason(c.wantOutcome), actingSA.Status.ScaleAhead.Reason)

			watching, sa := decide(autoscalingv1alpha1.ForecastOnly)
			assert.Equal(t, reactive, watching.decision, "ForecastOnly leaves the reactive decision exactly as it is")
			assert.False(t, watching.scaledOutAhead)

			st := sa.Status.ScaleAhead
			assert.Equal(t, autoscalingv1alpha1.ForecastOnly, st.Mode)
			assert.Equal(t, autoscalingv1alpha1.ScaleAheadReason(ReasonForecastOnly), st.Reason)
			assert.Equal(t, actingSA.Status.ScaleAhead.ForecastReplicas, st.ForecastReplicas, "what the forecast asked for, as if acted upon")
			assert.Contains(t, st.Message, fmt.Sprintf("forecast only, not acted upon: %s, ", c.wantOutcome))
			assert.Contains(t, st.Message, fmt.Sprintf("with mode ForecastAndScale the target would have %d replicas", c.wantAhead))
			assert.Equal(t, actingSA.Status.ScaleAhead.Recommendations, st.Recommendations, "the forecast's own windows go on as if it acted")
			active := meta.FindStatusCondition(sa.Status.Conditions, autoscalingv1alpha1.SeedAutoscalerScaleAheadActive)
			require.NotNil(t, active)
			assert.Equal(t, metav1.ConditionFalse, active.Status)
			assert.Equal(t, string(ReasonForecastOnly), active.Reason)
			assert.Contains(t, active.Message, "set mode to ForecastAndScale to scale ahead on them")
		})
	}
}

func aheadInMode(mode autoscalingv1alpha1.ScaleAheadMode) *autoscalingv1alpha1.ScaleAhead {
	return &autoscalingv1alpha1.ScaleAhead{
		Forecasts: []autoscalingv1alpha1.ForecastType{autoscalingv1alpha1.TrendForecast}, Mode: mode, LeadTimeSeconds: ptr.To[int32](600),
	}
}

func TestModeOf(t *testing.T) {
	assert.Equal(t, autoscalingv1alpha1.ForecastAndScale, modeOf(&autoscalingv1alpha1.ScaleAhead{}), "unset keeps what scaling ahead did before it had a mode")
	assert.Equal(t, autoscalingv1alpha1.ForecastOnly, modeOf(&autoscalingv1alpha1.ScaleAhead{Mode: autoscalingv1alpha1.ForecastOnly}))
	assert.Equal(t, autoscalingv1alpha1.ForecastAndScale, modeOf(&autoscalingv1alpha1.ScaleAhead{Mode: autoscalingv1alpha1.ForecastAndScale}))
}

func TestAct(t *testing.T) {
	reactive := recommend.Decision{DesiredReplicas: 3, Reason: "resource/shoots is 90% of target 70%"}
	cases := []struct {
		name          string
		mode          autoscalingv1alpha1.ScaleAheadMode
		res           forecast.Result
		wantDesired   int32
		wantReason    string
		wantScaledOut bool
	}{
		{"scale-out ahead", autoscalingv1alpha1.ForecastAndScale, forecast.Result{Desired: 5, Reason: forecast.ReasonScaledOutAhead, Message: "ahead"}, 5, "ahead", true},
		{"held scale-in", autoscalingv1alpha1.ForecastAndScale, forecast.Result{Desired: 4, Reason: forecast.ReasonHeldScaleIn, Message: "held"}, 4, "held", false},
		{"reactive wins", autoscalingv1alpha1.ForecastAndScale, forecast.Result{Desired: 3, Reason: forecast.ReasonReactiveWins, Message: "reactive"}, 3, reactive.Reason, false},
		{"forecast only: no scale-out", autoscalingv1alpha1.ForecastOnly, forecast.Result{Desired: 5, Reason: forecast.ReasonScaledOutAhead, Message: "ahead"}, 3, reactive.Reason, false},
		{"forecast only: no held scale-in", autoscalingv1alpha1.ForecastOnly, forecast.Result{Desired: 4, Reason: forecast.ReasonHeldScaleIn, Message: "held"}, 3, reactive.Reason, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := act(c.mode, reactive, c.res)
			assert.Equal(t, c.wantDesired, got.decision.DesiredReplicas)
			assert.Equal(t, c.wantReason, got.decision.Reason)
			assert.Equal(t, c.wantScaledOut, got.scaledOutAhead)
		})
	}
}

// Each judged prediction's error counts in the mean over the accuracy window, and what lies
// before the window is forgotten.
func TestJudgeKeepsTheMeanError(t *testing.T) {
	lead := 10 * time.Minute
	a := forecast.Accuracy{Threshold: 0.5, Window: time.Hour, Floor: 70}
	fs := autoscalingv1alpha1.ForecastStatus{Type: autoscalingv1alpha1.TrendForecast}
	fs.Predictions = recordPrediction(fs.Predictions, ahead0, lead, forecast.Value{Demand: 200, Known: true})
	fs.Predictions = recordPrediction(fs.Predictions, ahead0.Add(time.Minute), lead, forecast.Value{Demand: 150, Known: true})

	fs, _ = judge(fs, a, ahead0.Add(lead), 100)
	assert.Equal(t, ptr.To[int32](100), fs.MeanAbsolutePercentageError, "200 for 100")
	assert.Equal(t, int32(1), fs.JudgedPredictions)
	require.NotNil(t, fs.LastJudged)
	assert.Equal(t, "200", fs.LastJudged.Demand.String())
	assert.Equal(t, ahead0.Add(lead), fs.LastJudged.Time.Time)

	fs, _ = judge(fs, a, ahead0.Add(lead+time.Minute), 100)
	assert.Equal(t, ptr.To[int32](75), fs.MeanAbsolutePercentageError, "and 150 for 100")
	assert.Equal(t, int32(2), fs.JudgedPredictions)
	assert.Equal(t, "150", fs.LastJudged.Demand.String())

	fs, msg := judge(fs, a, ahead0.Add(lead+2*time.Minute), 100)
	assert.Empty(t, msg, "nothing due")
	assert.Equal(t, ptr.To[int32](75), fs.MeanAbsolutePercentageError, "the mean holds between judgements")
	assert.NotNil(t, fs.LastJudged)

	fs, _ = judge(fs, a, ahead0.Add(lead+2*time.Hour), 100)
	assert.Nil(t, fs.MeanAbsolutePercentageError, "nothing judged within the window")
	assert.Zero(t, fs.JudgedPredictions)
	assert.Empty(t, fs.Errors)
	assert.Nil(t, fs.LastJudged)

	fs.Predictions = recordPrediction(nil, ahead0, lead, forecast.Value{Demand: 200, Known: true})
	fs, _ = judge(fs, a, ahead0.Add(lead), math.NaN())
	assert.Nil(t, fs.MeanAbsolutePercentageError, "a demand that is not known judges nothing")
}

// A replica serves the scale-ahead series of the SeedAutoscalers it evaluated within their
// ttl, the known values only, and none of one it forgot.
func TestAheadSeriesLiveForTheirTTL(t *testing.T) {
	now := ahead0
	reg := prometheus.NewPedanticRegistry()
	i, err := NewInstruments(reg)
	require.NoError(t, err)
	aheadGauges := []*objectGauge{i.forecastReplicas, i.demand, i.forecastDemand, i.forecastError}
	for _, g := range aheadGauges {
		g.now = func() time.Time { return now }
	}
	count := func(names ...string) int {
		n := 0
		for _, g := range aheadGauges {
			n += testutil.CollectAndCount(g, names...)
		}
		return n
	}
	demo := types.NamespacedName{Namespace: "garden", Name: "demo"}
	other := types.NamespacedName{Namespace: "garden", Name: "other"}

	i.scaleAhead(demo, aheadSample{forecastReplicas: 5, demand: 120, forecasts: []forecastSample{
		{forecast: "Trend", predicted: 130, errorRatio: 0.08},
		{forecast: "Seasonal", predicted: math.NaN(), errorRatio: math.NaN()},
	}}, time.Minute)
	i.scaleAhead(other, aheadSample{forecastReplicas: math.NaN(), demand: math.NaN()}, 2*time.Minute)
	want := `
# HELP seedscaler_autoscaler_demand_shoots Demand of a SeedAutoscaler's target at its last evaluation, the forecasts are judged against: shoots on its seeds plus pending (status.scaleAhead.demand).
# TYPE seedscaler_autoscaler_demand_shoots gauge
seedscaler_autoscaler_demand_shoots{name="demo",namespace="garden"} 120
# HELP seedscaler_autoscaler_forecast_demand_shoots Demand a forecast predicted a lead time ago for the time of its last judgement (status.scaleAhead.forecasts[].lastJudged).
# TYPE seedscaler_autoscaler_forecast_demand_shoots gauge
seedscaler_autoscaler_forecast_demand_shoots{forecast="Trend",name="demo",namespace="garden"} 130
# HELP seedscaler_autoscaler_forecast_error_ratio Mean absolute percentage error of a forecast over its accuracy window, as a ratio: 0.12 is 12% (status.scaleAhead.forecasts[].meanAbsolutePercentageError).
# TYPE seedscaler_autoscaler_forecast_error_ratio gauge
seedscaler_autoscaler_forecast_error_ratio{forecast="Trend",name="demo",namespace="garden"} 0.08
# HELP seedscaler_autoscaler_forecast_replicas Replicas the forecasts of a SeedAutoscaler's spec.scaleAhead asked for at its last evaluation (status.scaleAhead.forecastReplicas), acted upon or not (mode ForecastOnly); absent while no forecast could be used.
# TYPE seedscaler_autoscaler_forecast_replicas gauge
seedscaler_autoscaler_forecast_replicas{name="demo",namespace="garden"} 5
`
	assert.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want),
		"seedscaler_autoscaler_demand_shoots", "seedscaler_autoscaler_forecast_demand_shoots",
		"seedscaler_autoscaler_forecast_error_ratio", "seedscaler_autoscaler_forecast_replicas"))

	now = now.Add(time.Minute)
	assert.Zero(t, count(), "demo expired; other has no known value")
	i.scaleAhead(demo, aheadSample{forecastReplicas: 6, demand: math.NaN()}, time.Minute)
	assert.Equal(t, 1, count("seedscaler_autoscaler_forecast_replicas"))
	i.forgetScaleAhead(demo)
	assert.Zero(t, count())
}
