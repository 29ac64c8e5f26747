package autoscaler

import (
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
)

// objectSeriesMaxAge is how long a SeedAutoscaler's series of the gauges per object stay
// without an evaluation that renews them.
const objectSeriesMaxAge = 5 * time.Minute

// Instruments are the autoscaler's own metrics (docs/metrics.md, "Autoscaler").
type Instruments struct {
	decisions       *prometheus.CounterVec
	reconcileTime   *prometheus.HistogramVec
	metricFetchErrs *prometheus.CounterVec
	budgetAllowed   *objectGauge
	score           *objectGauge
	// The scale-ahead series: what spec.scaleAhead's last evaluation showed.
	forecastReplicas, demand, forecastDemand, forecastError *objectGauge
}

// NewInstruments creates the metrics and registers them with reg.
func NewInstruments(reg prometheus.Registerer) (*Instruments, error) {
	i := &Instruments{
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seedscaler_autoscaler_decisions_total",
			Help: "Decisions of the SeedAutoscaler controller by direction: up, down, or none when the replicas stay.",
		}, []string{"direction"}),
		reconcileTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "seedscaler_autoscaler_reconcile_duration_seconds",
			Help:    "Time one evaluation of a SeedAutoscaler takes, by result: success or error.",
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
		}, []string{"result"}),
		metricFetchErrs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seedscaler_autoscaler_metric_fetch_errors_total",
			Help: "Failed reads from the custom metrics API by metric name.",
		}, []string{"metric"}),
		budgetAllowed: newObjectGauge("seedscaler_autoscaler_disruption_budget_allowed",
			"Disruptions the most restrictive active disruption budget of a SeedAutoscaler allows its set now, by reason, unit and the budget's index: "+
				"seeds, how many more may be disrupted; shoots, how many may migrate at once. 0 names the budget that holds the reason back.",
			objectSeriesMaxAge, "reason", "unit", "budget"),
		score: newObjectGauge("seedscaler_autoscaler_consolidation_score",
			"Savings per disruption of the seed a SeedAutoscaler's consolidation scored highest at its last scoring: one seed freed divided by the migration weights of its shoots.",
			objectSeriesMaxAge, "seed"),
		forecastReplicas: newObjectGauge("seedscaler_autoscaler_forecast_replicas",
			"Replicas the forecasts of a SeedAutoscaler's spec.scaleAhead asked for at its last evaluation (status.scaleAhead.forecastReplicas), acted upon or not (mode ForecastOnly); absent while no forecast could be used.",
			objectSeriesMaxAge),
		demand: newObjectGauge("seedscaler_autoscaler_demand_shoots",
			"Demand of a SeedAutoscaler's target at its last evaluation, the forecasts are judged against: shoots on its seeds plus pending (status.scaleAhead.demand).",
			objectSeriesMaxAge),
		forecastDemand: newObjectGauge("seedscaler_autoscaler_forecast_demand_shoots",
			"Demand a forecast predicted a lead time ago for the time of its last judgement (status.scaleAhead.forecasts[].lastJudged).",
			objectSeriesMaxAge, "forecast"),
		forecastError: newObjectGauge("seedscaler_autoscaler_forecast_error_ratio",
			"Mean absolute percentage error of a forecast over its accuracy window, as a ratio: 0.12 is 12% (status.scaleAhead.forecasts[].meanAbsolutePercentageError).",
			objectSeriesMaxAge, "forecast"),
	}
	for _, c := range []prometheus.Collector{i.decisions, i.reconcileTime, i.metricFetchErrs, i.budgetAllowed, i.score,
		i.forecastReplicas, i.demand, i.forecastDemand, i.forecastError} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	for _, d := range []string{"up", "down", "none"} {
		i.decisions.WithLabelValues(d)
	}
	return i, nil
}

func (i *Instruments) decision(direction string) {
	if i != nil {
		i.decisions.WithLabelValues(direction).Inc()
	}
}

func (i *Instruments) observeReconcile(d time.Duration, err error) {
	if i == nil {
		return
	}
	result := "success"
	if err != nil {
		result = "error"
	}
	i.reconcileTime.WithLabelValues(result).Observe(d.Seconds())
}

func (i *Instruments) fetchError(metric string) {
	if i != nil {
		i.metricFetchErrs.WithLabelValues(metric).Inc()
	}
}

// scaleAhead serves what one evaluation of a SeedAutoscaler's spec.scaleAhead showed, for
// ttl unless the next evaluation replaces it; unknown values (NaN) are left out.
func (i *Instruments) scaleAhead(key types.NamespacedName, s aheadSample, ttl time.Duration) {
	if i == nil {
		return
	}
	var predicted, errs []objectSample
	for _, f := range s.forecasts {
		predicted = append(predicted, known(f.predicted, f.forecast)...)
		errs = append(errs, known(f.errorRatio, f.forecast)...)
	}
	i.forecastReplicas.setFor(key, known(s.forecastReplicas), ttl)
	i.demand.setFor(key, known(s.demand), ttl)
	i.forecastDemand.setFor(key, predicted, ttl)
	i.forecastError.setFor(key, errs, ttl)
}

// known is the sample of a value with its labels; none when the value is unknown (NaN).
func known(v float64, labels ...string) []objectSample {
	if math.IsNaN(v) {
		return nil
	}
	return []objectSample{{labels: labels, value: v}}
}

// forgetScaleAhead stops serving the scale-ahead series of a SeedAutoscaler that no longer
// scales ahead.
func (i *Instruments) forgetScaleAhead(key types.NamespacedName) {
	if i != nil {
		for _, g := range []*objectGauge{i.forecastReplicas, i.demand, i.forecastDemand, i.forecastError} {
			g.set(key, nil)
		}
	}
}

// aheadSample is what status.scaleAhead showed at one evaluation; NaN is unknown, and
// then the series is left out.
type aheadSample struct {
	forecastReplicas float64
	demand           float64
	forecasts        []forecastSample
}

// forecastSample is one forecast's last judged prediction and its mean absolute
// percentage error over the accuracy window, as a ratio.
type forecastSample struct {
	forecast   string
	predicted  float64
	errorRatio float64
}

// budgets sets the disruption budget series of a SeedAutoscaler; none removes them.
func (i *Instruments) budgets(obj types.NamespacedName, samples []objectSample) {
	if i != nil {
		i.budgetAllowed.set(obj, samples)
	}
}

// consolidationScore sets the score series of a SeedAutoscaler; none removes it.
func (i *Instruments) consolidationScore(obj types.NamespacedName, samples []objectSample) {
	if i != nil {
		i.score.set(obj, samples)
	}
}

// forget removes every series of a SeedAutoscaler that is gone.
func (i *Instruments) forget(obj types.NamespacedName) {
	if i != nil {
		i.budgetAllowed.set(obj, nil)
		i.score.set(obj, nil)
		i.forgetScaleAhead(obj)
	}
}
