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
			return nil, fmt.Errorf("metric label selector: operator %q on %s is not supported; use =, !=, in, notin, exists or !", r.Operator(), key)
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

// valueQuery is a built value query: the rule's value, and the timestamp of the newest raw
// sample behind each value, both grouped by groupBy. Prometheus stamps an instant query's
// result with the evaluation time; timestamp() of the raw series gives each value its real
// age. The two run side by side at the same evaluation time: joined into one query with
// label_replace and "or", Prometheus took longer for the join than for both halves
// (docs/performance.md).
type valueQuery struct {
	value      string
	timestamps string
	// groupBy are the labels a result is keyed by.
	groupBy []string
}

// key identifies the query in the value cache.
func (q valueQuery) key() string {
	return q.value + "\n" + q.timestamps
}

// buildValueQuery renders a rule's template for one series name and the given matchers, and
// the matching timestamp query.
func buildValueQuery(spec *querySpec, series string, matchers []matcher, groupBy []string) (valueQuery, error) {
	args := queryArgs{
		Series:        series,
		LabelMatchers: joinMatchers(matchers),
		GroupBy:       strings.Join(groupBy, ","),
		Window:        model.Duration(spec.window).String(),
	}
	var value bytes.Buffer
	if err := spec.template.Execute(&value, args); err != nil {
		return valueQuery{}, fmt.Errorf("rendering the metrics query of %s: %w", series, err)
	}
	return valueQuery{
		value:      value.String(),
		timestamps: fmt.Sprintf("max by (%s) (timestamp(%s{%s}))", args.GroupBy, series, args.LabelMatchers),
		groupBy:    groupBy,
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

// result is the outcome of a value query: usable samples and, per group that had something
// unusable, why.
type result struct {
	samples map[string]sample
	missing map[string]missingReason
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
// without a raw sample behind them. A group absent from values is missing too; callers see
// it as absent from result.samples.
func readResult(values, timestamps []promSample, now time.Time, staleness time.Duration) result {
	times := make(map[string]float64, len(timestamps))
	for _, s := range timestamps {
		times[groupKey(s.group...)] = s.value
	}
	res := result{samples: make(map[string]sample, len(values)), missing: map[string]missingReason{}}
	for _, s := range values {
		key := groupKey(s.group...)
		ts, ok := times[key]
		switch {
		case math.IsNaN(s.value) || math.IsInf(s.value, 0):
			res.missing[key] = missingNaN
			continue
		case !ok:
			res.missing[key] = missingNoTimeRef
			continue
		}
		at := time.UnixMilli(int64(math.Round(ts * 1000))).UTC()
		if now.Sub(at) > staleness {
			res.missing[key] = missingStale
			continue
		}
		res.samples[key] = sample{group: s.group, value: s.value, timestamp: at}
	}
	return res
}

// sortedKeys returns the keys of the usable samples in order, for stable answers.
func (r result) sortedKeys() []string {
	keys := make([]string, 0, len(r.samples))
	for k := range r.samples {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
