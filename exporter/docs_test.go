package exporter

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
)

// documentedMetrics parses the Exporter section of docs/metrics.md: the metric and the
// label names of each row of its table.
func documentedMetrics(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "metrics.md"))
	require.NoError(t, err)
	_, section, found := strings.Cut(string(data), "\n## Exporter")
	require.True(t, found, "docs/metrics.md has no Exporter section")
	section, _, _ = strings.Cut(section, "\n## ")

	code := regexp.MustCompile("`([^`]+)`")
	metrics := map[string][]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`garden_") {
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

// The Exporter section of docs/metrics.md lists exactly the metrics the collector emits,
// each with its labels.
func TestDocsListEveryMetric(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(landscape(t)))
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

	// The fixture must make every described metric appear, or this test would miss some.
	described := make(chan *prometheus.Desc, 64)
	landscape(t).Describe(described)
	close(described)
	fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
	for d := range described {
		name := fqName.FindStringSubmatch(d.String())[1]
		assert.Contains(t, emitted, name, "the unit test landscape does not make %s appear; extend it", name)
	}

	assert.Equal(t, emitted, documentedMetrics(t),
		"docs/metrics.md (section Exporter) and the collector disagree: every emitted metric must be listed with its labels, and nothing else")
}
