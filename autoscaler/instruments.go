package autoscaler

import (
	"math"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
)

// Instruments are the autoscaler's own metrics (docs/metrics.md, "Autoscaler").
type Instruments struct {
	decisions       *prometheus.CounterVec
	reconcileTime   *prometheus.HistogramVec
	metricFetchErrs *prometheus.CounterVec
	ahead           *aheadSeries
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
		ahead: newAheadSeries(time.Now),
	}
	for _, c := range []prometheus.Collector{i.decisions, i.reconcileTime, i.metricFetchErrs, i.ahead} {
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
// ttl unless the next evaluation replaces it.
func (i *Instruments) scaleAhead(key types.NamespacedName, s aheadSample, ttl time.Duration) {
	if i != nil {
		i.ahead.set(key, s, ttl)
	}
}

// forgetScaleAhead stops serving the scale-ahead series of a SeedAutoscaler that is gone
// or no longer scales ahead.
func (i *Instruments) forgetScaleAhead(key types.NamespacedName) {
	if i != nil {
		i.ahead.forget(key)
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

// aheadSeries serves the scale-ahead series of each SeedAutoscaler this replica evaluated
// recently. A series lives for a ttl from its evaluation rather than until it is deleted:
// with --replicas-mode=object-locks the replica that evaluates a SeedAutoscaler changes,
// and one that stopped evaluating it stops serving its stale values on its own.
type aheadSeries struct {
	forecastReplicas, demand, forecastDemand, forecastError *prometheus.Desc

	now     func() time.Time
	mu      sync.Mutex
	entries map[types.NamespacedName]aheadEntry
}

type aheadEntry struct {
	sample  aheadSample
	expires time.Time
}

func newAheadSeries(now func() time.Time) *aheadSeries {
	autoscaler := []string{"namespace", "name"}
	perForecast := []string{"namespace", "name", "forecast"}
	return &aheadSeries{
		forecastReplicas: prometheus.NewDesc("seedscaler_autoscaler_forecast_replicas",
			"Replicas the forecasts of a SeedAutoscaler's spec.scaleAhead asked for at its last evaluation (status.scaleAhead.forecastReplicas), acted upon or not (mode ForecastOnly); absent while no forecast could be used.",
			autoscaler, nil),
		demand: prometheus.NewDesc("seedscaler_autoscaler_demand_shoots",
			"Demand of a SeedAutoscaler's target at its last evaluation, the forecasts are judged against: shoots on its seeds plus pending (status.scaleAhead.demand).",
			autoscaler, nil),
		forecastDemand: prometheus.NewDesc("seedscaler_autoscaler_forecast_demand_shoots",
			"Demand a forecast predicted a lead time ago for the time of its last judgement (status.scaleAhead.forecasts[].lastJudged).",
			perForecast, nil),
		forecastError: prometheus.NewDesc("seedscaler_autoscaler_forecast_error_ratio",
			"Mean absolute percentage error of a forecast over its accuracy window, as a ratio: 0.12 is 12% (status.scaleAhead.forecasts[].meanAbsolutePercentageError).",
			perForecast, nil),
		now:     now,
		entries: map[types.NamespacedName]aheadEntry{},
	}
}

func (a *aheadSeries) set(key types.NamespacedName, s aheadSample, ttl time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.entries[key] = aheadEntry{sample: s, expires: a.now().Add(ttl)}
}

func (a *aheadSeries) forget(key types.NamespacedName) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.entries, key)
}

// Describe implements prometheus.Collector.
func (a *aheadSeries) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{a.forecastReplicas, a.demand, a.forecastDemand, a.forecastError} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: the known values of the entries that have not
// expired; it drops the expired ones.
func (a *aheadSeries) Collect(ch chan<- prometheus.Metric) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		if !math.IsNaN(v) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
		}
	}
	for key, e := range a.entries {
		if !now.Before(e.expires) {
			delete(a.entries, key)
			continue
		}
		gauge(a.forecastReplicas, e.sample.forecastReplicas, key.Namespace, key.Name)
		gauge(a.demand, e.sample.demand, key.Namespace, key.Name)
		for _, f := range e.sample.forecasts {
			gauge(a.forecastDemand, f.predicted, key.Namespace, key.Name, f.forecast)
			gauge(a.forecastError, f.errorRatio, key.Namespace, key.Name, f.forecast)
		}
	}
}
