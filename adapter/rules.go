// Package adapter serves custom.metrics.k8s.io and external.metrics.k8s.io from Prometheus:
// rules map Prometheus series to Kubernetes objects, a provider answers the metrics APIs from
// them, and a server runs it behind the kube-apiserver's aggregation layer.
package adapter

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode"

	"github.com/prometheus/common/model"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/seedscaler/seedscaler/internal/yamltext"
)

// defaultRulesYAML is the configuration used when --config is not given.
//
//go:embed default-rules.yaml
var defaultRulesYAML []byte

// APIVersion and Kind identify the configuration file format.
const (
	APIVersion = "adapter.seedscaler.io/v1alpha1"
	Kind       = "AdapterConfiguration"
)

// Defaults of the tunables in a configuration file.
const (
	DefaultDiscoveryInterval  = 30 * time.Second
	DefaultDiscoveryRetention = 10 * time.Minute
	DefaultCacheTTL           = 5 * time.Second
	DefaultStaleness          = 2 * time.Minute

	// DefaultMetricsQuery keeps one value per group (object, or external label set): the
	// largest, so that two exporter replicas reporting the same series are not added up.
	DefaultMetricsQuery = `max by ({{.GroupBy}}) ({{.Series}}{{"{"}}{{.LabelMatchers}}{{"}"}})`
)

// Config is a parsed, defaulted and validated configuration file.
type Config struct {
	// apiVersion is adapter.seedscaler.io/v1alpha1.
	APIVersion string `json:"apiVersion"`
	// kind is AdapterConfiguration.
	Kind string `json:"kind"`
	// discovery tunes how the list of available metrics is kept.
	Discovery DiscoveryConfig `json:"discovery"`
	// values tunes how metric values are fetched.
	Values ValuesConfig `json:"values"`
	// rules map series to Kubernetes objects for custom.metrics.k8s.io.
	Rules []Rule `json:"rules"`
	// externalRules map series to external.metrics.k8s.io metrics.
	ExternalRules []ExternalRule `json:"externalRules"`
}

// DiscoveryConfig tunes discovery.
type DiscoveryConfig struct {
	// interval between two runs of every rule's series query.
	Interval metav1.Duration `json:"interval"`
	// retention is how long a metric stays listed after it was last seen. Discovery asks
	// Prometheus for the series of this whole window, so a metric never flickers out of the
	// list because one scrape was late or failed.
	Retention metav1.Duration `json:"retention"`
}

// ValuesConfig tunes value queries.
type ValuesConfig struct {
	// cacheTTL is how long the result of a value query is reused; 0 disables the cache.
	CacheTTL *metav1.Duration `json:"cacheTTL,omitempty"`
	// staleness is the age beyond which a sample counts as missing.
	Staleness metav1.Duration `json:"staleness"`
}

// GroupResource names the Kubernetes resource a rule's series describe.
type GroupResource struct {
	// group of the resource, e.g. core.gardener.cloud.
	Group string `json:"group"`
	// resource is the plural resource name, e.g. seeds.
	Resource string `json:"resource"`
}

// MetricName says how a series name becomes the exposed metric name.
type MetricName struct {
	// matches is a regular expression over the series name; series that do not match are
	// not exposed by the rule. Empty matches every series name.
	Matches string `json:"matches,omitempty"`
	// as is the exposed name, with $1-style references to groups of matches; empty is the
	// series name itself.
	As string `json:"as,omitempty"`
}

// Rule maps series to objects of one resource.
type Rule struct {
	// name identifies the rule in errors and logs.
	Name string `json:"name"`
	// seriesQuery is a PromQL series selector that finds the rule's series during discovery.
	SeriesQuery string `json:"seriesQuery"`
	// resource is the group and resource of the described objects.
	Resource GroupResource `json:"resource"`
	// objectLabel is the series label holding the object's name.
	ObjectLabel string `json:"objectLabel"`
	// namespaceLabel is the series label holding the object's namespace; empty for
	// cluster-scoped resources such as Seeds.
	NamespaceLabel string `json:"namespaceLabel,omitempty"`
	// metricName maps series names to exposed metric names.
	MetricName MetricName `json:"metricName,omitempty"`
	// metricsQuery is a Go template of the value query; DefaultMetricsQuery when empty.
	MetricsQuery string `json:"metricsQuery,omitempty"`
	// window is the range a metricsQuery computes over (e.g. of rate()), reported as the
	// value's window and available to the template as {{.Window}}; 0 for gauges.
	Window metav1.Duration `json:"window,omitempty"`

	query querySpec
}

