package autoscaler

import (
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/internal/metricsdoc"
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
	emitted, err := metricsdoc.Emitted(reg)
	require.NoError(t, err)
	assert.Len(t, emitted, 3, "a metric of the autoscaler emits no series in this test; extend it")
	documented, err := metricsdoc.Documented("Autoscaler", "seedscaler_autoscaler_")
	require.NoError(t, err)
	assert.Equal(t, emitted, documented, "docs/metrics.md (section Autoscaler) and the autoscaler's metrics disagree")
}
