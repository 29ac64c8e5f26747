// Package metricsdoc compares the metrics a part registers with what docs/metrics.md says
// of them, for the tests that keep the two in step.
package metricsdoc

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

var code = regexp.MustCompile("`([^`]+)`")

// Documented parses the section of docs/metrics.md under the heading "## <section>": the
// metric of each table row whose first cell starts with a backticked name with prefix, and
// the sorted label names in its second cell.
func Documented(section, prefix string) (map[string][]string, error) {
	root, err := testenv.RepositoryRoot()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(root, "docs", "metrics.md"))
	if err != nil {
		return nil, err
	}
	_, text, found := strings.Cut(string(data), "\n## "+section)
	if !found {
		return nil, fmt.Errorf("docs/metrics.md has no section %q", section)
	}
	text, _, _ = strings.Cut(text, "\n## ")
	metrics := map[string][]string{}
	for _, line := range strings.Split(text, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`"+prefix) {
			continue
		}
		name := code.FindStringSubmatch(cells[1])[1]
		labels := []string{}
		for _, m := range code.FindAllStringSubmatch(cells[2], -1) {
			labels = append(labels, m[1])
		}
		sort.Strings(labels)
		if _, dup := metrics[name]; dup {
			return nil, fmt.Errorf("docs/metrics.md lists %s twice in section %q", name, section)
		}
		metrics[name] = labels
	}
	return metrics, nil
}

// Emitted gathers g and returns every metric family's name with the sorted label names of
// its first series. A registered metric that emits no series is not in the result.
func Emitted(g prometheus.Gatherer) (map[string][]string, error) {
	families, err := g.Gather()
	if err != nil {
		return nil, err
	}
	emitted := map[string][]string{}
	for _, f := range families {
		labels := []string{}
		for _, l := range f.GetMetric()[0].GetLabel() {
			labels = append(labels, l.GetName())
		}
		sort.Strings(labels)
		emitted[f.GetName()] = labels
	}
	return emitted, nil
}

// AssertSection asserts that the section of docs/metrics.md lists exactly the metrics g
// emits (those with prefix), each with its labels, and returns what g emitted so a test
// can check further that its fixture made every metric appear.
func AssertSection(t testing.TB, g prometheus.Gatherer, section, prefix string) map[string][]string {
	t.Helper()
	emitted, err := Emitted(g)
	require.NoError(t, err)
	documented, err := Documented(section, prefix)
	require.NoError(t, err)
	assert.Equal(t, emitted, documented, "docs/metrics.md (section %s) and the registered metrics disagree: "+
		"every emitted metric must be listed with its labels, and nothing else", section)
	return emitted
}
