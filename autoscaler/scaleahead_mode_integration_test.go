//go:build integration

package autoscaler_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/autoscaler"
)

// The kube-apiserver defaults spec.scaleAhead.mode to ForecastAndScale, what scaling ahead
// did before it had a mode, and refuses any other value naming the field.
func TestScaleAheadModeIsDefaultedAndValidated(t *testing.T) {
	f := newFixture(t, "ahead-mode-validation")
	// Dry runs: no SeedAutoscaler without a target stays behind for later tests' controllers.
	create := func(mode autoscalingv1alpha1.ScaleAheadMode) (*autoscalingv1alpha1.SeedAutoscaler, error) {
		sa := &autoscalingv1alpha1.SeedAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Name: f.name, Namespace: f.ns},
			Spec: autoscalingv1alpha1.SeedAutoscalerSpec{
				ScaleTargetRef: autoscalingv1alpha1.CrossVersionObjectReference{APIVersion: "seedmanagement.gardener.cloud/v1alpha1", Kind: "ManagedSeedSet", Name: f.name},
				MaxReplicas:    10,
				Metrics: []autoscalingv1alpha1.MetricSpec{{Type: autoscalingv1alpha1.ResourceMetricSourceType, Resource: &autoscalingv1alpha1.ResourceMetricSource{
					Name: "shoots", Target: autoscalingv1alpha1.MetricTarget{Type: autoscalingv1alpha1.UtilizationMetricType, AverageUtilization: ptr.To[int32](70)},
				}}},
				ScaleAhead: trendAhead(600),
			},
		}
		sa.Spec.ScaleAhead.Mode = mode
		return sa, env.Client.Create(f.ctx, sa, client.DryRunAll)
	}
	sa, err := create("")
	require.NoError(t, err)
	assert.Equal(t, autoscalingv1alpha1.ForecastAndScale, sa.Spec.ScaleAhead.Mode)
	sa, err = create(autoscalingv1alpha1.ForecastOnly)
	require.NoError(t, err)
	assert.Equal(t, autoscalingv1alpha1.ForecastOnly, sa.Spec.ScaleAhead.Mode)

	for _, mode := range []autoscalingv1alpha1.ScaleAheadMode{"forecastOnly", "Forecast"} {
		t.Run(string(mode), func(t *testing.T) {
			_, err := create(mode)
			require.Error(t, err)
			assert.Contains(t, err.Error(), fmt.Sprintf(`spec.scaleAhead.mode: Unsupported value: %q: supported values: "ForecastOnly", "ForecastAndScale"`, mode))
		})
	}
}

// deleteAutoscalerAtEnd deletes the fixture's SeedAutoscaler when the test ends: left
// behind, a scaling-ahead one would ask later tests' metrics for its forecasts.
func (f *fixture) deleteAutoscalerAtEnd() {
	f.t.Cleanup(func() {
		sa := &autoscalingv1alpha1.SeedAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: f.name}}
		assert.NoError(f.t, client.IgnoreNotFound(env.Client.Delete(context.Background(), sa)))
	})
}

// decisions is what an autoscaler decided and did: everything a ForecastOnly autoscaler
// must share with a reactive one on the same inputs.
type decisions struct {
	SpecReplicas, CurrentReplicas, DesiredReplicas int32
	LastScaleTime                                  *metav1.Time
	Targets                                        string
	Recommendations                                []autoscalingv1alpha1.TimestampedRecommendation
	ScaleEvents                                    []autoscalingv1alpha1.ScaleEvent
	// Conditions but ScaleAheadActive, which only an autoscaler with scaleAhead has.
	Conditions []metav1.Condition
	Rescales   []string
}

func (f *fixture) decisions() decisions {
	f.t.Helper()
	st := f.get().Status
	var conditions []metav1.Condition
	for _, c := range st.Conditions {
		if c.Type != autoscalingv1alpha1.SeedAutoscalerScaleAheadActive {
			c.ObservedGeneration = 0 // the ForecastOnly autoscaler's spec was updated once more
			conditions = append(conditions, c)
		}
	}
	rescales := f.events("SuccessfulRescale")
	slices.Sort(rescales)
	return decisions{
		SpecReplicas: f.specReplicas(), CurrentReplicas: st.CurrentReplicas, DesiredReplicas: st.DesiredReplicas,
		LastScaleTime: st.LastScaleTime, Targets: st.Targets, Recommendations: st.Recommendations, ScaleEvents: st.ScaleEvents,
		Conditions: conditions, Rescales: rescales,
	}
}

// assertSameDecisions waits until both autoscalers have evaluated at their clocks' time
// and decided the same, and fails with the difference when they never do.
func assertSameDecisions(t *testing.T, watching, reactive *fixture, when string) {
	t.Helper()
	watching.waitForEvaluation()
	reactive.waitForEvaluation()
	var a, b decisions
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(tick) {
		if a, b = watching.decisions(), reactive.decisions(); assert.ObjectsAreEqual(a, b) {
			return
		}
	}
	assert.Equal(t, b, a, "%s: the ForecastOnly autoscaler decided otherwise than the reactive one", when)
}

