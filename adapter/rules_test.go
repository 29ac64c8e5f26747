package adapter

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestDefaultConfigServesSeedsAndSets(t *testing.T) {
	cfg, err := DefaultConfig()
	require.NoError(t, err)
	assert.Equal(t, APIVersion, cfg.APIVersion)
	assert.Equal(t, 30*time.Second, cfg.Discovery.Interval.Duration)
	assert.Equal(t, 2*time.Minute, cfg.Values.Staleness.Duration)
	require.Len(t, cfg.Rules, 2)
	seeds, sets := cfg.Rules[0], cfg.Rules[1]
	assert.Equal(t, schema.GroupResource{Group: "core.gardener.cloud", Resource: "seeds"}, seeds.GroupResource())
	assert.False(t, seeds.Namespaced())
	for _, series := range []string{"garden_seed_usage", "garden_seed_allocatable", "garden_seed_capacity", "garden_seed_condition"} {
		name, ok := seeds.query.exposedName(series)
		assert.True(t, ok, series)
		assert.Equal(t, series, name)
	}
	assert.Equal(t, schema.GroupResource{Group: "seedmanagement.gardener.cloud", Resource: "managedseedsets"}, sets.GroupResource())
	assert.Equal(t, "managedseedset", sets.ObjectLabel)
	assert.Equal(t, "namespace", sets.NamespaceLabel)
	assert.NotEmpty(t, cfg.ExternalRules)
}

func TestParseConfigFillsDefaults(t *testing.T) {
	cfg, err := ParseConfig([]byte(`
rules:
- name: r
  seriesQuery: 'foo{name!=""}'
  resource: {group: core.gardener.cloud, resource: seeds}
  objectLabel: name
`))
	require.NoError(t, err)
	assert.Equal(t, Kind, cfg.Kind)
	assert.Equal(t, DefaultDiscoveryRetention, cfg.Discovery.Retention.Duration)
	assert.Equal(t, DefaultCacheTTL, cfg.Values.CacheTTL.Duration)
	assert.Equal(t, DefaultMetricsQuery, cfg.Rules[0].MetricsQuery)
}

