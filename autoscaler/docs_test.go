package autoscaler

import (
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"

	"github.com/seedscaler/seedscaler/test/framework/metricsdoc"
)

// The Autoscaler section of docs/metrics.md lists exactly the controller's own metrics,
// each with its labels.
func TestDocsListEveryMetric(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	i, err := NewInstruments(reg)
	require.NoError(t, err)
	i.decision("up")
	i.observeReconcile(time.Millisecond, errors.New("boom"))
	i.fetchError(MetricSeedUsage)
	i.scaleAhead(types.NamespacedName{Namespace: "garden", Name: "demo"}, aheadSample{forecastReplicas: 5, demand: 120,
		forecasts: []forecastSample{{forecast: "Trend", predicted: 130, errorRatio: 0.08}}}, time.Minute)
	i.budgets(types.NamespacedName{Namespace: "garden", Name: "demo"}, []objectSample{{labels: []string{"Consolidation", "seeds", "0"}, value: 0}})
	i.consolidationScore(types.NamespacedName{Namespace: "garden", Name: "demo"}, []objectSample{{labels: []string{"demo-3"}, value: 0.05}})
	emitted := metricsdoc.AssertSection(t, reg, "Autoscaler", "seedscaler_autoscaler_")
	assert.Len(t, emitted, 9, "a metric of the autoscaler emits no series in this test; extend it")
}
