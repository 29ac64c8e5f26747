package testenv

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Gathered is the value of the first counter or gauge series of metric in g whose labels
// include labels, and whether g has such a series.
func Gathered(g prometheus.Gatherer, metric string, labels map[string]string) (float64, bool, error) {
	families, err := g.Gather()
	if err != nil {
		return 0, false, fmt.Errorf("gathering %s: %w", metric, err)
	}
	for _, f := range families {
		if f.GetName() != metric {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue series
				}
			}
			switch {
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue(), true, nil
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue(), true, nil
			}
		}
	}
	return 0, false, nil
}