// Every problem names its field by its path, such as rules[0].objectLabel, and what is
// wrong with it.
func TestParseConfigNamesTheFieldPath(t *testing.T) {
	const valid = `
  seriesQuery: 'foo{name!=""}'
  resource: {group: core.gardener.cloud, resource: seeds}
  objectLabel: name
`
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{"bad regex", "rules:\n- name: r1\n  metricName: {matches: 'garden_(seed'}" + valid,
			[]string{`rules[0].metricName.matches: Invalid value: "garden_(seed": bad regular expression`}},
		{"missing object label", "rules:\n- name: r1\n  seriesQuery: foo\n  resource: {group: g, resource: seeds}\n",
			[]string{`rules[0].objectLabel: Required value`}},
		{"bad label name", "rules:\n- name: r1\n  seriesQuery: foo\n  resource: {group: g, resource: seeds}\n  objectLabel: seed.name\n",
			[]string{`rules[0].objectLabel: Invalid value: "seed.name": not a Prometheus label name`}},
		{"missing group", "rules:\n- name: r1\n  seriesQuery: foo\n  resource: {resource: seeds}\n  objectLabel: name\n",
			[]string{`rules[0].resource.group: Required value`}},
		{"missing name and series", "rules:\n- resource: {group: g, resource: seeds}\n  objectLabel: name\n",
			[]string{`rules[0].name: Required value`, `rules[0].seriesQuery: Required value`}},
		{"not a selector", "rules:\n- name: r1\n  seriesQuery: 'sum(foo)'\n  resource: {group: g, resource: seeds}\n  objectLabel: name\n",
			[]string{`rules[0].seriesQuery: Invalid value: "sum(foo)": not a series selector`}},
		{"template without matchers", "rules:\n- name: r1\n  metricsQuery: 'max by ({{.GroupBy}}) ({{.Series}})'" + valid,
			[]string{`rules[0].metricsQuery: Invalid value: "max by ({{.GroupBy}}) ({{.Series}})": the template does not use {{.LabelMatchers}}`}},
		{"template without group", "rules:\n- name: r1\n  metricsQuery: 'sum({{.Series}}{ {{.LabelMatchers}} })'" + valid,
			[]string{`rules[0].metricsQuery: Invalid value: "sum({{.Series}}{ {{.LabelMatchers}} })": the template does not use {{.GroupBy}}`}},
		{"unbalanced template", "rules:\n- name: r1\n  metricsQuery: 'max by ({{.GroupBy}} ({{.Series}}{ {{.LabelMatchers}} })'" + valid,
			[]string{`rules[0].metricsQuery: Invalid value: `, `: renders to`, `whose brackets do not balance`}},
		{"template syntax", "rules:\n- name: r1\n  metricsQuery: '{{.Series'" + valid,
			[]string{`rules[0].metricsQuery: Invalid value: "{{.Series": bad template`}},
		{"unknown placeholder", "rules:\n- name: r1\n  metricsQuery: '{{.Nope}}'" + valid,
			[]string{`rules[0].metricsQuery: Invalid value: "{{.Nope}}": bad template`}},
		{"duplicate names", "rules:\n- name: r1" + valid + "- name: r1" + valid,
			[]string{`rules[1].name: Duplicate value: "r1"`}},
		{"external group label", "externalRules:\n- name: e1\n  seriesQuery: foo\n  groupBy: [name, name, 'a-b']\n",
			[]string{`externalRules[0].groupBy[1]: Duplicate value: "name"`, `externalRules[0].groupBy[2]: Invalid value: "a-b": not a Prometheus label name`}},
		{"retention shorter than interval", "discovery: {interval: 1m, retention: 30s}\nrules:\n- name: r1" + valid,
			[]string{`discovery.retention: Invalid value: "30s": shorter than discovery.interval 1m0s`}},
		{"wrong version", "apiVersion: v9\nrules:\n- name: r1" + valid,
			[]string{`apiVersion: Unsupported value: "v9": supported values: "adapter.seedscaler.io/v1alpha1"`}},
		{"nothing to serve", "values: {staleness: 1m}\n",
			[]string{`rules: Required value: no rules and no externalRules`}},
		{"unknown field", "rules:\n- name: r1\n  objectLable: name" + valid,
			[]string{`unknown field "objectLable"`}},
		{"bad regex quoted as written", "rules:\n- name: r1\n  metricName: {matches: \"garden_(seed\\n\"}" + valid,
			[]string{"rules[0].metricName.matches: Invalid value: \"garden_(seed\\n\": bad regular expression: missing closing ): \"garden_(seed\\n\""}},
		{"name with a line break", "rules:\n- name: \"r\\n1\"\n  metricsQuery: '{{.Series'" + valid,
			[]string{`rules[0].metricsQuery: Invalid value: "{{.Series": bad template: template: "r\n1":1: unclosed action`}},
		{"bad duration", "values:\n  staleness: 2m\n  cacheTTL: soon\nrules:\n- name: r1" + valid,
			[]string{`parsing adapter configuration: line 3: `, `time: invalid duration "soon"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tt.yaml))
			require.Error(t, err)
			for _, want := range tt.want {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

// ResolveResources runs against the kinds a cluster serves: an unknown group and a
// namespace label that does not fit the scope fail start-up, naming the rule.
func TestResolveResourcesChecksGroupAndScope(t *testing.T) {
	mapper := apimeta.NewDefaultRESTMapper(nil)
	mapper.Add(schema.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Seed"}, apimeta.RESTScopeRoot)
	mapper.Add(schema.GroupVersionKind{Group: "seedmanagement.gardener.cloud", Version: "v1alpha1", Kind: "ManagedSeedSet"}, apimeta.RESTScopeNamespace)

	cfg, err := DefaultConfig()
	require.NoError(t, err)
	resources, err := cfg.ResolveResources(mapper)
	require.NoError(t, err)
	assert.Equal(t, "v1beta1", resources[schema.GroupResource{Group: "core.gardener.cloud", Resource: "seeds"}].Version)

	cfg, err = ParseConfig([]byte(`
rules:
- name: unknown
  seriesQuery: foo
  resource: {group: core.gardner.cloud, resource: seeds}
  objectLabel: name
- name: seeds-with-namespace
  seriesQuery: foo
  resource: {group: core.gardener.cloud, resource: seeds}
  objectLabel: name
  namespaceLabel: namespace
- name: sets-without-namespace
  seriesQuery: foo
  resource: {group: seedmanagement.gardener.cloud, resource: managedseedsets}
  objectLabel: managedseedset
`))
	require.NoError(t, err)
	_, err = cfg.ResolveResources(mapper)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `rules[0].resource: Invalid value: "seeds.core.gardner.cloud": not served by the cluster (unknown group or resource`)
	assert.Contains(t, err.Error(), "rules[1].namespaceLabel: Forbidden: seeds.core.gardener.cloud is cluster-scoped; remove namespaceLabel")
	assert.Contains(t, err.Error(), "rules[2].namespaceLabel: Required value: managedseedsets.seedmanagement.gardener.cloud is namespaced")
}

func TestExposedNameRenames(t *testing.T) {
	cfg, err := ParseConfig([]byte(`
rules:
- name: r
  seriesQuery: '{__name__=~"garden_seed_.+"}'
  resource: {group: core.gardener.cloud, resource: seeds}
  objectLabel: name
  metricName: {matches: 'garden_seed_(.+)', as: 'seed_$1'}
`))
	require.NoError(t, err)
	name, ok := cfg.Rules[0].query.exposedName("garden_seed_usage")
	assert.True(t, ok)
	assert.Equal(t, "seed_usage", name)
	_, ok = cfg.Rules[0].query.exposedName("garden_shoot_info")
	assert.False(t, ok)
}
