// Package adapter serves custom.metrics.k8s.io and external.metrics.k8s.io from Prometheus:
// rules map Prometheus series to Kubernetes objects, a provider answers the metrics APIs from
// them, and a server runs it behind the kube-apiserver's aggregation layer.
package adapter

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// querySpec is what rules and external rules share once compiled.
type querySpec struct {
	matches  *regexp.Regexp
	as       string
	template *template.Template
	window   time.Duration
	params   []Parameter
}

// compile compiles the rule's metric name mapping and value query, which every request
// of its metrics uses.
func (r *Rule) compile(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	r.query, errs = compileQuerySpec(path, r.Name, r.MetricName, r.MetricsQuery, r.Window.Duration, nil)
	return errs
}

// compile compiles the external rule's metric name mapping and value query, which every
// request of its metrics uses.
func (r *ExternalRule) compile(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	r.query, errs = compileQuerySpec(path, r.Name, r.MetricName, r.MetricsQuery, r.Window.Duration, r.Parameters)
	return errs
}

// compileQuerySpec compiles what a rule at path shares with the other kind of rule: an
// error names the field of the regular expression or template that does not compile.
func compileQuerySpec(path *field.Path, name string, metricName MetricName, metricsQuery string, window time.Duration, params []Parameter) (querySpec, field.ErrorList) {
	var errs field.ErrorList
	spec := querySpec{as: metricName.As, window: window, params: params}
	var err error
	if spec.matches, err = compileMatches(metricName.Matches); err != nil {
		errs = append(errs, field.Invalid(path.Child("metricName", "matches"), metricName.Matches, err.Error()))
	}
	if spec.template, err = compileQuery(name, metricsQuery, spec.sampleParams()); err != nil {
		errs = append(errs, field.Invalid(path.Child("metricsQuery"), metricsQuery, err.Error()))
	}
	return spec, errs
}

// printable is a rule name as errors and logs show it: as written, or quoted when it holds
// a line break or another character that would garble the message.
func printable(name string) string {
	if strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(name)
	}
	return name
}

// compileMatches compiles metricName.matches to match whole series names; empty matches
// every name.
func compileMatches(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		expr = ".*"
	}
	// Parsed alone first, so that an error quotes the expression as written, not anchored.
	if _, err := syntax.Parse(expr, syntax.Perl); err != nil {
		var syntaxErr *syntax.Error
		if errors.As(err, &syntaxErr) {
			return nil, fmt.Errorf("bad regular expression: %s: %q", syntaxErr.Code, syntaxErr.Expr)
		}
		return nil, fmt.Errorf("bad regular expression: %w", err)
	}
	re, err := regexp.Compile("^(?:" + expr + ")$")
	if err != nil {
		return nil, fmt.Errorf("bad regular expression: %w", err)
	}
	return re, nil
}

// queryArgs are what a metricsQuery template can use.
type queryArgs struct {
	// Series is the Prometheus metric name.
	Series string
	// LabelMatchers are the comma-separated matchers that select the requested objects or
	// external series (no braces).
	LabelMatchers string
	// GroupBy are the comma-separated labels each value is kept apart by.
	GroupBy string
	// Window is the rule's window as a PromQL duration, e.g. 5m.
	Window string
	// Params are the values of an external rule's parameters, by name.
	Params map[string]int64
}

// queryFuncs are the functions a metricsQuery template may call besides Go's: sub for an
// offset computed from two parameters, {{sub .Params.period_seconds .Params.lead_seconds}},
// and div for a part of one, {{div .Params.window_seconds 4}} (whole seconds, rounded down).
var queryFuncs = template.FuncMap{
	"sub": func(a, b int64) int64 { return a - b },
	"div": func(a, b int64) (int64, error) {
		if b == 0 {
			return 0, errors.New("div by zero")
		}
		return a / b, nil
	},
}

// Sentinels rendered into a template at start-up to check it uses every placeholder a
// correct query needs.
const (
	sentinelMatchers = `seedscaler_sentinel_matchers="x"`
	sentinelGroupBy  = `seedscaler_sentinel_group`
)

func compileQuery(name, text string, params map[string]int64) (*template.Template, error) {
	t, err := template.New(printable(name)).Funcs(queryFuncs).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("bad template: %w", err)
	}
	// Render once with sample arguments, so a template that cannot produce a query fails
	// start-up rather than the first request.
	var out bytes.Buffer
	if err := t.Execute(&out, queryArgs{Series: "sample_metric", LabelMatchers: sentinelMatchers, GroupBy: sentinelGroupBy, Window: "5m", Params: params}); err != nil {
		return nil, fmt.Errorf("bad template: %w", err)
	}
	rendered := out.String()
	if !strings.Contains(rendered, sentinelMatchers) {
		return nil, errors.New("the template does not use {{.LabelMatchers}}; without it a request would read every object's series, put it in the series' braces")
	}
	if !strings.Contains(rendered, sentinelGroupBy) {
		return nil, errors.New("the template does not use {{.GroupBy}}; without it values of different objects would be mixed, aggregate with by ({{.GroupBy}})")
	}
	if !balanced(rendered) {
		return nil, fmt.Errorf("renders to %q, whose brackets do not balance", rendered)
	}
	return t, nil
}

// balanced reports whether (), [] and {} nest properly outside of quoted strings.
func balanced(s string) bool {
	var stack []rune
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	var quote rune
	escaped := false
	for _, c := range s {
		if quote != 0 {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'', '`':
			quote = c
		case '(', '[', '{':
			stack = append(stack, c)
		case ')', ']', '}':
			if len(stack) == 0 || stack[len(stack)-1] != pairs[c] {
				return false
			}
			stack = stack[:len(stack)-1]
		}
	}
	return len(stack) == 0 && quote == 0
}

// exposedName maps a series name to the exposed metric name; ok is false when the rule
// does not expose the series.
func (q *querySpec) exposedName(series string) (string, bool) {
	m := q.matches.FindStringSubmatchIndex(series)
	if m == nil {
		return "", false
	}
	if q.as == "" {
		return series, true
	}
	return string(q.matches.ExpandString(nil, q.as, series, m)), true
}

// GroupResource of the rule's objects.
func (r *Rule) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: r.Resource.Group, Resource: r.Resource.Resource}
}

// Namespaced reports whether the rule's objects live in namespaces.
func (r *Rule) Namespaced() bool { return r.NamespaceLabel != "" }
