package adapter

import (
	_ "embed"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// defaultRulesYAML is the configuration used when --config is not given.
//
//go:embed default-rules.yaml
var defaultRulesYAML []byte

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

// DefaultConfig returns the built-in rules.
func DefaultConfig() (*Config, error) {
	cfg, err := ParseConfig(defaultRulesYAML)
	if err != nil {
		return nil, fmt.Errorf("built-in adapter rules: %w", err)
	}
	return cfg, nil
}

// setDefaults fills in what the file leaves out.
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
