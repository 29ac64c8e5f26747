package autoscaler

import (
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
	}
	for _, c := range []prometheus.Collector{i.decisions, i.reconcileTime, i.metricFetchErrs, i.budgetAllowed, i.score} {
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

// forget removes the series of a SeedAutoscaler that is gone.
func (i *Instruments) forget(obj types.NamespacedName) {
	if i != nil {
		i.budgetAllowed.set(obj, nil)
		i.score.set(obj, nil)
	}
}
