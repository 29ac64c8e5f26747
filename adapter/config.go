package adapter

import (
	"fmt"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/seedscaler/seedscaler/internal/fielderrors"
	"github.com/seedscaler/seedscaler/internal/yamltext"
)

// APIVersion and Kind identify the configuration file format.
const (
	APIVersion = "adapter.seedscaler.io/v1alpha1"
	Kind       = "AdapterConfiguration"
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
	// name identifies the rule in logs and in the errors of its metricsQuery template.
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
	// name identifies the rule in logs and in the errors of its metricsQuery template.
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

// ParseConfig parses a configuration file, fills defaults, validates everything that can
// be checked without a cluster and compiles the rules. Every error names its field's path,
// such as rules[2].seriesQuery.
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
	if err := fielderrors.Join(cfg.validate()); err != nil {
		return nil, err
	}
	return cfg, nil
}
