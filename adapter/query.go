package adapter

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// matcher is one PromQL label matcher.
type matcher struct {
	label string
	op    string // =, !=, =~, !~
	value string
}

func (m matcher) String() string {
	return m.label + m.op + strconv.Quote(m.value)
}

func joinMatchers(ms []matcher) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.String()
	}
	return strings.Join(parts, ",")
}

// selectorMatchers turns a metric label selector of a request into PromQL matchers. Set
// operators become anchored alternations of quoted values; only label names Prometheus
// accepts can be used.
func selectorMatchers(sel labels.Selector) ([]matcher, error) {
	if sel == nil {
		return nil, nil
	}
	reqs, selectable := sel.Requirements()
	if !selectable {
		return nil, nil
	}
	var out []matcher
	for _, r := range reqs {
		key := r.Key()
		if !model.LegacyValidation.IsValidLabelName(key) {
			return nil, fmt.Errorf("metric label selector: %q is not a Prometheus label name", key)
		}
		values := r.Values().List()
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals:
			out = append(out, matcher{key, "=", values[0]})
		case selection.NotEquals:
			out = append(out, matcher{key, "!=", values[0]})
		case selection.In:
			out = append(out, matcher{key, "=~", alternation(values)})
		case selection.NotIn:
			out = append(out, matcher{key, "!~", alternation(values)})
		case selection.Exists:
			out = append(out, matcher{key, "!=", ""})
		case selection.DoesNotExist:
			out = append(out, matcher{key, "=", ""})
		default:
			return nil, fmt.Errorf("metric label selector: operator %q on %s is not supported; use one of =, !=, in, notin, exists and ! (does not exist)", r.Operator(), key)
		}
	}
	return out, nil
}

func alternation(values []string) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = regexp.QuoteMeta(v)
	}
	return strings.Join(quoted, "|")
}

// valueQuery is a built value query: the rule's value, grouped by groupBy, and the
// timestamps of the raw samples behind it. Prometheus stamps an instant query's result with
// the evaluation time; timestamp() of the raw series gives each value its real age. The two
// run side by side at the same evaluation time: joined into one query with label_replace
// and "or", Prometheus took longer for the join than for both halves. The timestamps are
// not grouped unless asked: readResult keeps the newest of each group, which costs the
// adapter less than grouping a thousand series cost Prometheus (docs/performance.md), as
// long as an object has a few raw series, not hundreds.
type valueQuery struct {
	value      string
	timestamps string
	// groupBy are the labels a result is keyed by.
	groupBy []string
	// shape is the rule and series the query was built for.
	shape queryShape
	// groupedTimestamps is whether Prometheus groups the timestamps by groupBy.
	groupedTimestamps bool
}

// queryShape identifies the queries of one rule over one series, whatever their matchers:
// how many raw series stand behind each value is a property of the shape.
type queryShape struct {
	spec   *querySpec
	series string
}

// rawSeriesPerValue is how many raw series per value a shape's timestamps may return
// ungrouped. Exporter replicas give two or three; a rule that sums many series into each
// value (pods into their namespace, say) would have Prometheus send every raw series.
const rawSeriesPerValue = 4

// manyRawSeries reports whether an answer had more raw series than rawSeriesPerValue per
// value, so that the shape's timestamps are better grouped in Prometheus.
func manyRawSeries(values, timestamps int) bool {
	return timestamps > rawSeriesPerValue*max(values, 1)
}

// key identifies the query in the value cache.
func (q valueQuery) key() string {
	return q.value + "\n" + q.timestamps
}

