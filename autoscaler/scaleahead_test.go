package autoscaler

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler/forecast"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

var ahead0 = time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)

func provisioned(name string, secs int32, readyAfter time.Duration) autoscalingv1alpha1.ProvisioningTime {
	return autoscalingv1alpha1.ProvisioningTime{ManagedSeed: name, Seconds: secs, ReadyTime: metav1.NewTime(ahead0.Add(readyAfter))}
}

func TestLeadTime(t *testing.T) {
	cases := []struct {
		name     string
		spec     *int32
		measured []autoscalingv1alpha1.ProvisioningTime
		want     time.Duration
		source   autoscalingv1alpha1.LeadTimeSource
	}{
		{"nothing measured: the default", nil, nil, 900 * time.Second, autoscalingv1alpha1.LeadTimeDefault},
		{"the largest measured", nil, []autoscalingv1alpha1.ProvisioningTime{provisioned("a", 600, 0), provisioned("b", 1260, time.Minute), provisioned("c", 700, 2*time.Minute)},
			1260 * time.Second, autoscalingv1alpha1.LeadTimeMeasured},
		{"the spec wins over a measurement", ptr.To[int32](300), []autoscalingv1alpha1.ProvisioningTime{provisioned("a", 1200, 0)},
			300 * time.Second, autoscalingv1alpha1.LeadTimeFromSpec},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := scaleAheadConfigOf(&autoscalingv1alpha1.ScaleAhead{Forecasts: []autoscalingv1alpha1.ForecastType{"Trend"}, LeadTimeSeconds: c.spec})
			got, source := leadTime(cfg, c.measured)
			assert.Equal(t, c.want, got)
			assert.Equal(t, c.source, source)
		})
	}
}

func TestScaleAheadConfigDefaults(t *testing.T) {
	cfg := scaleAheadConfigOf(&autoscalingv1alpha1.ScaleAhead{Forecasts: []autoscalingv1alpha1.ForecastType{"Trend", "Seasonal"}})
	assert.Equal(t, 600*time.Second, cfg.trendWindow)
	assert.Equal(t, 24*time.Hour, cfg.period)
	assert.Equal(t, forecast.Accuracy{Threshold: 0.5, Window: time.Hour}, cfg.accuracy)
	assert.Zero(t, cfg.lead)

	cfg = scaleAheadConfigOf(&autoscalingv1alpha1.ScaleAhead{
		Forecasts: []autoscalingv1alpha1.ForecastType{"Seasonal"}, LeadTimeSeconds: ptr.To[int32](600),
		Seasonal: &autoscalingv1alpha1.SeasonalForecastSpec{PeriodSeconds: ptr.To[int32](604800)},
		Accuracy: &autoscalingv1alpha1.ForecastAccuracySpec{ThresholdPercent: ptr.To[int32](25)},
	})
	assert.Equal(t, 7*24*time.Hour, cfg.period)
	assert.Equal(t, forecast.Accuracy{Threshold: 0.25, Window: time.Hour}, cfg.accuracy, "an unset window keeps its default")
	assert.Equal(t, 10*time.Minute, cfg.lead)
}

// replica is a ManagedSeed created at created and its Seed, ready since ready (not ready
// when ready is negative).
func replica(obs *observation, name string, created, ready time.Duration) {
	ms := seedmanagementv1alpha1.ManagedSeed{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(ahead0.Add(created))}}
	obs.managedSeeds = append(obs.managedSeeds, ms)
	b := builders.MakeSeed(name)
	if ready >= 0 {
		b = b.Ready()
	}
	seed := b.Obj()
	for i := range seed.Status.Conditions {
		seed.Status.Conditions[i].LastTransitionTime = metav1.NewTime(ahead0.Add(ready))
	}
	obs.seeds[name] = seed
}

func TestMeasureProvisioning(t *testing.T) {
	sa := &autoscalingv1alpha1.SeedAutoscaler{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(ahead0)}}
	obs := &observation{seeds: map[string]*gardencorev1beta1.Seed{}}
	replica(obs, "before-the-autoscaler", -time.Hour, time.Minute)
	replica(obs, "scaled-out", 10*time.Minute, 27*time.Minute)
	replica(obs, "still-provisioning", 20*time.Minute, -1)
	replica(obs, "ready-before-created", 30*time.Minute, 29*time.Minute)

	got := measureProvisioning(sa, obs, nil)
	assert.Equal(t, []autoscalingv1alpha1.ProvisioningTime{provisioned("scaled-out", 1020, 27*time.Minute)}, got,
		"only the autoscaler's own scale-outs that became ready count")

	// Measured once: a later flap of its readiness does not measure it again.
	obs.seeds["scaled-out"].Status.Conditions[0].LastTransitionTime = metav1.NewTime(ahead0.Add(5 * time.Hour))
	assert.Equal(t, got, measureProvisioning(sa, obs, got))

	var many []autoscalingv1alpha1.ProvisioningTime
	for i := range 12 {
		many = append(many, provisioned(string(rune('a'+i)), int32(600+i), time.Duration(i)*time.Minute))
	}
	kept := measureProvisioning(sa, &observation{}, many)
	assert.Len(t, kept, maxProvisioningTimes)
	assert.Equal(t, "l", kept[len(kept)-1].ManagedSeed, "the newest are kept")
}

