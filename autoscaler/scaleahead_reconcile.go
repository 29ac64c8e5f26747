package autoscaler

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler/forecast"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
)

// Reasons of the ScaleAheadActive condition and the scale-ahead events.
const (
	ReasonForecastsInUse     controllerutils.Reason = "ForecastsInUse"
	ReasonForecastInaccurate controllerutils.Reason = controllerutils.Reason(forecast.ReasonInaccurate)
	// ReasonForecastOnly: spec.scaleAhead.mode is ForecastOnly; also status.scaleAhead's
	// reason in that mode.
	ReasonForecastOnly controllerutils.Reason = "ForecastOnly"

	// EventScaledOutAhead: the forecast drove a scale-out ahead of the reactive decision.
	EventScaledOutAhead = controllerutils.Normal(forecast.ReasonScaledOutAhead)
	// EventForecastSwitchedOff: a forecast missed the demand for the accuracy window and
	// is no longer used.
	EventForecastSwitchedOff = controllerutils.Warning("ForecastSwitchedOff")
	// EventForecastSwitchedOn: a forecast switched off met the demand for the accuracy
	// window and is used again.
	EventForecastSwitchedOn = controllerutils.Normal("ForecastSwitchedOn")
)

// The external metrics API authorizes a metric as a resource of its own: exactly the two
// forecasts, no wildcard.
// +kubebuilder:rbac:groups=external.metrics.k8s.io,resources=seedscaler_managedseedset_demand_trend;seedscaler_managedseedset_demand_seasonal,verbs=get;list

// ahead is what scale-ahead made of a decision.
type ahead struct {
	decision recommend.Decision
	// scaledOutAhead is true when the forecast raised the decision above the current replicas.
	scaledOutAhead bool
}

// scaleAhead folds spec.scaleAhead's forecasts into the reactive decision and writes
// status.scaleAhead, the ScaleAheadActive condition and the scale-ahead metrics. A
// forecast that cannot be read or used leaves the decision as it is and says why in
// status; in ForecastOnly mode every forecast does.
func (r *Reconciler) scaleAhead(ctx context.Context, sa *autoscalingv1alpha1.SeedAutoscaler, obs *observation, in recommend.Input, d recommend.Decision) ahead {
	if sa.Spec.ScaleAhead == nil {
		sa.Status.ScaleAhead = nil
		meta.RemoveStatusCondition(&sa.Status.Conditions, autoscalingv1alpha1.SeedAutoscalerScaleAheadActive)
		r.Instruments.forgetScaleAhead(client.ObjectKeyFromObject(sa))
		return ahead{decision: d}
	}
	cfg := scaleAheadConfigOf(sa.Spec.ScaleAhead)
	prev := sa.Status.ScaleAhead
	st := &autoscalingv1alpha1.ScaleAheadStatus{}
	if prev != nil {
		st.ProvisioningTimes = prev.ProvisioningTimes
	}
	st.ProvisioningTimes = measureProvisioning(sa, obs, st.ProvisioningTimes)
	lead, source := leadTime(cfg, st.ProvisioningTimes)
	st.LeadTimeSeconds, st.LeadTimeSource = int32(lead/time.Second), source

	demand, perSeed := demandNow(in.Demand), perSeedAtTarget(in.Demand)
	st.Demand = optionalQuantity(demand)
	cfg.accuracy.Floor = perSeed
	values, allOff := r.forecasts(ctx, sa, obs, cfg, lead, demand, prev, st)

	res := forecast.Combine(forecast.Input{
		Now: in.Now, CurrentReplicas: in.CurrentReplicas, MaxReplicas: in.MaxReplicas,
		Behavior: in.Behavior, ScaleEvents: in.ScaleEvents, Reactive: d.DesiredReplicas,
		Demand: demand, Forecast: forecast.Max(values...), PerSeedAtTarget: perSeed,
		Disabled: allOff, History: recommendationsOf(prev),
	})
	mode := modeOf(sa.Spec.ScaleAhead)
	r.writeScaleAhead(sa, st, mode, res, allOff, lead, source)
	r.Instruments.scaleAhead(client.ObjectKeyFromObject(sa), aheadSampleOf(st, cfg.accuracy, in.Now), max(r.MetricMaxAge, 3*r.SyncPeriod))
	a := act(mode, d, res)
	if a.decision.DesiredReplicas != d.DesiredReplicas {
		logf.FromContext(ctx).V(1).Info("Scale-ahead changed the decision", "reactive", d.DesiredReplicas, "desired", res.Desired, "reason", res.Reason)
	}
	return a
}