// ExternalRule maps series to external metrics.
type ExternalRule struct {
	// name identifies the rule in errors and logs.
	Name string `json:"name"`
	// seriesQuery is a PromQL series selector that finds the rule's series during discovery.
	SeriesQuery string `json:"seriesQuery"`
	// namespaceLabel, when set, restricts a request in a namespace to series with that
	// namespace in this label; when empty, every namespace sees every series.
	NamespaceLabel string `json:"namespaceLabel,omitempty"`
	// groupBy are the labels that tell the returned values apart; each value carries them as
	// its metric labels. Empty aggregates to a single value.
	GroupBy []string `json:"groupBy,omitempty"`
	// metricName maps series names to exposed metric names.
	MetricName MetricName `json:"metricName,omitempty"`
	// metricsQuery is a Go template of the value query; DefaultMetricsQuery when empty.
	MetricsQuery string `json:"metricsQuery,omitempty"`
	// window as in Rule.
	Window metav1.Duration `json:"window,omitempty"`
	// parameters are whole numbers a request passes to the query as label selector keys of
	// their own (lead_seconds=900): each is required, checked against its bounds, removed
	// from the label matchers and available to the template as {{.Params.<name>}}.
	Parameters []Parameter `json:"parameters,omitempty"`

	query querySpec
}

// Parameter is a whole number an external rule's query takes from the request. Only a
// number within the bounds reaches the query, never the request's text.
type Parameter struct {
	// name is the label selector key that carries the parameter, e.g. lead_seconds.
	Name string `json:"name"`
	// min and max bound the value, both included.
	Min int64 `json:"min"`
	Max int64 `json:"max"`
}

// querySpec is what rules and external rules share once compiled.
type querySpec struct {
	matches  *regexp.Regexp
	as       string
	template *template.Template
	window   time.Duration
	params   []Parameter
}

// DefaultConfig returns the built-in rules.
func DefaultConfig() (*Config, error) {
	cfg, err := ParseConfig(defaultRulesYAML)
	if err != nil {
		return nil, fmt.Errorf("built-in adapter rules: %w", err)
	}
	return cfg, nil
}