func TestDemandNow(t *testing.T) {
	seeds := []recommend.Seed{
		{Name: "a", Ready: true, HasUsage: true, Usage: 40},
		{Name: "b", Ready: false, HasUsage: true, Usage: 5},
		{Name: "gone", Ready: true, Deleting: true},
		{Name: "new", Ready: false},
	}
	assert.Equal(t, 57.0, demandNow(recommend.Demand{Seeds: seeds, Pending: 12, PendingKnown: true}))
	assert.True(t, math.IsNaN(demandNow(recommend.Demand{Seeds: seeds})), "pending unknown")
	missing := append(seeds, recommend.Seed{Name: "no-sample", Ready: true})
	assert.True(t, math.IsNaN(demandNow(recommend.Demand{Seeds: missing, PendingKnown: true})), "a ready seed without a sample")
}

func TestPerSeedAtTarget(t *testing.T) {
	assert.Equal(t, 70.0, perSeedAtTarget(recommend.Demand{AllocatablePerSeed: 100, Target: recommend.Target{UtilizationPercent: 70}}))
	assert.Equal(t, 40.0, perSeedAtTarget(recommend.Demand{AllocatablePerSeed: 100, Target: recommend.Target{AverageValue: 40}}))
	assert.Zero(t, perSeedAtTarget(recommend.Demand{Target: recommend.Target{UtilizationPercent: 70}}), "no seed size known")
}

func TestRecordPredictionAndJudge(t *testing.T) {
	lead := 16 * time.Minute // one prediction per 20 s
	var preds []autoscalingv1alpha1.ForecastPrediction
	preds = recordPrediction(preds, ahead0, lead, forecast.Value{Demand: 200, Known: true})
	preds = recordPrediction(preds, ahead0.Add(15*time.Second), lead, forecast.Value{Demand: 300, Known: true})
	assert.Len(t, preds, 1, "closer than lead/48 to the last: not kept")
	preds = recordPrediction(preds, ahead0.Add(20*time.Second), lead, forecast.Value{Demand: 300, Known: true})
	preds = recordPrediction(preds, ahead0.Add(40*time.Second), lead, forecast.Value{})
	preds = recordPrediction(preds, ahead0.Add(60*time.Second), lead, forecast.Value{Demand: math.NaN(), Known: true})
	assert.Len(t, preds, 2, "nothing to keep of an unknown or NaN forecast")

	a := forecast.Accuracy{Threshold: 0.5, Window: time.Minute, Floor: 70}
	fs := autoscalingv1alpha1.ForecastStatus{Type: "Trend", Predictions: preds}
	fs, msg := judge(fs, a, ahead0.Add(lead-time.Second), 100)
	assert.Empty(t, msg, "nothing due yet")
	assert.Len(t, fs.Predictions, 2)

	fs, msg = judge(fs, a, ahead0.Add(lead+30*time.Second), 100)
	assert.Contains(t, msg, "200% off", "the latest due prediction, 300 for 100, is judged")
	assert.Empty(t, fs.Predictions, "every due prediction is dropped")
	assert.False(t, fs.Inaccurate)
	assert.Equal(t, ahead0.Add(lead+30*time.Second), fs.StreakStartTime.Time)

	fs.Predictions = recordPrediction(nil, ahead0.Add(lead), lead, forecast.Value{Demand: 300, Known: true})
	fs, _ = judge(fs, a, ahead0.Add(2*lead+30*time.Second), 100)
	assert.True(t, fs.Inaccurate, "off target for the window: switched off")
	assert.Nil(t, fs.StreakStartTime)

	for i := range 100 {
		preds = recordPrediction(preds, ahead0.Add(time.Duration(i)*time.Minute), lead, forecast.Value{Demand: 1, Known: true})
	}
	assert.Len(t, preds, maxPredictions)
}

func TestForecastQuery(t *testing.T) {
	cfg := scaleAheadConfigOf(&autoscalingv1alpha1.ScaleAhead{Forecasts: []autoscalingv1alpha1.ForecastType{"Trend", "Seasonal"}})
	metric, sel := forecastQuery("demo", autoscalingv1alpha1.TrendForecast, cfg, 900*time.Second)
	assert.Equal(t, MetricDemandTrend, metric)
	assert.Equal(t, "lead_seconds=900,managedseedset=demo,window_seconds=600", sel.String())
	metric, sel = forecastQuery("demo", autoscalingv1alpha1.SeasonalForecast, cfg, 600*time.Second)
	assert.Equal(t, MetricDemandSeasonal, metric)
	assert.Equal(t, "lead_seconds=600,managedseedset=demo,period_seconds=86400", sel.String())
}