// modeOf is spec.scaleAhead.mode; unset (an object the apiserver has not defaulted) is
// ForecastAndScale, what scaling ahead did before it had a mode.
func modeOf(spec *autoscalingv1alpha1.ScaleAhead) autoscalingv1alpha1.ScaleAheadMode {
	if spec.Mode == "" {
		return autoscalingv1alpha1.ForecastAndScale
	}
	return spec.Mode
}

// act is the decision as the mode says: ForecastAndScale takes the combination of the
// forecast with the reactive decision, ForecastOnly the reactive decision exactly as it is,
// whatever the forecast asked for.
func act(mode autoscalingv1alpha1.ScaleAheadMode, d recommend.Decision, res forecast.Result) ahead {
	if mode == autoscalingv1alpha1.ForecastOnly || res.Desired == d.DesiredReplicas {
		return ahead{decision: d}
	}
	d.DesiredReplicas, d.Reason = res.Desired, res.Message
	return ahead{decision: d, scaledOutAhead: res.Reason == forecast.ReasonScaledOutAhead}
}

// forecasts reads each forecast of the spec, judges its accuracy, records its prediction
// and returns the values of those switched on, and whether every forecast is switched off.
func (r *Reconciler) forecasts(ctx context.Context, sa *autoscalingv1alpha1.SeedAutoscaler, obs *observation, cfg scaleAheadConfig, lead time.Duration, demand float64, prev, st *autoscalingv1alpha1.ScaleAheadStatus) ([]forecast.Value, bool) {
	now := r.Clock.Now()
	var values []forecast.Value
	allOff := true
	for _, t := range cfg.forecasts {
		fs := forecastStatusOf(prev, t)
		wasOff := fs.Inaccurate
		fs, accuracy := judge(fs, cfg.accuracy, now, demand)
		v, problem := r.readForecast(ctx, sa, obs, t, cfg, lead, now)
		fs.Predictions = recordPrediction(fs.Predictions, now, lead, v)
		fs.Demand, fs.Message = nil, cmp.Or(problem, accuracy, accuracyState(fs.Inaccurate))
		if v.Known {
			fs.Demand = optionalQuantity(v.Demand)
		}
		r.accuracyEvent(sa, t, wasOff, fs.Inaccurate, accuracy)
		if !fs.Inaccurate {
			allOff = false
			values = append(values, v)
		}
		st.Forecasts = append(st.Forecasts, fs)
	}
	return values, allOff
}

// readForecast reads one forecast of the target's demand from the external metrics API;
// without one it says why.
func (r *Reconciler) readForecast(ctx context.Context, sa *autoscalingv1alpha1.SeedAutoscaler, obs *observation, t autoscalingv1alpha1.ForecastType, cfg scaleAheadConfig, lead time.Duration, now time.Time) (forecast.Value, string) {
	if obs == nil || obs.set == nil {
		return forecast.Value{}, "forecasts exist for a ManagedSeedSet's demand only, and the target is not one"
	}
	metric, selector := forecastQuery(sa.Spec.ScaleTargetRef.Name, t, cfg, lead)
	list, err := r.ExternalMetrics.NamespacedMetrics(sa.Namespace).List(metric, selector)
	if err != nil {
		r.Instruments.fetchError(metric)
		logf.FromContext(ctx).V(1).Info("Forecast unknown", "forecast", t, "error", err.Error())
		return forecast.Value{}, fmt.Sprintf("fetching %s{%s} from the external metrics API: %v", metric, selector, err)
	}
	v := forecast.Value{}
	for _, item := range list.Items {
		if !fresh(sample{at: item.Timestamp.Time}, now, r.MetricMaxAge) {
			continue
		}
		v = forecast.Max(v, forecast.Value{Demand: item.Value.AsApproximateFloat64(), Known: true})
	}
	if !v.Known {
		return v, fmt.Sprintf("%s{%s} has no value newer than %s", metric, selector, r.MetricMaxAge)
	}
	return v, ""
}

// forecastQuery is the external metric of a forecast type and its selector: the set, and
// the parameters of the forecast as reserved keys.
func forecastQuery(set string, t autoscalingv1alpha1.ForecastType, cfg scaleAheadConfig, lead time.Duration) (string, labels.Selector) {
	params := labels.Set{"managedseedset": set, ParamLeadSeconds: strconv.Itoa(int(lead / time.Second))}
	metric := MetricDemandTrend
	if t == autoscalingv1alpha1.SeasonalForecast {
		metric = MetricDemandSeasonal
		params[ParamPeriodSeconds] = strconv.Itoa(int(cfg.period / time.Second))
	} else {
		params[ParamWindowSeconds] = strconv.Itoa(int(cfg.trendWindow / time.Second))
	}
	return metric, labels.SelectorFromSet(params)
}

