package autoscaler

import (
	"math"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler/forecast"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
)

// Forecast metrics of the contract in docs/metrics.md: the adapter's external metrics over
// the recording rule managedseedset:seedscaler_demand_shoots:sum, one value per set.
const (
	// MetricDemandTrend is predict_linear of the set's demand over window_seconds, at
	// lead_seconds ahead.
	MetricDemandTrend = "seedscaler_managedseedset_demand_trend"
	// MetricDemandSeasonal is the largest demand of the set in [now − period_seconds,
	// now − period_seconds + lead_seconds].
	MetricDemandSeasonal = "seedscaler_managedseedset_demand_seasonal"
)

// Parameters of the forecast metrics, passed as label selector keys that the adapter
// validates and removes from the label matchers (docs/adapter.md).
const (
	ParamLeadSeconds   = "lead_seconds"
	ParamWindowSeconds = "window_seconds"
	ParamPeriodSeconds = "period_seconds"
)

// Defaults of spec.scaleAhead, as its API documents them.
const (
	DefaultLeadTime          = 900 * time.Second
	DefaultTrendWindow       = forecast.DefaultTrendWindow
	DefaultSeasonalPeriod    = 86400 * time.Second
	DefaultAccuracyThreshold = 50
	DefaultAccuracyWindow    = 3600 * time.Second
	maxProvisioningTimes     = 8
	maxPredictions           = 64
	predictionsPerLeadTime   = 48
	minimumPredictionSpacing = 15 * time.Second
)

// scaleAheadConfig is spec.scaleAhead with its defaults filled in.
type scaleAheadConfig struct {
	forecasts []autoscalingv1alpha1.ForecastType
	// lead is spec.scaleAhead.leadTimeSeconds; 0 when unset.
	lead        time.Duration
	trendWindow time.Duration
	period      time.Duration
	accuracy    forecast.Accuracy
}

func seconds(v *int32, def time.Duration) time.Duration {
	if v == nil {
		return def
	}
	return time.Duration(*v) * time.Second
}

// scaleAheadConfigOf reads spec.scaleAhead; the accuracy's Floor is the caller's.
func scaleAheadConfigOf(spec *autoscalingv1alpha1.ScaleAhead) scaleAheadConfig {
	cfg := scaleAheadConfig{
		forecasts:   spec.Forecasts,
		lead:        seconds(spec.LeadTimeSeconds, 0),
		trendWindow: DefaultTrendWindow,
		period:      DefaultSeasonalPeriod,
		accuracy:    forecast.Accuracy{Threshold: DefaultAccuracyThreshold / 100.0, Window: DefaultAccuracyWindow},
	}
	if spec.Trend != nil {
		cfg.trendWindow = seconds(spec.Trend.WindowSeconds, DefaultTrendWindow)
	}
	if spec.Seasonal != nil {
		cfg.period = seconds(spec.Seasonal.PeriodSeconds, DefaultSeasonalPeriod)
	}
	if a := spec.Accuracy; a != nil {
		if a.ThresholdPercent != nil {
			cfg.accuracy.Threshold = float64(*a.ThresholdPercent) / 100
		}
		cfg.accuracy.Window = seconds(a.WindowSeconds, DefaultAccuracyWindow)
	}
	return cfg
}

// leadTime is the lead time in use: the spec's, else the largest provisioning time measured
// recently, else DefaultLeadTime.
func leadTime(cfg scaleAheadConfig, measured []autoscalingv1alpha1.ProvisioningTime) (time.Duration, autoscalingv1alpha1.LeadTimeSource) {
	if cfg.lead > 0 {
		return cfg.lead, autoscalingv1alpha1.LeadTimeFromSpec
	}
	var largest int32
	for _, p := range measured {
		largest = max(largest, p.Seconds)
	}
	if largest > 0 {
		return time.Duration(largest) * time.Second, autoscalingv1alpha1.LeadTimeMeasured
	}
	return DefaultLeadTime, autoscalingv1alpha1.LeadTimeDefault
}

