package controller

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"

	"github.com/seedscaler/seedscaler/test/framework/metricsdoc"
)

// The Scheduler section of docs/metrics.md lists exactly the metrics the scheduler
// registers, each with its labels.
func TestDocsListEveryMetric(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	set := types.NamespacedName{Namespace: "garden", Name: "set"}
	pending := newPendingFits(func() ([]types.NamespacedName, bool) { return []types.NamespacedName{set}, true })
	m, err := newMetrics(reg, pending)
	require.NoError(t, err)
	// Make every vector and the pending gauge emit a series.
	m.binds.WithLabelValues("seed-a").Inc()
	(&Reconciler{metrics: m}).ObserveDrain("seed-b", &DrainShoots{Remaining: 1, Blocked: 1})
	m.latency.Observe(0.01)
	pending.set("p/shoot", []types.NamespacedName{set})

	emitted := metricsdoc.AssertSection(t, reg, "Scheduler", "seedscaler_scheduler_")
	assert.Len(t, emitted, 8, "a metric of the scheduler emits no series in this test; extend it")
}