// accuracyEvent records the moment a forecast switches off or back on.
func (r *Reconciler) accuracyEvent(sa *autoscalingv1alpha1.SeedAutoscaler, t autoscalingv1alpha1.ForecastType, wasOff, off bool, message string) {
	switch {
	case off && !wasOff:
		r.event(sa, EventForecastSwitchedOff, "Forecast", "The %s forecast is switched off: %s", t, message)
	case !off && wasOff:
		r.event(sa, EventForecastSwitchedOn, "Forecast", "The %s forecast is switched on again: %s", t, message)
	}
}

// writeScaleAhead puts the combination's outcome into status and the ScaleAheadActive
// condition. In ForecastOnly mode the reason says so, and the message what the outcome
// would have been.
func (r *Reconciler) writeScaleAhead(sa *autoscalingv1alpha1.SeedAutoscaler, st *autoscalingv1alpha1.ScaleAheadStatus, mode autoscalingv1alpha1.ScaleAheadMode, res forecast.Result, allOff bool, lead time.Duration, source autoscalingv1alpha1.LeadTimeSource) {
	st.Mode = mode
	st.Reason = autoscalingv1alpha1.ScaleAheadReason(res.Reason)
	st.Message = controllerutils.Truncate(fmt.Sprintf("%s (lead time %s, %s)", res.Message, lead, source), 1024)
	st.ForecastReplicas = nil
	if res.Forecast >= 0 {
		st.ForecastReplicas = &res.Forecast
	}
	st.Recommendations = recommendationsStatus(res.History)
	sa.Status.ScaleAhead = st
	active := controllerutils.True(ReasonForecastsInUse, fmt.Sprintf("the forecasts %v are in use, %s ahead", sa.Spec.ScaleAhead.Forecasts, lead))
	switch {
	case mode == autoscalingv1alpha1.ForecastOnly:
		st.Reason = autoscalingv1alpha1.ScaleAheadReason(ReasonForecastOnly)
		st.Message = controllerutils.Truncate(fmt.Sprintf("forecast only, not acted upon: %s, %s; with mode ForecastAndScale the target would have %d replicas (lead time %s, %s)",
			res.Reason, res.Message, res.Desired, lead, source), 1024)
		active = controllerutils.False(ReasonForecastOnly, fmt.Sprintf("spec.scaleAhead.mode is ForecastOnly: the forecasts %v are computed, judged and shown in status.scaleAhead on every evaluation, %s ahead, "+
			"but never scale the target; set mode to ForecastAndScale to scale ahead on them", sa.Spec.ScaleAhead.Forecasts, lead))
	case allOff:
		active = controllerutils.False(ReasonForecastInaccurate, "every forecast missed the demand for longer than the accuracy window and is switched off until it meets the demand again; the autoscaler decides reactively meanwhile")
	}
	r.setCondition(sa, autoscalingv1alpha1.SeedAutoscalerScaleAheadActive, active)
}

// aheadSampleOf is what status.scaleAhead shows as metrics: unknown values are NaN.
func aheadSampleOf(st *autoscalingv1alpha1.ScaleAheadStatus, a forecast.Accuracy, now time.Time) aheadSample {
	s := aheadSample{forecastReplicas: math.NaN(), demand: math.NaN()}
	if st.ForecastReplicas != nil {
		s.forecastReplicas = float64(*st.ForecastReplicas)
	}
	if st.Demand != nil {
		s.demand = st.Demand.AsApproximateFloat64()
	}
	for _, fs := range st.Forecasts {
		f := forecastSample{forecast: string(fs.Type), predicted: math.NaN(), errorRatio: math.NaN()}
		if fs.LastJudged != nil {
			f.predicted = fs.LastJudged.Demand.AsApproximateFloat64()
		}
		if mean, n := a.MeanError(errorBucketsOf(fs.Errors), now); n > 0 {
			f.errorRatio = mean
		}
		s.forecasts = append(s.forecasts, f)
	}
	return s
}

// recommendationsOf is the forecast's own stabilization history in st.
func recommendationsOf(st *autoscalingv1alpha1.ScaleAheadStatus) []recommend.Recommendation {
	if st == nil {
		return nil
	}
	return recommendationsFromStatus(st.Recommendations)
}

// accuracyState says whether a forecast is in use between two judgements.
func accuracyState(off bool) string {
	if off {
		return "switched off for missing the demand until it meets it for the accuracy window"
	}
	return "in use; judged against the demand as each prediction comes due"
}
