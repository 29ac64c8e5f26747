package adapter

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/go-logr/logr"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/clock"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/provider"
)

// availableKey names one exposed metric of one rule.
type availableKey struct {
	external bool
	rule     int
	metric   string
}

// availableEntry remembers which series an exposed metric reads and when discovery last
// saw it.
type availableEntry struct {
	series   string
	lastSeen time.Time
}

// availability is the list of available metrics. A metric stays listed for the retention
// after discovery last saw it, so that neither a late scrape nor a failed discovery run
// makes it flicker out of the list (and out of the HPA's or autoscaler's reach).
type availability struct {
	retention time.Duration

	mu      sync.RWMutex
	entries map[availableKey]availableEntry
	// refused is the error of the last discovery when Prometheus refused the adapter's
	// credentials, nil otherwise: a metric discovery could not look for is then not
	// reported as not found.
	refused error
}

func newAvailability(retention time.Duration) *availability {
	return &availability{retention: retention, entries: map[availableKey]availableEntry{}}
}

// seen records series names a rule's discovery found at now.
func (a *availability) seen(external bool, rule int, spec *querySpec, seriesNames []string, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, series := range seriesNames {
		metric, ok := spec.exposedName(series)
		if !ok {
			continue
		}
		a.entries[availableKey{external: external, rule: rule, metric: metric}] = availableEntry{series: series, lastSeen: now}
	}
}

// expire forgets metrics not seen within the retention before now.
func (a *availability) expire(now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, e := range a.entries {
		if now.Sub(e.lastSeen) > a.retention {
			delete(a.entries, k)
		}
	}
}

// setRefused records whether the last discovery found the adapter's credentials refused.
func (a *availability) setRefused(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.refused = err
}

// refusedCredentials is the error of the last discovery if Prometheus refused the
// adapter's credentials in it, nil otherwise.
func (a *availability) refusedCredentials() error {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.refused
}

// series returns the series an exposed metric of a rule reads, if discovery saw it.
func (a *availability) series(external bool, rule int, metric string) (string, bool) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	e, ok := a.entries[availableKey{external: external, rule: rule, metric: metric}]
	return e.series, ok
}

// keys lists the available metrics of custom (external false) or external rules.
func (a *availability) keys(external bool) []availableKey {
	a.mu.RLock()
	defer a.mu.RUnlock()
	var out []availableKey
	for k := range a.entries {
		if k.external == external {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].rule != out[j].rule {
			return out[i].rule < out[j].rule
		}
		return out[i].metric < out[j].metric
	})
	return out
}

// discoverer runs every rule's series query against Prometheus and keeps the availability.
type discoverer struct {
	prom    promv1.API
	cfg     *Config
	clock   clock.WithTicker
	metrics *Metrics
	avail   *availability
}

// refresh runs one discovery over every rule. A rule whose query fails keeps what it had;
// the errors are returned joined, each naming its rule.
func (d *discoverer) refresh(ctx context.Context) error {
	now := d.clock.Now()
	// Ask for every series of the retention window, not only the newest samples: a series
	// whose last scrape is a little late is still there.
	start := now.Add(-d.cfg.Discovery.Retention.Duration)
	var (
		errs    []error
		refused error
	)
	for i := range d.cfg.Rules {
		r := &d.cfg.Rules[i]
		names, err := d.seriesNames(ctx, r.SeriesQuery, start, now)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", rulesPath.Index(i).Child("seriesQuery"), err))
			continue
		}
		d.avail.seen(false, i, &r.query, names, now)
	}
	for i := range d.cfg.ExternalRules {
		r := &d.cfg.ExternalRules[i]
		names, err := d.seriesNames(ctx, r.SeriesQuery, start, now)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", externalRulesPath.Index(i).Child("seriesQuery"), err))
			continue
		}
		d.avail.seen(true, i, &r.query, names, now)
	}
	for _, err := range errs {
		var r *credentialsRefusedError
		if errors.As(err, &r) {
			refused = r
		}
	}
	d.avail.setRefused(refused)
	d.avail.expire(now)
	d.metrics.availableMetrics.WithLabelValues(apiCustom).Set(float64(len(d.avail.keys(false))))
	d.metrics.availableMetrics.WithLabelValues(apiExternal).Set(float64(len(d.avail.keys(true))))
	return errors.Join(errs...)
}

