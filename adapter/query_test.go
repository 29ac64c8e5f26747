package adapter

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
)

func TestSelectorMatchers(t *testing.T) {
	tests := []struct {
		selector string
		want     string
		err      string
	}{
		{"", "", ""},
		{"resource=shoots", `resource="shoots"`, ""},
		{"resource!=shoots", `resource!="shoots"`, ""},
		{"resource in (shoots,cpu.x)", `resource=~"cpu\\.x|shoots"`, ""},
		{"resource notin (shoots)", `resource!~"shoots"`, ""},
		{"resource", `resource!=""`, ""},
		{"!resource", `resource=""`, ""},
		{"a=1,b=2", `a="1",b="2"`, ""},
		{"example.com/x=1", "", `"example.com/x" is not a Prometheus label name`},
		{"a>1", "", `operator "gt" on a is not supported`},
	}
	for _, tt := range tests {
		t.Run(tt.selector, func(t *testing.T) {
			sel, err := labels.Parse(tt.selector)
			require.NoError(t, err)
			ms, err := selectorMatchers(sel)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, joinMatchers(ms))
		})
	}
}

// A list over many seeds is one query filtered by labels: no object name is in it.
func TestBuildValueQueryIsOneQueryFilteredByLabels(t *testing.T) {
	cfg, err := DefaultConfig()
	require.NoError(t, err)
	r := &cfg.Rules[0]
	q, err := buildValueQuery(&r.query, "garden_seed_usage", []matcher{{"resource", "=", "shoots"}}, []string{"name"})
	require.NoError(t, err)
	assert.Equal(t,
		`label_replace(max by (name) (garden_seed_usage{resource="shoots"}), "seedscaler_adapter_part", "value", "", "")`+
			` or label_replace(max by (name) (timestamp(garden_seed_usage{resource="shoots"})), "seedscaler_adapter_part", "timestamp", "", "")`,
		q.promQL)
	assert.True(t, balanced(q.promQL))
}

func TestBuildValueQueryRendersTheWindow(t *testing.T) {
	cfg, err := ParseConfig([]byte(`
rules:
- name: r
  seriesQuery: foo_total
  resource: {group: core.gardener.cloud, resource: seeds}
  objectLabel: name
  window: 5m
  metricsQuery: 'sum by ({{.GroupBy}}) (rate({{.Series}}{ {{.LabelMatchers}} }[{{.Window}}]))'
`))
	require.NoError(t, err)
	q, err := buildValueQuery(&cfg.Rules[0].query, "foo_total", []matcher{{"name", "=", "a"}}, []string{"name"})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(q.promQL, `label_replace(sum by (name) (rate(foo_total{ name="a" }[5m])), `), q.promQL)
}

func vectorSample(name, part string, v float64) promSample {
	return promSample{labels: map[string]string{"name": name, partLabel: part}, value: v}
}

// A value is only a value with a fresh raw sample behind it: NaN, stale, or without a
// timestamp it is missing, and an absent series is never read as 0.
func TestReadResultSortsOutMissingValues(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	fresh := now.Add(-15 * time.Second)
	old := now.Add(-3 * time.Minute)
	ts := func(at time.Time) float64 { return float64(at.UnixMilli()) / 1000 }
	vec := []promSample{
		vectorSample("fresh", partValue, 7), vectorSample("fresh", partTimestamp, ts(fresh)),
		vectorSample("zero", partValue, 0), vectorSample("zero", partTimestamp, ts(fresh)),
		vectorSample("nan", partValue, math.NaN()), vectorSample("nan", partTimestamp, ts(fresh)),
		vectorSample("inf", partValue, math.Inf(1)), vectorSample("inf", partTimestamp, ts(fresh)),
		vectorSample("stale", partValue, 3), vectorSample("stale", partTimestamp, ts(old)),
		vectorSample("untimed", partValue, 3),
	}
	res := readResult(vec, []string{"name"}, now, 2*time.Minute)

	require.Contains(t, res.samples, "fresh")
	assert.Equal(t, 7.0, res.samples["fresh"].value)
	assert.Equal(t, fresh, res.samples["fresh"].timestamp, "the value carries its sample's time, not the query's")
	assert.Equal(t, map[string]string{"name": "fresh"}, res.samples["fresh"].labels)
	require.Contains(t, res.samples, "zero", "a real 0 is a value")
	assert.Equal(t, 0.0, res.samples["zero"].value)

	assert.Equal(t, map[string]missingReason{"nan": missingNaN, "inf": missingNaN, "stale": missingStale, "untimed": missingNoTimeRef}, res.missing)
	assert.NotContains(t, res.samples, "absent")
	assert.Equal(t, []string{"fresh", "zero"}, res.sortedKeys())

	empty := readResult(nil, []string{"name"}, now, 2*time.Minute)
	assert.Empty(t, empty.samples)
}

func TestBalanced(t *testing.T) {
	assert.True(t, balanced(`max by (a) (x{a="(",b=~"[}"})`))
	assert.False(t, balanced(`max by (a (x)`))
	assert.False(t, balanced(`x{a="b"`))
	assert.False(t, balanced(`x)(`))
}
