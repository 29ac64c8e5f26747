package controller

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"

	"github.com/seedscaler/seedscaler/internal/testenv"
)

// documentedSchedulerMetrics parses the Scheduler section of docs/metrics.md: the metric
// and the label names of each row of its table.
func documentedSchedulerMetrics(t *testing.T) map[string][]string {
	t.Helper()
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(root, "docs", "metrics.md"))
	require.NoError(t, err)
	_, section, found := strings.Cut(string(data), "\n## Scheduler")
	require.True(t, found, "docs/metrics.md has no Scheduler section")
	section, _, _ = strings.Cut(section, "\n## ")

	code := regexp.MustCompile("`([^`]+)`")
	metrics := map[string][]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`seedscaler_") {
			continue
		}
		name := code.FindStringSubmatch(cells[1])[1]
		labels := []string{}
		for _, m := range code.FindAllStringSubmatch(cells[2], -1) {
			labels = append(labels, m[1])
		}
		sort.Strings(labels)
		require.NotContains(t, metrics, name, "docs/metrics.md lists %s twice", name)
		metrics[name] = labels
	}
	return metrics
}

// The Scheduler section of docs/metrics.md lists exactly the metrics the scheduler
// registers, each with its labels.
func TestDocsListEveryMetric(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	pending := newPendingFits()
	m, err := newMetrics(reg, pending)
	require.NoError(t, err)
	// Make every vector and the pending gauge emit a series.
	m.binds.WithLabelValues("seed-a").Inc()
	m.latency.Observe(0.01)
	set := types.NamespacedName{Namespace: "garden", Name: "set"}
	pending.set("p/shoot", []types.NamespacedName{set}, []types.NamespacedName{set})

	families, err := reg.Gather()
	require.NoError(t, err)
	emitted := map[string][]string{}
	for _, f := range families {
		labels := []string{}
		for _, l := range f.GetMetric()[0].GetLabel() {
			labels = append(labels, l.GetName())
		}
		sort.Strings(labels)
		emitted[f.GetName()] = labels
	}
	assert.Len(t, emitted, 4, "a metric of the scheduler emits no series in this test; extend it")
	assert.Equal(t, emitted, documentedSchedulerMetrics(t),
		"docs/metrics.md (section Scheduler) and the scheduler disagree: every metric must be listed with its labels, and nothing else")
}