// A ForecastOnly autoscaler computes, judges and shows its forecasts but scales its target
// exactly as an autoscaler without scaleAhead does on the same inputs, through a rising
// trend that ForecastAndScale would scale out ahead on, a reactive scale-out, and a fall
// of the demand whose scale-in ForecastAndScale would hold.
func TestForecastOnlyScalesAsAReactiveAutoscaler(t *testing.T) {
	watching, reactive := newFixture(t, "shadow-forecast-only"), newFixture(t, "shadow-reactive")
	// One controller evaluates both (a controller reconciles every SeedAutoscaler), on one
	// clock and one metrics API, where each has its own set, seeds and forecast.
	reactive.clock, reactive.metrics = watching.clock, watching.metrics
	fixtures := []*fixture{watching, reactive}
	// 120 shoots at 70 a seed: the reactive decision keeps 2; the trend of 350 needs 5.
	for _, f := range fixtures {
		f.aheadSet(60, 350)
	}
	ahead := trendAhead(60)
	ahead.Mode = autoscalingv1alpha1.ForecastOnly
	watching.createAheadAutoscaler(10, ahead)
	reactive.createAutoscaler(1, 10, 70, nil)
	for _, f := range fixtures {
		f.deleteAutoscalerAtEnd()
	}
	// Each evaluates once at the start and once per step, when touched, never on a timer:
	// both see exactly the same inputs at exactly the same times.
	watching.startWith(func(_ manager.Manager, r *autoscaler.Reconciler) { r.SyncPeriod = time.Hour })
	steps := 0
	step := func(usage float64) {
		steps++
		for _, f := range fixtures {
			for ordinal := range 2 {
				f.metrics.setUsage(gardencorev1beta1.ResourceShoots, replicaName(f.name, ordinal), usage)
			}
		}
		watching.clock.Step(time.Minute)
		for _, f := range fixtures {
			f.touch(strconv.Itoa(steps))
		}
	}

	assertSameDecisions(t, watching, reactive, "a rising trend")
	assert.Equal(t, int32(2), watching.specReplicas())
	st := watching.waitForAhead("ForecastOnly")
	assert.Equal(t, autoscalingv1alpha1.ForecastOnly, st.Mode)
	assert.Equal(t, ptr.To[int32](5), st.ForecastReplicas, "what the forecast asked for")
	assert.Contains(t, st.Message, "forecast only, not acted upon: ScaledOutAhead, the forecast of 350 shoots needs 5 replicas ahead of the demand, the reactive decision 2; "+
		"with mode ForecastAndScale the target would have 5 replicas (lead time 1m0s, Spec)")
	assert.Equal(t, "ForecastOnly", watching.printedColumn("Ahead"))
	c := watching.condition(autoscalingv1alpha1.SeedAutoscalerScaleAheadActive)
	assert.Equal(t, metav1.ConditionFalse, c.Status)
	assert.Equal(t, "ForecastOnly", c.Reason)

	// A minute on, the prediction of 350 for 120 comes due: 192% off.
	step(60)
	assertSameDecisions(t, watching, reactive, "the first prediction judged")
	watching.waitForStatus("a judged prediction", func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		return len(st.ScaleAhead.Forecasts) == 1 && st.ScaleAhead.Forecasts[0].MeanAbsolutePercentageError != nil
	})
	fs := watching.get().Status.ScaleAhead.Forecasts[0]
	assert.Equal(t, ptr.To[int32](192), fs.MeanAbsolutePercentageError)
	assert.Equal(t, int32(1), fs.JudgedPredictions)
	require.NotNil(t, fs.LastJudged)
	assert.Equal(t, "350", fs.LastJudged.Demand.String())

	// 180 shoots need 3 seeds: both scale out, reactively.
	step(90)
	assertSameDecisions(t, watching, reactive, "a reactive scale-out")
	assert.Equal(t, int32(3), watching.specReplicas())
	fs = watching.get().Status.ScaleAhead.Forecasts[0]
	assert.Equal(t, ptr.To[int32](143), fs.MeanAbsolutePercentageError, "192% and 94% (350 for 180)")

	// 40 shoots: past the scale-down window the reactive decision scales in; the forecast
	// of 350 would keep 5 replicas.
	for range 6 {
		step(20)
		assertSameDecisions(t, watching, reactive, "a fall of the demand")
	}
	assert.Less(t, watching.specReplicas(), int32(3), "the scale-in went ahead")
	st = watching.get().Status.ScaleAhead
	assert.Equal(t, "40", st.Demand.String())
	assert.Contains(t, st.Message, "with mode ForecastAndScale the target would have 5 replicas")
	assert.Empty(t, watching.events("ScaledOutAhead"))
}