// buildValueQuery renders a rule's template for one series name and the given matchers, and
// the matching timestamp query, grouped by groupBy in Prometheus when groupTimestamps.
// params are the values of an external rule's parameters (takeParams).
func buildValueQuery(spec *querySpec, series string, matchers []matcher, groupBy []string, params map[string]int64, groupTimestamps bool) (valueQuery, error) {
	args := queryArgs{
		Series:        series,
		LabelMatchers: joinMatchers(matchers),
		GroupBy:       strings.Join(groupBy, ","),
		Window:        model.Duration(spec.window).String(),
		Params:        params,
	}
	var value bytes.Buffer
	if err := spec.template.Execute(&value, args); err != nil {
		return valueQuery{}, fmt.Errorf("rendering the metrics query of %s: %w", series, err)
	}
	timestamps := fmt.Sprintf("timestamp(%s{%s})", series, args.LabelMatchers)
	if groupTimestamps {
		timestamps = fmt.Sprintf("max by (%s) (%s)", args.GroupBy, timestamps)
	}
	return valueQuery{
		value:             value.String(),
		timestamps:        timestamps,
		groupBy:           groupBy,
		shape:             queryShape{spec: spec, series: series},
		groupedTimestamps: groupTimestamps,
	}, nil
}

// sample is one usable value of a query result.
type sample struct {
	// group are the values of the query's group labels, in their order.
	group     []string
	value     float64
	timestamp time.Time
}

// labels are the group labels of the sample by name.
func (s sample) labels(groupBy []string) map[string]string {
	out := make(map[string]string, len(groupBy))
	for i, l := range groupBy {
		out[l] = s.group[i]
	}
	return out
}

// missingReason says why a group has no usable value.
type missingReason string

const (
	missingNoSample  missingReason = "no sample"
	missingNaN       missingReason = "NaN"
	missingStale     missingReason = "stale"
	missingNoTimeRef missingReason = "no raw sample timestamp"
)

// result is the outcome of a value query: every group the value half returned, each with
// its sample or the reason it has none, found by its groupKey.
type result struct {
	index  map[string]int
	groups []groupValue
}

// groupValue is one group of a result.
type groupValue struct {
	sample
	// missing says why the sample cannot be used; empty when it can.
	missing missingReason
}

// lookup returns the usable sample of a group, or no sample and why there is none.
func (r result) lookup(key string) (sample, missingReason) {
	i, ok := r.index[key]
	if !ok {
		return sample{}, missingNoSample
	}
	g := r.groups[i]
	if g.missing != "" {
		return sample{}, g.missing
	}
	return g.sample, ""
}

// usable returns the usable samples in the order of their keys, for stable answers.
func (r result) usable() []sample {
	keys := make([]string, 0, len(r.index))
	for k, i := range r.index {
		if r.groups[i].missing == "" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]sample, len(keys))
	for j, k := range keys {
		out[j] = r.groups[r.index[k]].sample
	}
	return out
}

// groupKey keys a result by the values of the group labels, in the order of groupBy.
func groupKey(values ...string) string {
	if len(values) == 1 {
		return values[0]
	}
	return strings.Join(values, "\x00")
}

// readResult pairs the values with the timestamps of their raw samples and sorts out what
// is missing: NaN or infinite values, samples older than staleness at now, and values
// without a raw sample behind them. A group absent from values is missing too, with no
// sample. A value is as old as the newest raw sample of its group, as when two exporter
// replicas report the same series. One map, over the values, serves both the pairing and
// the lookups after it.
func readResult(values, timestamps []promSample, now time.Time, staleness time.Duration) result {
	res := result{index: make(map[string]int, len(values)), groups: make([]groupValue, len(values))}
	for i, s := range values {
		res.index[groupKey(s.group...)] = i
		res.groups[i] = groupValue{sample: sample{group: s.group, value: s.value}, missing: missingNoTimeRef}
	}
	for _, t := range timestamps {
		i, ok := res.index[groupKey(t.group...)]
		if !ok {
			continue // a timestamp alone is not a value
		}
		g := &res.groups[i]
		if at := time.UnixMilli(int64(math.Round(t.value * 1000))).UTC(); g.missing != "" || at.After(g.timestamp) {
			g.timestamp, g.missing = at, ""
		}
	}
	for i := range res.groups {
		g := &res.groups[i]
		if math.IsNaN(g.value) || math.IsInf(g.value, 0) {
			g.missing = missingNaN
		} else if g.missing == "" && now.Sub(g.timestamp) > staleness {
			g.missing = missingStale
		}
	}
	return res
}