// seriesNames asks Prometheus for the metric names a series selector matches: the values of
// __name__ only, far less than every series' label set.
func (d *discoverer) seriesNames(ctx context.Context, selector string, start, end time.Time) ([]string, error) {
	begin := d.clock.Now()
	values, _, _, err := d.prom.LabelValues(ctx, "__name__", []string{selector}, start, end)
	d.metrics.queryDuration.WithLabelValues(queryKindDiscovery).Observe(d.clock.Since(begin).Seconds())
	if err != nil {
		d.metrics.queryErrors.WithLabelValues(queryKindDiscovery).Inc()
		return nil, err
	}
	names := make([]string, len(values))
	for i, v := range values {
		names[i] = string(v)
	}
	return names, nil
}

// run refreshes every interval until ctx ends.
func (d *discoverer) run(ctx context.Context) {
	log := logr.FromContextOrDiscard(ctx)
	ticker := d.clock.NewTicker(d.cfg.Discovery.Interval.Duration)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
			if err := d.refresh(ctx); err != nil {
				log.Error(err, "Discovery of available metrics failed; keeping the metrics seen within the retention")
			}
		}
	}
}

// checkQueries asks Prometheus to parse every rule's value query, rendered for a sample
// series, so that a template that renders to bad PromQL fails start-up, naming the rule,
// rather than every request. Only a refusal is an error; an unreachable Prometheus is
// checked again by nothing but the requests.
func (d *discoverer) checkQueries(ctx context.Context) error {
	sample := []matcher{{"seedscaler_check", "=", "x"}}
	var (
		errs        []error
		unreachable bool
	)
	check := func(path *field.Path, name string, spec *querySpec, groupBy []string) {
		if unreachable {
			return
		}
		q, err := buildValueQuery(spec, "seedscaler_check_series", sample, groupBy, spec.sampleParams(), false)
		if err == nil {
			_, err = d.prom.FormatQuery(ctx, q.value)
		}
		if err == nil {
			return
		}
		if badSelector(err) {
			errs = append(errs, fmt.Errorf("%s: Prometheus refuses the rendered query %s: %w", path.Child("metricsQuery"), q.value, err))
			return
		}
		// Do not wait out a timeout per rule when Prometheus is away.
		unreachable = true
		logr.FromContextOrDiscard(ctx).Error(err, "Could not have Prometheus check the metrics queries; skipping the check", "rule", name)
	}
	for i := range d.cfg.Rules {
		r := &d.cfg.Rules[i]
		groupBy := []string{r.ObjectLabel}
		if r.Namespaced() {
			groupBy = append(groupBy, r.NamespaceLabel)
		}
		check(rulesPath.Index(i), r.Name, &r.query, groupBy)
	}
	for i := range d.cfg.ExternalRules {
		r := &d.cfg.ExternalRules[i]
		check(externalRulesPath.Index(i), r.Name, &r.query, r.GroupBy)
	}
	return errors.Join(errs...)
}

// badSelector reports whether Prometheus refused a series query as malformed, which a
// start-up should not survive; an unreachable Prometheus is only logged.
func badSelector(err error) bool {
	var apiErr *promv1.Error
	return errors.As(err, &apiErr) && apiErr.Type == promv1.ErrBadData
}

// customMetricInfos lists the available custom metrics.
func (p *Provider) customMetricInfos() []provider.CustomMetricInfo {
	keys := p.avail.keys(false)
	seen := map[provider.CustomMetricInfo]bool{}
	out := make([]provider.CustomMetricInfo, 0, len(keys))
	for _, k := range keys {
		r := &p.cfg.Rules[k.rule]
		info := provider.CustomMetricInfo{GroupResource: r.GroupResource(), Namespaced: r.Namespaced(), Metric: k.metric}
		if seen[info] {
			continue
		}
		seen[info] = true
		out = append(out, info)
	}
	return out
}
