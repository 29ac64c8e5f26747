package adapter

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Label values of the adapter's own metrics.
const (
	queryKindValue     = "value"
	queryKindDiscovery = "discovery"

	apiCustom   = "custom"
	apiExternal = "external"

	resultOK      = "ok"
	resultMissing = "missing"
	resultError   = "error"
)

// Metrics are the adapter's own metrics (docs/metrics.md, section Adapter).
type Metrics struct {
	queryDuration    *prometheus.HistogramVec
	queryErrors      *prometheus.CounterVec
	requests         *prometheus.CounterVec
	cacheHits        prometheus.Counter
	availableMetrics *prometheus.GaugeVec
}

// NewMetrics creates the adapter's metrics and registers them with reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		queryDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "seedscaler_adapter_prometheus_query_duration_seconds",
			Help:    "Duration of the adapter's queries to Prometheus, by kind of query.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"kind"}),
		queryErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seedscaler_adapter_prometheus_query_errors_total",
			Help: "Queries to Prometheus that failed, by kind of query.",
		}, []string{"kind"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seedscaler_adapter_requests_total",
			Help: "Metric requests the adapter answered, by API and result.",
		}, []string{"api", "result"}),
		cacheHits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "seedscaler_adapter_value_cache_hits_total",
			Help: "Value queries answered from the adapter's short-lived cache instead of Prometheus.",
		}),
		availableMetrics: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "seedscaler_adapter_available_metrics",
			Help: "Metrics the adapter lists as available after the last discovery, by API.",
		}, []string{"api"}),
	}
	for _, c := range []prometheus.Collector{m.queryDuration, m.queryErrors, m.requests, m.cacheHits, m.availableMetrics} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	for _, kind := range []string{queryKindValue, queryKindDiscovery} {
		m.queryErrors.WithLabelValues(kind)
	}
	for _, api := range []string{apiCustom, apiExternal} {
		for _, result := range []string{resultOK, resultMissing, resultError} {
			m.requests.WithLabelValues(api, result)
		}
		m.availableMetrics.WithLabelValues(api)
	}
	return m, nil
}