// measureProvisioning adds the replicas that became ready since the last evaluation to the
// measured provisioning times, newest last, keeping the last maxProvisioningTimes. Only
// replicas created after the autoscaler count, its own scale-outs, and each once: the time
// from the ManagedSeed's creation to its Seed's GardenletReady transition.
func measureProvisioning(sa *autoscalingv1alpha1.SeedAutoscaler, obs *observation, known []autoscalingv1alpha1.ProvisioningTime) []autoscalingv1alpha1.ProvisioningTime {
	out := append([]autoscalingv1alpha1.ProvisioningTime(nil), known...)
	seen := map[string]bool{}
	for _, p := range known {
		seen[p.ManagedSeed] = true
	}
	for i := range obs.managedSeeds {
		ms := &obs.managedSeeds[i]
		seed, ok := obs.seeds[ms.Name]
		if seen[ms.Name] || !ok || !seedIsReady(seed) || ms.CreationTimestamp.Before(&sa.CreationTimestamp) {
			continue
		}
		readyAt, _ := readySince(seed)
		took := readyAt.Sub(ms.CreationTimestamp.Time)
		if took <= 0 {
			continue
		}
		out = append(out, autoscalingv1alpha1.ProvisioningTime{
			ManagedSeed: ms.Name, Seconds: int32(min(math.Ceil(took.Seconds()), math.MaxInt32)), ReadyTime: metav1.NewTime(readyAt),
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ReadyTime.Before(&out[j].ReadyTime) })
	return out[max(0, len(out)-maxProvisioningTimes):]
}

// demandNow is the shoots on the target's seeds plus pending; NaN when a seed that counts
// has no sample or the pending shoots are unknown.
func demandNow(d recommend.Demand) float64 {
	if !d.PendingKnown {
		return math.NaN()
	}
	total := d.Pending
	for _, s := range d.Seeds {
		switch {
		case s.Deleting:
		case s.HasUsage:
			total += s.Usage
		case s.Ready:
			return math.NaN()
		}
	}
	return total
}

// perSeedAtTarget is the shoots a new seed holds at the target: the set's allocatable per
// replica (else the ready seeds' average) at the shoots target; 0 when unknown.
func perSeedAtTarget(d recommend.Demand) float64 {
	_, allocatable, ok := recommend.PendingReplicas(d, 0)
	if !ok {
		return 0
	}
	return d.Target.PerSeed(allocatable)
}

// judge compares the latest prediction due by now with the demand now, drops every due
// prediction, updates the forecast's accuracy state, and keeps its error for the mean
// absolute percentage error over the accuracy window.
func judge(fs autoscalingv1alpha1.ForecastStatus, a forecast.Accuracy, now time.Time, demand float64) (autoscalingv1alpha1.ForecastStatus, string) {
	due := sort.Search(len(fs.Predictions), func(i int) bool { return fs.Predictions[i].Time.After(now) })
	if due == 0 {
		meanError(&fs, a, now)
		return fs, ""
	}
	latest := fs.Predictions[due-1]
	predicted := forecast.Value{Demand: latest.Demand.AsApproximateFloat64(), Known: true}
	fs.Predictions = fs.Predictions[due:]
	state := forecast.AccuracyState{Off: fs.Inaccurate}
	if fs.StreakStartTime != nil {
		state.Since = fs.StreakStartTime.Time
	}
	state, _, message := a.Observe(state, now, predicted, demand)
	fs.Inaccurate, fs.StreakStartTime = state.Off, nil
	if !state.Since.IsZero() {
		fs.StreakStartTime = &metav1.Time{Time: state.Since}
	}
	if errRel, ok := a.Error(predicted, demand); ok {
		fs.LastJudged = latest.DeepCopy()
		fs.Errors = errorBucketsStatus(a.RecordError(errorBucketsOf(fs.Errors), now, errRel))
	}
	meanError(&fs, a, now)
	return fs, message
}

// meanError writes the forecast's mean absolute percentage error over the accuracy window
// into fs, and forgets what lies before the window: the errors, and a last judged
// prediction that old.
func meanError(fs *autoscalingv1alpha1.ForecastStatus, a forecast.Accuracy, now time.Time) {
	buckets := a.InWindow(errorBucketsOf(fs.Errors), now)
	fs.Errors = errorBucketsStatus(buckets)
	mean, n := a.MeanError(buckets, now)
	fs.MeanAbsolutePercentageError, fs.JudgedPredictions = nil, n
	if n > 0 {
		fs.MeanAbsolutePercentageError = ptr.To(int32(math.Round(100 * mean)))
	}
	if fs.LastJudged != nil && fs.LastJudged.Time.Add(a.Window).Before(now) {
		fs.LastJudged = nil
	}
}

func errorBucketsOf(in []autoscalingv1alpha1.ForecastErrorBucket) []forecast.ErrorBucket {
	out := make([]forecast.ErrorBucket, 0, len(in))
	for _, b := range in {
		out = append(out, forecast.ErrorBucket{Start: b.StartTime.Time, Count: b.Count, PercentSum: b.PercentSum})
	}
	return out
}

func errorBucketsStatus(in []forecast.ErrorBucket) []autoscalingv1alpha1.ForecastErrorBucket {
	var out []autoscalingv1alpha1.ForecastErrorBucket
	for _, b := range in {
		out = append(out, autoscalingv1alpha1.ForecastErrorBucket{StartTime: metav1.NewTime(b.Start), Count: b.Count, PercentSum: b.PercentSum})
	}
	return out
}

// recordPrediction keeps the forecast made now for now + lead, at most one per
// lead/predictionsPerLeadTime (and 15 s), and the last maxPredictions of them.
func recordPrediction(preds []autoscalingv1alpha1.ForecastPrediction, now time.Time, lead time.Duration, v forecast.Value) []autoscalingv1alpha1.ForecastPrediction {
	if !v.Known || math.IsNaN(v.Demand) || math.IsInf(v.Demand, 0) {
		return preds
	}
	at := now.Add(lead)
	spacing := max(lead/predictionsPerLeadTime, minimumPredictionSpacing)
	if n := len(preds); n > 0 && at.Sub(preds[n-1].Time.Time) < spacing {
		return preds
	}
	preds = append(preds, autoscalingv1alpha1.ForecastPrediction{Time: metav1.NewTime(at), Demand: *floatQuantity(v.Demand)})
	return preds[max(0, len(preds)-maxPredictions):]
}

// forecastStatusOf returns the status of a forecast type, or a new one.
func forecastStatusOf(st *autoscalingv1alpha1.ScaleAheadStatus, t autoscalingv1alpha1.ForecastType) autoscalingv1alpha1.ForecastStatus {
	if st != nil {
		for _, fs := range st.Forecasts {
			if fs.Type == t {
				return *fs.DeepCopy()
			}
		}
	}
	return autoscalingv1alpha1.ForecastStatus{Type: t}
}

// optionalQuantity renders a value for status; nil when it is not a finite number.
func optionalQuantity(v float64) *resource.Quantity {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return floatQuantity(v)
}
