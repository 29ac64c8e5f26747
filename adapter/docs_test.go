package adapter

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

// The Adapter section of docs/metrics.md lists exactly the adapter's own metrics, each with
// its labels.
func TestDocsListEveryMetric(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := NewMetrics(reg)
	require.NoError(t, err)
	m.queryDuration.WithLabelValues(queryKindValue).Observe(0.01)
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

	data, err := os.ReadFile(filepath.Join("..", "docs", "metrics.md"))
	require.NoError(t, err)
	_, section, found := strings.Cut(string(data), "\n## Adapter")
	require.True(t, found, "docs/metrics.md has no Adapter section")
	section, _, _ = strings.Cut(section, "\n## ")
	code := regexp.MustCompile("`([^`]+)`")
	documented := map[string][]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`seedscaler_adapter_") {
			continue
		}
		labels := []string{}
		for _, l := range code.FindAllStringSubmatch(cells[2], -1) {
			labels = append(labels, l[1])
		}
		sort.Strings(labels)
		documented[code.FindStringSubmatch(cells[1])[1]] = labels
	}
	assert.Equal(t, emitted, documented, "docs/metrics.md (section Adapter) and the adapter's metrics disagree")
}
