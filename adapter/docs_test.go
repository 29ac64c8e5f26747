package adapter

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/test/framework/metricsdoc"
)

// The Adapter section of docs/metrics.md lists exactly the adapter's own metrics, each with
// its labels.
func TestDocsListEveryMetric(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := NewMetrics(reg)
	require.NoError(t, err)
	m.queryDuration.WithLabelValues(queryKindValue).Observe(0.01)
	metricsdoc.AssertSection(t, reg, "Adapter", "seedscaler_adapter_")
}
