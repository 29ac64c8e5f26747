package adapter

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
	q, err := buildValueQuery(&r.query, "garden_seed_usage", []matcher{{"resource", "=", "shoots"}}, []string{"name"}, nil, false)
	require.NoError(t, err)
	assert.Equal(t, `max by (name) (garden_seed_usage{resource="shoots"})`, q.value)
	assert.Equal(t, `timestamp(garden_seed_usage{resource="shoots"})`, q.timestamps)
	assert.True(t, balanced(q.value))
	assert.True(t, balanced(q.timestamps))
	assert.Equal(t, []string{"name"}, q.groupBy)

	other, err := buildValueQuery(&r.query, "garden_seed_usage", []matcher{{"resource", "=", "cpu"}}, []string{"name"}, nil, false)
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
	q, err := buildValueQuery(&cfg.Rules[0].query, "foo_total", []matcher{{"name", "=", "a"}}, []string{"name"}, nil, false)
	require.NoError(t, err)
	assert.Equal(t, `sum by (name) (rate(foo_total{ name="a" }[5m]))`, q.value)
	assert.Equal(t, `timestamp(foo_total{name="a"})`, q.timestamps)

	grouped, err := buildValueQuery(&cfg.Rules[0].query, "foo_total", []matcher{{"name", "=", "a"}}, []string{"name"}, nil, true)
	require.NoError(t, err)
	assert.Equal(t, q.value, grouped.value)
	assert.Equal(t, `max by (name) (timestamp(foo_total{name="a"}))`, grouped.timestamps)
	assert.NotEqual(t, q.key(), grouped.key(), "the cache tells the two forms apart")
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

	s, reason := res.lookup("fresh")
	require.Empty(t, reason)
	assert.Equal(t, 7.0, s.value)
	assert.Equal(t, fresh, s.timestamp, "the value carries its sample's time, not the query's")
	assert.Equal(t, map[string]string{"name": "fresh"}, s.labels([]string{"name"}))
	s, reason = res.lookup("zero")
	require.Empty(t, reason, "a real 0 is a value")
	assert.Equal(t, 0.0, s.value)

	for key, want := range map[string]missingReason{"nan": missingNaN, "inf": missingNaN, "stale": missingStale, "untimed": missingNoTimeRef, "absent": missingNoSample, "timed-only": missingNoSample} {
		_, reason := res.lookup(key)
		assert.Equal(t, want, reason, key)
	}
	var usable []string
	for _, s := range res.usable() {
		usable = append(usable, s.group[0])
	}
	assert.Equal(t, []string{"fresh", "zero"}, usable, "a timestamp is not a value, and what is missing is left out")

	empty := readResult(nil, nil, now, 2*time.Minute)
	assert.Empty(t, empty.usable())
}

// The timestamps are of raw series, several to a group when exporter replicas report the
// same seed: the value is as old as the newest of them, in whatever order they come.
func TestReadResultTakesTheNewestSampleOfAGroup(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ts := func(ago time.Duration) float64 { return float64(now.Add(-ago).UnixMilli()) / 1000 }
	at := func(name string, v float64) promSample { return promSample{group: []string{name}, value: v} }
	values := []promSample{at("newest-last", 1), at("newest-first", 2), at("one-stale", 3)}
	timestamps := []promSample{
		at("newest-last", ts(30*time.Second)), at("newest-last", ts(10*time.Second)),
		at("newest-first", ts(5*time.Second)), at("newest-first", ts(50*time.Second)),
		at("one-stale", ts(5*time.Minute)), at("one-stale", ts(20*time.Second)), at("one-stale", ts(3*time.Minute)),
	}
	res := readResult(values, timestamps, now, 2*time.Minute)
	for key, want := range map[string]time.Duration{"newest-last": 10 * time.Second, "newest-first": 5 * time.Second, "one-stale": 20 * time.Second} {
		s, reason := res.lookup(key)
		if assert.Empty(t, reason, key) {
			assert.Equal(t, now.Add(-want), s.timestamp, key)
		}
	}
}

// Groups of several labels key by all of them, in the order of groupBy.
func TestReadResultKeysByEveryGroupLabel(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ts := float64(now.Add(-time.Second).UnixMilli()) / 1000
	values := []promSample{{group: []string{"a", "ns1"}, value: 1}, {group: []string{"a", "ns2"}, value: 2}}
	timestamps := []promSample{{group: []string{"a", "ns1"}, value: ts}, {group: []string{"a", "ns2"}, value: ts}}
	res := readResult(values, timestamps, now, time.Minute)
	ns1, _ := res.lookup(groupKey("a", "ns1"))
	assert.Equal(t, 1.0, ns1.value)
	ns2, _ := res.lookup(groupKey("a", "ns2"))
	assert.Equal(t, 2.0, ns2.value)
	assert.Equal(t, map[string]string{"set": "a", "namespace": "ns2"}, ns2.labels([]string{"set", "namespace"}))
	_, reason := res.lookup(groupKey("a", "ns3"))
	assert.Equal(t, missingNoSample, reason)
}

func TestBalanced(t *testing.T) {
	assert.True(t, balanced(`max by (a) (x{a="(",b=~"[}"})`))
	assert.False(t, balanced(`max by (a (x)`))
	assert.False(t, balanced(`x{a="b"`))
	assert.False(t, balanced(`x)(`))
}

// BenchmarkBuildList pairs the two halves of an answer over 1,000 seeds and builds the
// list of values for 1,000 names, as a list request does once Prometheus has answered:
// the adapter's own work between decoding and the generic apiserver's encoding.
func BenchmarkBuildList(b *testing.B) {
	const seeds = 1000
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ts := float64(now.Add(-5*time.Second).UnixMilli()) / 1000
	names := make([]string, seeds)
	values := make([]promSample, seeds)
	timestamps := make([]promSample, seeds)
	for i := range seeds {
		names[i] = fmt.Sprintf("bench-%04d", i)
		values[i] = promSample{group: []string{names[i]}, value: float64(i % 250)}
		timestamps[i] = promSample{group: []string{names[i]}, value: ts}
	}
	cfg, err := DefaultConfig()
	require.NoError(b, err)
	p := &Provider{cfg: cfg, kinds: map[schema.GroupResource]schema.GroupVersionKind{
		cfg.Rules[0].GroupResource(): {Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Seed"},
	}}
	shoots := labels.SelectorFromSet(labels.Set{"resource": "shoots"})
	b.ReportAllocs()
	for b.Loop() {
		res := readResult(values, timestamps, now, 2*time.Minute)
		list := p.buildList(&cfg.Rules[0], "garden_seed_usage", "", names, shoots, res)
		if len(list.Items) != seeds {
			b.Fatalf("%d values, want %d", len(list.Items), seeds)
		}
	}
}
