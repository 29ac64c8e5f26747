package exporter

import (
	"regexp"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/test/framework/metricsdoc"
)

// The Exporter section of docs/metrics.md lists exactly the metrics the collector emits,
// each with its labels.
func TestDocsListEveryMetric(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(landscape(t)))
	emitted := metricsdoc.AssertSection(t, reg, "Exporter", "garden_")

	// The fixture must make every described metric appear, or this test would miss some.
	described := make(chan *prometheus.Desc, 64)
	landscape(t).Describe(described)
	close(described)
	fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
	for d := range described {
		name := fqName.FindStringSubmatch(d.String())[1]
		assert.Contains(t, emitted, name, "the unit test landscape does not make %s appear; extend it", name)
	}
}
