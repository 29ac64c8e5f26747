package adapter

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
)

// defaultExternalRule is the built-in external rule of the given name.
func defaultExternalRule(t *testing.T, name string) *ExternalRule {
	t.Helper()
	cfg, err := DefaultConfig()
	require.NoError(t, err)
	for i := range cfg.ExternalRules {
		if cfg.ExternalRules[i].Name == name {
			return &cfg.ExternalRules[i]
		}
	}
	require.FailNow(t, "no built-in external rule "+name)
	return nil
}

func TestTakeParams(t *testing.T) {
	rule := defaultExternalRule(t, "managedseedset-demand-trend")
	cases := []struct {
		name     string
		selector string
		params   map[string]int64
		rest     string
		err      string
	}{
		{"parameters leave the matchers", "managedseedset=demo,lead_seconds=900,window_seconds=1800",
			map[string]int64{"lead_seconds": 900, "window_seconds": 1800}, "managedseedset=demo", ""},
		{"== is =", "lead_seconds==60,window_seconds=86400", map[string]int64{"lead_seconds": 60, "window_seconds": 86400}, "", ""},
		{"missing", "managedseedset=demo,lead_seconds=900", nil, "",
			"parameter window_seconds is required: pass window_seconds=<whole number from 60 to 86400> in the label selector"},
		{"below the bound", "lead_seconds=14,window_seconds=1800", nil, "",
			`parameter lead_seconds="14" is not a whole number from 15 to 21600`},
		{"above the bound", "lead_seconds=21601,window_seconds=1800", nil, "",
			`parameter lead_seconds="21601" is not a whole number from 15 to 21600`},
		{"not a number", "lead_seconds=15m,window_seconds=1800", nil, "",
			`parameter lead_seconds="15m" is not a whole number from 15 to 21600; pass lead_seconds=<whole number from 15 to 21600>`},
		{"a fraction", "lead_seconds=900.5,window_seconds=1800", nil, "", `parameter lead_seconds="900.5" is not a whole number`},
		{"a set of values", "lead_seconds in (60,120),window_seconds=1800", nil, "", `parameter lead_seconds takes one value with =, not "in"`},
		{"not equal", "lead_seconds!=60,window_seconds=1800", nil, "", `parameter lead_seconds takes one value with =, not "!="`},
		{"exists", "lead_seconds,window_seconds=1800", nil, "", `parameter lead_seconds takes one value with =`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sel, err := labels.Parse(c.selector)
			require.NoError(t, err)
			params, rest, err := rule.query.takeParams(sel)
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.params, params)
			assert.Equal(t, c.rest, rest.String())
		})
	}
}

func TestRuleWithoutParametersKeepsTheSelector(t *testing.T) {
	rule := defaultExternalRule(t, "seed-quantities")
	sel := labels.SelectorFromSet(labels.Set{"lead_seconds": "900"})
	params, rest, err := rule.query.takeParams(sel)
	require.NoError(t, err)
	assert.Nil(t, params)
	assert.Equal(t, sel, rest, "a key a rule does not declare is a label matcher, as before")
}

func TestForecastQueriesRenderFromParameters(t *testing.T) {
	trend := defaultExternalRule(t, "managedseedset-demand-trend")
	q, err := buildValueQuery(&trend.query, "managedseedset:seedscaler_demand_shoots:sum",
		[]matcher{{"managedseedset", "=", "demo"}, {"namespace", "=", "garden"}}, trend.GroupBy,
		map[string]int64{"lead_seconds": 900, "window_seconds": 1800}, false)
	require.NoError(t, err)
	// The window's line, capped by the larger of its last quarter's line and the demand now.
	demand := `managedseedset:seedscaler_demand_shoots:sum{ managedseedset="demo",namespace="garden" }`
	line := `predict_linear(` + demand + `[1800s], 900)`
	recent := `predict_linear(` + demand + `[450s], 900)`
	ceiling := `(` + recent + ` > ` + demand + ` or (` + demand + ` and ` + recent + `))`
	assert.Equal(t, `max by (namespace,managedseedset) (`+line+` < `+ceiling+` or (`+ceiling+` and `+line+`) or `+line+`)`, q.value)

	seasonal := defaultExternalRule(t, "managedseedset-demand-seasonal")
	q, err = buildValueQuery(&seasonal.query, "managedseedset:seedscaler_demand_shoots:sum",
		[]matcher{{"managedseedset", "=", "demo"}}, seasonal.GroupBy,
		map[string]int64{"lead_seconds": 900, "period_seconds": 86400}, false)
	require.NoError(t, err)
	assert.Equal(t, `max by (namespace,managedseedset) (max_over_time(managedseedset:seedscaler_demand_shoots:sum{ managedseedset="demo" }[900s] offset 85500s))`, q.value)
}

func TestParseConfigChecksParameters(t *testing.T) {
	rule := func(params, query string) []byte {
		return []byte(`
externalRules:
- name: forecast
  seriesQuery: 'demand{set!=""}'
  groupBy: [set]
  parameters: ` + params + `
  metricsQuery: '` + query + `'
`)
	}
	const uses = `max by ({{.GroupBy}}) (predict_linear({{.Series}}{ {{.LabelMatchers}} }[5m], {{.Params.lead}}))`
	cases := []struct {
		name, params, query, want string
	}{
		{"not a label name", `[{name: lead-time, min: 1, max: 2}]`, uses, `externalRules[0].parameters[0].name: Invalid value: "lead-time": not a Prometheus label name, e.g. lead_seconds`},
		{"a label of the series", `[{name: set, min: 1, max: 2}]`, uses, `parameters[0].name: Invalid value: "set": a label of the series or listed twice`},
		{"twice", `[{name: lead, min: 1, max: 2}, {name: lead, min: 1, max: 2}]`, uses, `parameters[1].name: Invalid value: "lead": a label of the series or listed twice`},
		{"max below min", `[{name: lead, min: 5, max: 2}]`, uses, `parameters[0]: Invalid value: min 5 and max 2 must satisfy 0 <= min <= max <= 1000000000`},
		{"negative", `[{name: lead, min: -1, max: 2}]`, uses, `parameters[0]: Invalid value: min -1 and max 2 must satisfy`},
		{"a template using an undeclared parameter", `[{name: window, min: 1, max: 2}]`, uses, `externalRules[0].metricsQuery: Invalid value: "` + uses + `": bad template:`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig(rule(c.params, c.query))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	_, err := ParseConfig(rule(`[{name: lead, min: 60, max: 21600}]`, uses))
	assert.NoError(t, err)
}
