package exporter

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parse reads a text exposition into families, each re-encoded on its own for comparison.
func parse(t *testing.T, text string) map[string]string {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(text))
	require.NoError(t, err, "the exposition does not parse:\n%s", text)
	out := map[string]string{}
	for name, f := range families {
		var b bytes.Buffer
		_, err := expfmt.MetricFamilyToText(&b, f)
		require.NoError(t, err)
		out[name] = b.String()
	}
	return out
}

// The handler serves exactly what a registry would: the same families, series and values,
// garden_shoot_info included, and it is the only place that family comes from.
func TestHandlerServesWhatTheRegistryWould(t *testing.T) {
	viaRegistry := prometheus.NewPedanticRegistry()
	require.NoError(t, viaRegistry.Register(landscape(t)))
	families, err := viaRegistry.Gather()
	require.NoError(t, err)
	var want bytes.Buffer
	for _, f := range families {
		_, err := expfmt.MetricFamilyToText(&want, f)
		require.NoError(t, err)
	}

	c := landscape(t)
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(c))
	rec := httptest.NewRecorder()
	c.Handler(reg).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	assert.True(t, strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain; version=0.0.4"), rec.Header().Get("Content-Type"))

	got := parse(t, rec.Body.String())
	assert.Equal(t, parse(t, want.String()), got)
	require.Contains(t, got, "garden_shoot_info")
	assert.Equal(t, 1, strings.Count(rec.Body.String(), "# TYPE garden_shoot_info "), "garden_shoot_info served twice")

	// The registry alone no longer carries it: nothing else can serve it twice.
	gathered, err := reg.Gather()
	require.NoError(t, err)
	names := make([]string, 0, len(gathered))
	for _, f := range gathered {
		names = append(names, f.GetName())
	}
	sort.Strings(names)
	assert.NotContains(t, names, "garden_shoot_info")
}

// Label values are escaped as the text format wants them.
func TestShootInfoLineEscapesLabelValues(t *testing.T) {
	line := (&shootInfo{name: `a"b`, namespace: `c\d`, purpose: "e\nf"}).textLine()
	families := parse(t, "# TYPE garden_shoot_info gauge\n"+string(line))
	require.Contains(t, families, "garden_shoot_info")
	parser := expfmt.NewTextParser(model.UTF8Validation)
	parsed, err := parser.TextToMetricFamilies(strings.NewReader(string(line)))
	require.NoError(t, err)
	labels := map[string]string{}
	for _, l := range parsed["garden_shoot_info"].GetMetric()[0].GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	assert.Equal(t, map[string]string{"name": `a"b`, "namespace": `c\d`, "purpose": "e\nf", "provider": "", "region": "", "seed": ""}, labels)
}
