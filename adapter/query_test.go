package adapter

import (
	"math"
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

// A list over many seeds is one value query and one timestamp query, both filtered by
// labels: no object name is in them.
func TestBuildValueQueryIsFilteredByLabelsOnly(t *testing.T) {
	cfg, err := DefaultConfig()
	require.NoError(t, err)
	r := &cfg.Rules[0]
	q, err := buildValueQuery(&r.query, "garden_seed_usage", []matcher{{"resource", "=", "shoots"}}, []string{"name"})
	require.NoError(t, err)
	assert.Equal(t, `max by (name) (garden_seed_usage{resource="shoots"})`, q.value)
	assert.Equal(t, `max by (name) (timestamp(garden_seed_usage{resource="shoots"}))`, q.timestamps)
	assert.True(t, balanced(q.value))
	assert.True(t, balanced(q.timestamps))
	assert.Equal(t, []string{"name"}, q.groupBy)

	other, err := buildValueQuery(&r.query, "garden_seed_usage", []matcher{{"resource", "=", "cpu"}}, []string{"name"})
	require.NoError(t, err)
	assert.NotEqual(t, q.key(), other.key(), "the cache tells queries apart")
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
	assert.Equal(t, `sum by (name) (rate(foo_total{ name="a" }[5m]))`, q.value)
	assert.Equal(t, `max by (name) (timestamp(foo_total{name="a"}))`, q.timestamps)
}

// A value is only a value with a fresh raw sample behind it: NaN, stale, or without a
// timestamp it is missing, and an absent series is never read as 0.
func TestReadResultSortsOutMissingValues(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	fresh := now.Add(-15 * time.Second)
	old := now.Add(-3 * time.Minute)
	ts := func(at time.Time) float64 { return float64(at.UnixMilli()) / 1000 }
	at := func(name string, v float64) promSample { return promSample{group: []string{name}, value: v} }
	values := []promSample{at("fresh", 7), at("zero", 0), at("nan", math.NaN()), at("inf", math.Inf(1)), at("stale", 3), at("untimed", 3)}
	timestamps := []promSample{at("fresh", ts(fresh)), at("zero", ts(fresh)), at("nan", ts(fresh)), at("inf", ts(fresh)), at("stale", ts(old)), at("timed-only", ts(fresh))}
	res := readResult(values, timestamps, now, 2*time.Minute)

	require.Contains(t, res.samples, "fresh")
	assert.Equal(t, 7.0, res.samples["fresh"].value)
	assert.Equal(t, fresh, res.samples["fresh"].timestamp, "the value carries its sample's time, not the query's")
	assert.Equal(t, map[string]string{"name": "fresh"}, res.samples["fresh"].labels([]string{"name"}))
	require.Contains(t, res.samples, "zero", "a real 0 is a value")
	assert.Equal(t, 0.0, res.samples["zero"].value)

	assert.Equal(t, map[string]missingReason{"nan": missingNaN, "inf": missingNaN, "stale": missingStale, "untimed": missingNoTimeRef}, res.missing)
	assert.NotContains(t, res.samples, "absent")
	assert.NotContains(t, res.samples, "timed-only", "a timestamp is not a value")
	assert.Equal(t, []string{"fresh", "zero"}, res.sortedKeys())

	empty := readResult(nil, nil, now, 2*time.Minute)
	assert.Empty(t, empty.samples)
}

// Groups of several labels key by all of them, in the order of groupBy.
func TestReadResultKeysByEveryGroupLabel(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ts := float64(now.Add(-time.Second).UnixMilli()) / 1000
	values := []promSample{{group: []string{"a", "ns1"}, value: 1}, {group: []string{"a", "ns2"}, value: 2}}
	timestamps := []promSample{{group: []string{"a", "ns1"}, value: ts}, {group: []string{"a", "ns2"}, value: ts}}
	res := readResult(values, timestamps, now, time.Minute)
	assert.Equal(t, 1.0, res.samples[groupKey("a", "ns1")].value)
	assert.Equal(t, 2.0, res.samples[groupKey("a", "ns2")].value)
	assert.Equal(t, map[string]string{"set": "a", "namespace": "ns2"}, res.samples[groupKey("a", "ns2")].labels([]string{"set", "namespace"}))
}

func TestBalanced(t *testing.T) {
	assert.True(t, balanced(`max by (a) (x{a="(",b=~"[}"})`))
	assert.False(t, balanced(`max by (a (x)`))
	assert.False(t, balanced(`x{a="b"`))
	assert.False(t, balanced(`x)(`))
}
