//go:build integration

// Package observability checks the alert rules and Grafana dashboards that ship with
// seedscaler against real Prometheus tooling: promtool validates and unit-tests the rules,
// every PromQL expression parses, every metric it names is one the stack exports
// (docs/metrics.md), every alert links its runbook (docs/runbooks.md), every alert and
// dashboard query gives the same answer with one, two or five replicas of a part, and the
// chart carries exact copies of both.
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
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/seedscaler/seedscaler/test/framework/dashboards"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
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
			Alert       string            `json:"alert"`
			Record      string            `json:"record"`
			Expr        string            `json:"expr"`
			Annotations map[string]string `json:"annotations"`
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

// runbooks is where every alert's runbook_url points, followed by the alert's section.
const runbooks = "https://github.com/seedscaler/seedscaler/blob/main/docs/runbooks.md#"

// githubAnchor is the fragment GitHub gives a Markdown heading.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Every alert links its own section of docs/runbooks.md, each section is an alert's and says
// what the alert means, how to confirm it and how to fix it, and the page's links between
// sections lead somewhere: the on-call engineer who follows an alert's link lands on its
// runbook.
func TestEveryAlertLinksItsRunbookSection(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root(t), "docs", "runbooks.md"))
	require.NoError(t, err)
	sections := map[string]string{} // anchor → the section's text
	var current string
	for _, line := range strings.Split(string(data), "\n") {
		if heading, ok := strings.CutPrefix(line, "## "); ok {
			current = githubAnchor(heading)
			require.NotContains(t, sections, current, "docs/runbooks.md has two sections #%s", current)
			sections[current] = ""
			continue
		}
		if current != "" {
			sections[current] += line + "\n"
		}
	}
	linked := map[string]bool{}
	for _, g := range readRules(t).Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			url := r.Annotations["runbook_url"]
			anchor, ok := strings.CutPrefix(url, runbooks)
			if !assert.True(t, ok, "alert %s: runbook_url %q is not %s<section>", r.Alert, url, runbooks) {
				continue
			}
			assert.Equal(t, githubAnchor(r.Alert), anchor, "alert %s must link the section named after it", r.Alert)
			assert.Contains(t, sections, anchor, "alert %s links #%s, which docs/runbooks.md does not have", r.Alert, anchor)
			linked[anchor] = true
		}
	}
	for anchor, text := range sections {
		assert.True(t, linked[anchor], "docs/runbooks.md has section #%s, which no alert links", anchor)
		for _, part := range []string{"**Meaning.**", "**Confirm.**", "**Fix.**"} {
			assert.Contains(t, text, part, "section #%s of docs/runbooks.md", anchor)
		}
	}
	for _, m := range regexp.MustCompile(`\]\(#([^)]+)\)`).FindAllStringSubmatch(string(data), -1) {
		assert.Contains(t, sections, m[1], "docs/runbooks.md links #%s, which it does not have", m[1])
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