// LoadConfig reads and validates a configuration file; an empty path means the built-in rules.
func LoadConfig(path string) (*Config, error) {
	if path == "" {
		return DefaultConfig()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading adapter configuration: %w", err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("adapter configuration %s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig parses a configuration file, fills defaults and validates everything that can
// be checked without a cluster. Every error names the rule and the field.
func ParseConfig(data []byte) (*Config, error) {
	cfg := &Config{}
	if err := yamltext.Check(data); err != nil {
		return nil, fmt.Errorf("parsing adapter configuration: %w", err)
	}
	if err := yaml.UnmarshalStrict(data, cfg); err != nil {
		err = yamltext.Locate(data, err, func(part []byte) error { return yaml.UnmarshalStrict(part, &Config{}) })
		return nil, fmt.Errorf("parsing adapter configuration: %w", err)
	}
	cfg.setDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

func (c *Config) setDefaults() {
	if c.APIVersion == "" {
		c.APIVersion = APIVersion
	}
	if c.Kind == "" {
		c.Kind = Kind
	}
	if c.Discovery.Interval.Duration == 0 {
		c.Discovery.Interval.Duration = DefaultDiscoveryInterval
	}
	if c.Discovery.Retention.Duration == 0 {
		c.Discovery.Retention.Duration = DefaultDiscoveryRetention
	}
	if c.Values.CacheTTL == nil {
		c.Values.CacheTTL = &metav1.Duration{Duration: DefaultCacheTTL}
	}
	if c.Values.Staleness.Duration == 0 {
		c.Values.Staleness.Duration = DefaultStaleness
	}
	for i := range c.Rules {
		if c.Rules[i].MetricsQuery == "" {
			c.Rules[i].MetricsQuery = DefaultMetricsQuery
		}
	}
	for i := range c.ExternalRules {
		if c.ExternalRules[i].MetricsQuery == "" {
			c.ExternalRules[i].MetricsQuery = DefaultMetricsQuery
		}
	}
}

func (c *Config) validate() error {
	var errs []error
	if c.APIVersion != APIVersion {
		errs = append(errs, fmt.Errorf("apiVersion: %q is not supported; use %s", c.APIVersion, APIVersion))
	}
	if c.Kind != Kind {
		errs = append(errs, fmt.Errorf("kind: %q is not supported; use %s", c.Kind, Kind))
	}
	if c.Discovery.Interval.Duration < 0 {
		errs = append(errs, errors.New("discovery.interval: must be positive, e.g. 30s"))
	}
	if c.Discovery.Retention.Duration < c.Discovery.Interval.Duration {
		errs = append(errs, fmt.Errorf("discovery.retention: %s is shorter than discovery.interval %s; a metric would drop out between two discoveries, make it at least the interval",
			c.Discovery.Retention.Duration, c.Discovery.Interval.Duration))
	}
	if c.Values.CacheTTL.Duration < 0 {
		errs = append(errs, errors.New("values.cacheTTL: must not be negative; 0 disables the cache"))
	}
	if c.Values.Staleness.Duration < 0 {
		errs = append(errs, errors.New("values.staleness: must be positive, e.g. 2m"))
	}
	if len(c.Rules) == 0 && len(c.ExternalRules) == 0 {
		errs = append(errs, errors.New("rules: no rules and no externalRules; the adapter would serve nothing, add at least one rule"))
	}
	names := map[string]bool{}
	unique := func(field func(string, string) error, name string) {
		if name == "" {
			return
		}
		if names[name] {
			errs = append(errs, field("name", "used by another rule; rule names must be unique"))
		}
		names[name] = true
	}
	for i := range c.Rules {
		r := &c.Rules[i]
		field := fieldNamer("rules", i, r.Name)
		unique(field, r.Name)
		errs = append(errs, r.compile(field)...)
	}
	for i := range c.ExternalRules {
		r := &c.ExternalRules[i]
		field := fieldNamer("externalRules", i, r.Name)
		unique(field, "external/"+r.Name)
		errs = append(errs, r.compile(field)...)
	}
	return errors.Join(errs...)
}

func (r *Rule) compile(field func(string, string) error) []error {
	var errs []error
	if r.Name == "" {
		errs = append(errs, field("name", "required, names the rule in errors and logs"))
	}
	errs = append(errs, validateSeriesQuery(field, r.SeriesQuery)...)
	if r.Resource.Resource == "" {
		errs = append(errs, field("resource.resource", "required, the plural resource name, e.g. seeds"))
	} else if r.Resource.Resource != strings.ToLower(r.Resource.Resource) {
		errs = append(errs, field("resource.resource", fmt.Sprintf("%q must be the lower-case plural resource name, e.g. seeds", r.Resource.Resource)))
	}
	if r.Resource.Group == "" {
		errs = append(errs, field("resource.group", "required, e.g. core.gardener.cloud"))
	}
	if r.ObjectLabel == "" {
		errs = append(errs, field("objectLabel", "required, the series label holding the object's name, e.g. name"))
	} else if !model.LegacyValidation.IsValidLabelName(r.ObjectLabel) {
		errs = append(errs, field("objectLabel", fmt.Sprintf("%q is not a Prometheus label name", r.ObjectLabel)))
	}
	if r.NamespaceLabel != "" && !model.LegacyValidation.IsValidLabelName(r.NamespaceLabel) {
		errs = append(errs, field("namespaceLabel", fmt.Sprintf("%q is not a Prometheus label name", r.NamespaceLabel)))
	}
	spec, specErrs := compileQuerySpec(field, r.Name, r.MetricName, r.MetricsQuery, r.Window.Duration, nil)
	r.query = spec
	return append(errs, specErrs...)
}

func (r *ExternalRule) compile(field func(string, string) error) []error {
	var errs []error
	if r.Name == "" {
		errs = append(errs, field("name", "required, names the rule in errors and logs"))
	}
	errs = append(errs, validateSeriesQuery(field, r.SeriesQuery)...)
	if r.NamespaceLabel != "" && !model.LegacyValidation.IsValidLabelName(r.NamespaceLabel) {
		errs = append(errs, field("namespaceLabel", fmt.Sprintf("%q is not a Prometheus label name", r.NamespaceLabel)))
	}
	seen := map[string]bool{}
	for j, l := range r.GroupBy {
		switch {
		case !model.LegacyValidation.IsValidLabelName(l):
			errs = append(errs, field(fmt.Sprintf("groupBy[%d]", j), fmt.Sprintf("%q is not a Prometheus label name", l)))
		case seen[l]:
			errs = append(errs, field(fmt.Sprintf("groupBy[%d]", j), fmt.Sprintf("%q is listed twice", l)))
		}
		seen[l] = true
	}
	errs = append(errs, validateParameters(field, r)...)
	spec, specErrs := compileQuerySpec(field, r.Name, r.MetricName, r.MetricsQuery, r.Window.Duration, r.Parameters)
	r.query = spec
	return append(errs, specErrs...)
}

// maxParameter bounds a parameter's values, so that no parameter renders a number PromQL
// reads differently (an exponent, an overflow).
const maxParameter = 1_000_000_000

func validateParameters(field func(string, string) error, r *ExternalRule) []error {
	var errs []error
	taken := map[string]bool{r.NamespaceLabel: r.NamespaceLabel != ""}
	for _, l := range r.GroupBy {
		taken[l] = true
	}
	for j, p := range r.Parameters {
		name := fmt.Sprintf("parameters[%d]", j)
		switch {
		case !model.LegacyValidation.IsValidLabelName(p.Name):
			errs = append(errs, field(name+".name", fmt.Sprintf("%q is not a Prometheus label name, e.g. lead_seconds", p.Name)))
		case taken[p.Name]:
			errs = append(errs, field(name+".name", fmt.Sprintf("%q is a label of the series or listed twice; a parameter needs a key of its own", p.Name)))
		case p.Min < 0 || p.Max < p.Min || p.Max > maxParameter:
			errs = append(errs, field(name, fmt.Sprintf("min %d and max %d must satisfy 0 <= min <= max <= %d", p.Min, p.Max, maxParameter)))
		}
		taken[p.Name] = true
	}
	return errs
}

func compileQuerySpec(field func(string, string) error, name string, metricName MetricName, metricsQuery string, window time.Duration, params []Parameter) (querySpec, []error) {
	var errs []error
	spec := querySpec{as: metricName.As, window: window, params: params}
	if window < 0 {
		errs = append(errs, field("window", "must not be negative"))
	}
	var err error
	if spec.matches, err = compileMatches(metricName.Matches); err != nil {
		errs = append(errs, field("metricName.matches", err.Error()))
	}
	if spec.template, err = compileQuery(name, metricsQuery, spec.sampleParams()); err != nil {
		errs = append(errs, field("metricsQuery", err.Error()))
	}
	return spec, errs
}

func fieldNamer(kind string, i int, name string) func(field, msg string) error {
	return func(field, msg string) error {
		if name == "" {
			return fmt.Errorf("%s[%d]: %s: %s", kind, i, field, msg)
		}
		return fmt.Errorf("%s[%d] (%s): %s: %s", kind, i, printable(name), field, msg)
	}
}

// printable is a rule name as errors and logs show it: as written, or quoted when it holds
// a line break or another character that would garble the message.
func printable(name string) string {
	if strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(name)
	}
	return name
}

// seriesSelector is the shape of a PromQL series selector: an optional metric name and an
// optional brace-enclosed matcher list. Prometheus checks the matchers themselves at the
// first discovery, which fails start-up when Prometheus rejects the selector.
var seriesSelector = regexp.MustCompile(`^\s*(?:[a-zA-Z_:][a-zA-Z0-9_:]*\s*)?(?:\{.*\})?\s*$`)

func validateSeriesQuery(field func(string, string) error, q string) []error {
	if strings.TrimSpace(q) == "" {
		return []error{field("seriesQuery", `required, a series selector such as {__name__=~"garden_seed_.+"}`)}
	}
	if !seriesSelector.MatchString(q) || !balanced(q) {
		return []error{field("seriesQuery", fmt.Sprintf(`%q is not a series selector; write a metric name and/or matchers in braces, such as {__name__=~"garden_seed_.+"}`, q))}
	}
	return nil
}

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
// offset computed from two parameters, {{sub .Params.period_seconds .Params.lead_seconds}}.
var queryFuncs = template.FuncMap{"sub": func(a, b int64) int64 { return a - b }}

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

// ResolveResources checks every rule's group and resource against the cluster's API and
// that its namespace label fits the resource's scope, and returns the resource of each
// rule's group/resource.
func (c *Config) ResolveResources(mapper apimeta.RESTMapper) (map[schema.GroupResource]schema.GroupVersionResource, error) {
	resources := map[schema.GroupResource]schema.GroupVersionResource{}
	var errs []error
	for i := range c.Rules {
		r := &c.Rules[i]
		field := fieldNamer("rules", i, r.Name)
		gr := r.GroupResource()
		gvr, err := mapper.ResourceFor(gr.WithVersion(""))
		if err != nil {
			errs = append(errs, field("resource", fmt.Sprintf("%s is not served by the cluster (unknown group or resource; is its CRD installed?): %v", gr, err)))
			continue
		}
		gvk, err := mapper.KindFor(gvr)
		if err != nil {
			errs = append(errs, field("resource", fmt.Sprintf("%s: %v", gr, err)))
			continue
		}
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			errs = append(errs, field("resource", fmt.Sprintf("%s: %v", gr, err)))
			continue
		}
		namespaced := mapping.Scope.Name() == apimeta.RESTScopeNameNamespace
		switch {
		case namespaced && !r.Namespaced():
			errs = append(errs, field("namespaceLabel", fmt.Sprintf("%s is namespaced; name the series label holding the namespace", gr)))
		case !namespaced && r.Namespaced():
			errs = append(errs, field("namespaceLabel", fmt.Sprintf("%s is cluster-scoped; remove namespaceLabel", gr)))
		}
		resources[gr] = gvr
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return resources, nil
}
