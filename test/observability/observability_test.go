// Package observability checks the alert rules and Grafana dashboards that ship with
// seedscaler against real Prometheus tooling: promtool validates and unit-tests the rules,
// every PromQL expression parses, every metric it names is one the stack exports
// (docs/metrics.md), and the chart carries exact copies of both.
package observability

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/seedscaler/seedscaler/internal/dashboards"
	"github.com/seedscaler/seedscaler/internal/testenv"
)

func root(t *testing.T) string {
	t.Helper()
	r, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	return r
}

func promtool(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := testenv.Tool("promtool")
	require.NoError(t, err)
	out, err := exec.Command(bin, args...).CombinedOutput()
	require.NoError(t, err, "promtool %s:\n%s", strings.Join(args, " "), out)
	return string(out)
}

type ruleFile struct {
	Groups []struct {
		Name  string `json:"name"`
		Rules []struct {
			Alert  string `json:"alert"`
			Record string `json:"record"`
			Expr   string `json:"expr"`
		} `json:"rules"`
	} `json:"groups"`
}

func readRules(t *testing.T) ruleFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root(t), "alerts", "seedscaler.rules.yaml"))
	require.NoError(t, err)
	var rf ruleFile
	require.NoError(t, yaml.Unmarshal(data, &rf))
	return rf
}

func TestAlertRulesAreValidAndUnitTested(t *testing.T) {
	dir := filepath.Join(root(t), "alerts")
	promtool(t, "check", "rules", filepath.Join(dir, "seedscaler.rules.yaml"))
	out := promtool(t, "test", "rules", filepath.Join(dir, "seedscaler.rules.test.yaml"))
	assert.Contains(t, out, "SUCCESS")
}

// Every alert needs a case where it fires and one where it stays silent: a rule that is
// only ever tested firing could fire always.
func TestEveryAlertHasAFiringAndASilentCase(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root(t), "alerts", "seedscaler.rules.test.yaml"))
	require.NoError(t, err)
	var tests struct {
		Tests []struct {
			AlertRuleTest []struct {
				Alertname string `json:"alertname"`
				ExpAlerts []any  `json:"exp_alerts"`
			} `json:"alert_rule_test"`
		} `json:"tests"`
	}
	require.NoError(t, yaml.Unmarshal(data, &tests))
	firing, silent := map[string]bool{}, map[string]bool{}
	for _, tc := range tests.Tests {
		for _, c := range tc.AlertRuleTest {
			if len(c.ExpAlerts) > 0 {
				firing[c.Alertname] = true
			} else {
				silent[c.Alertname] = true
			}
		}
	}
	for _, g := range readRules(t).Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			assert.True(t, firing[r.Alert], "alert %s has no case where it fires", r.Alert)
			assert.True(t, silent[r.Alert], "alert %s has no case where it stays silent", r.Alert)
		}
	}
}

// dashboardExprs returns every PromQL expression of every dashboard, keyed by a
// description of where it stands.
func dashboardExprs(t *testing.T) map[string]string {
	t.Helper()
	exprs, err := dashboards.Expressions(filepath.Join(root(t), "dashboards"))
	require.NoError(t, err)
	return exprs
}

// Every expression parses: promtool checks them as recording rules with the real parser.
func TestEveryDashboardExpressionParses(t *testing.T) {
	exprs := dashboardExprs(t)
	keys := make([]string, 0, len(exprs))
	for k := range exprs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var rules []map[string]string
	for i, k := range keys {
		rules = append(rules, map[string]string{"record": fmt.Sprintf("dashboard:expr_%d", i), "expr": dashboards.Resolve(exprs[k], "x")})
	}
	data, err := yaml.Marshal(map[string]any{"groups": []any{map[string]any{"name": "dashboards", "rules": rules}}})
	require.NoError(t, err)
	f := filepath.Join(t.TempDir(), "dashboards.rules.yaml")
	require.NoError(t, os.WriteFile(f, data, 0o600))
	promtool(t, "check", "rules", f)
}

var metricName = regexp.MustCompile(`\b((?:garden|seedscaler|controller_runtime|workqueue)_[a-z0-9_]+)`)

// documentedMetrics are the metric names docs/metrics.md lists (in backticks).
func documentedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root(t), "docs", "metrics.md"))
	require.NoError(t, err)
	names := map[string]bool{}
	for _, m := range regexp.MustCompile("`((?:garden|seedscaler|controller_runtime|workqueue)_[a-z0-9_]+)").FindAllStringSubmatch(string(data), -1) {
		names[m[1]] = true
	}
	return names
}

// known reports whether a name used in a query is exported: documented as it is, or a
// histogram's _bucket/_sum/_count series of a documented histogram.
func known(doc map[string]bool, name string) bool {
	if doc[name] {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if strings.HasSuffix(name, suffix) && doc[strings.TrimSuffix(name, suffix)] {
			return true
		}
	}
	return false
}

func TestEveryQueriedMetricIsExported(t *testing.T) {
	doc := documentedMetrics(t)
	require.NotEmpty(t, doc, "docs/metrics.md lists no metric")
	exprs := dashboardExprs(t)
	for _, g := range readRules(t).Groups {
		for _, r := range g.Rules {
			exprs["alert "+r.Alert+r.Record] = r.Expr
		}
	}
	for where, expr := range exprs {
		for _, m := range metricName.FindAllStringSubmatch(expr, -1) {
			assert.True(t, known(doc, m[1]), "%s queries %s, which docs/metrics.md does not list", where, m[1])
		}
	}
}

// The chart ships the dashboards and rules as copies (Helm reads only files inside the
// chart); `make generate` refreshes them. They must be identical to the sources.
func TestChartCarriesTheSameDashboardsAndRules(t *testing.T) {
	r := root(t)
	pairs := map[string]string{
		filepath.Join(r, "alerts", "seedscaler.rules.yaml"): filepath.Join(r, "charts", "seedscaler", "files", "alerts", "seedscaler.rules.yaml"),
	}
	dashboards, err := filepath.Glob(filepath.Join(r, "dashboards", "*.json"))
	require.NoError(t, err)
	for _, d := range dashboards {
		pairs[d] = filepath.Join(r, "charts", "seedscaler", "files", "dashboards", filepath.Base(d))
	}
	copies, err := filepath.Glob(filepath.Join(r, "charts", "seedscaler", "files", "dashboards", "*.json"))
	require.NoError(t, err)
	assert.Len(t, copies, len(dashboards), "the chart has dashboards that dashboards/ does not (run make generate)")
	for src, dst := range pairs {
		a, err := os.ReadFile(src)
		require.NoError(t, err)
		b, err := os.ReadFile(dst)
		require.NoError(t, err, "run make generate")
		assert.True(t, bytes.Equal(a, b), "%s differs from %s: run make generate", dst, src)
	}
}
