// Package dashboards reads the PromQL expressions of the Grafana dashboards in
// dashboards/, for the tests that check them against the real parser and a real Prometheus.
package dashboards

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Expressions returns every PromQL expression of every dashboard in dir, keyed by where
// it stands: "dashboard / panel / target N".
func Expressions(dir string) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no dashboards in %s", dir)
	}
	exprs := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var d struct {
			Title  string `json:"title"`
			Panels []struct {
				Title   string `json:"title"`
				Targets []struct {
					Expr string `json:"expr"`
				} `json:"targets"`
			} `json:"panels"`
		}
		if err := json.Unmarshal(data, &d); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if len(d.Panels) == 0 {
			return nil, fmt.Errorf("%s has no panels", f)
		}
		for _, p := range d.Panels {
			for i, tg := range p.Targets {
				if tg.Expr != "" {
					exprs[fmt.Sprintf("%s / %s / target %d", d.Title, p.Title, i)] = tg.Expr
				}
			}
		}
	}
	return exprs, nil
}

var variable = regexp.MustCompile(`\$\{?[A-Za-z_]+\}?`)

// Resolve replaces Grafana's variables as a dashboard showing everything would: intervals
// with fixed durations, template variables (always used with =~) with value.
func Resolve(expr, value string) string {
	r := strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m", "${__range}", "1h", "$__range", "1h")
	return variable.ReplaceAllString(r.Replace(expr), value)
}
