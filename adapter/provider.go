package adapter

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"golang.org/x/sync/singleflight"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/metrics/pkg/apis/custom_metrics"
	"k8s.io/metrics/pkg/apis/external_metrics"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/provider"
)

// ObjectLister finds the names of the objects of a resource that match a label selector,
// from a cache: a list request must not list objects from the kube-apiserver.
type ObjectLister interface {
	// Names returns the names of the objects of gr in namespace (empty for cluster-scoped
	// resources) that match selector. The slice may be shared between requests: callers
	// must not modify it.
	Names(gr schema.GroupResource, namespace string, selector labels.Selector) ([]string, error)
}

// Provider answers custom.metrics.k8s.io and external.metrics.k8s.io from Prometheus.
type Provider struct {
	cfg     *Config
	prom    promv1.API
	instant *instantQuerier
	clock   clock.WithTicker
	metrics *Metrics
	avail   *availability
	objects ObjectLister
	// kinds of the rules' resources, for the described object of each value.
	kinds  map[schema.GroupResource]schema.GroupVersionKind
	mapper apimeta.RESTMapper
	cache  *valueCache
	// manySeries holds the query shapes whose answers had many raw series per value: their
	// timestamps are grouped by Prometheus from then on (see rawSeriesPerValue).
	manySeries sync.Map
}

var (
	_ provider.CustomMetricsProvider   = &Provider{}
	_ provider.ExternalMetricsProvider = &Provider{}
)

// NewProvider builds a provider over a validated configuration. prom is the client_golang
// API client of Prometheus and hc the HTTP client under it, over which the value queries
// read their answers themselves. kinds maps each rule's resource to its kind; mapper
// normalizes resources a request names differently (e.g. singular); objects resolves label
// selectors of list requests.
func NewProvider(cfg *Config, prom promapi.Client, hc *http.Client, clk clock.WithTicker, metrics *Metrics, kinds map[schema.GroupResource]schema.GroupVersionKind, mapper apimeta.RESTMapper, objects ObjectLister) *Provider {
	return &Provider{
		cfg:     cfg,
		prom:    promv1.NewAPI(refusalReportingClient{prom}),
		instant: newInstantQuerier(prom, hc),
		clock:   clk,
		metrics: metrics,
		avail:   newAvailability(cfg.Discovery.Retention.Duration),
		objects: objects,
		kinds:   kinds,
		mapper:  mapper,
		cache:   &valueCache{ttl: cfg.Values.CacheTTL.Duration, clock: clk, entries: map[string]cachedVectors{}},
	}
}

// discoverer of the provider's availability.
func (p *Provider) discoverer() *discoverer {
	return &discoverer{prom: p.prom, cfg: p.cfg, clock: p.clock, metrics: p.metrics, avail: p.avail}
}

// ListAllMetrics lists the custom metrics discovery found.
func (p *Provider) ListAllMetrics() []provider.CustomMetricInfo {
	return p.customMetricInfos()
}

// ListAllExternalMetrics lists the external metrics discovery found.
func (p *Provider) ListAllExternalMetrics() []provider.ExternalMetricInfo {
	keys := p.avail.keys(true)
	seen := map[string]bool{}
	out := make([]provider.ExternalMetricInfo, 0, len(keys))
	for _, k := range keys {
		if !seen[k.metric] {
			seen[k.metric] = true
			out = append(out, provider.ExternalMetricInfo{Metric: k.metric})
		}
	}
	return out
}

// customRule finds the rule serving a metric of a resource and the series it reads.
func (p *Provider) customRule(info provider.CustomMetricInfo) (*Rule, string, bool) {
	gr := info.GroupResource
	if _, ok := p.kinds[gr]; !ok && p.mapper != nil {
		// The request may name the resource differently, e.g. singular or without a group.
		if normalized, _, err := info.Normalized(p.mapper); err == nil {
			gr = normalized.GroupResource
		}
	}
	for i := range p.cfg.Rules {
		r := &p.cfg.Rules[i]
		if r.GroupResource() != gr {
			continue
		}
		if series, ok := p.seriesFor(false, i, &r.query, info.Metric); ok {
			return r, series, true
		}
	}
	return nil, "", false
}

// seriesFor maps an exposed metric name to the series of rule i: the one discovery saw,
// or, for a rule that keeps series names, the name itself, so that a metric can be read
// before the first discovery has seen it.
func (p *Provider) seriesFor(external bool, i int, spec *querySpec, metric string) (string, bool) {
	if series, ok := p.avail.series(external, i, metric); ok {
		return series, true
	}
	if spec.as == "" && spec.matches.MatchString(metric) && model.LegacyValidation.IsValidMetricName(metric) {
		return metric, true
	}
	return "", false
}

// GetMetricByName returns the value of a metric for one object.
func (p *Provider) GetMetricByName(ctx context.Context, name types.NamespacedName, info provider.CustomMetricInfo, metricSelector labels.Selector) (*custom_metrics.MetricValue, error) {
	value, err := p.getMetricByName(ctx, name, info, metricSelector)
	p.countRequest(apiCustom, err)
	return value, err
}

func (p *Provider) getMetricByName(ctx context.Context, name types.NamespacedName, info provider.CustomMetricInfo, metricSelector labels.Selector) (*custom_metrics.MetricValue, error) {
	rule, series, ok := p.customRule(info)
	if !ok {
		return nil, p.unknownMetric(info.GroupResource, info.Metric)
	}
	res, err := p.queryObjects(ctx, rule, series, name.Namespace, metricSelector, matcher{rule.ObjectLabel, "=", name.Name})
	if err != nil {
		return nil, err
	}
	s, reason := res.lookup(objectKey(rule, name.Namespace, name.Name))
	if reason != "" {
		return nil, p.notFound(rule.GroupResource(), info.Metric, fmt.Sprintf("%s %s", rule.GroupResource(), klog.KRef(name.Namespace, name.Name)), reason)
	}
	v := p.newMetricValues(rule, info.Metric, name.Namespace, metricSelector).of(name.Name, s)
	return &v, nil
}

// GetMetricBySelector returns the values of a metric for every object a label selector
// picks, from one Prometheus query filtered by the metric selector and namespace: objects
// are matched in memory, never by listing their names in the query. Objects without a
// usable value are left out; when none has one, the metric is not found.
func (p *Provider) GetMetricBySelector(ctx context.Context, namespace string, selector labels.Selector, info provider.CustomMetricInfo, metricSelector labels.Selector) (*custom_metrics.MetricValueList, error) {
	list, err := p.getMetricBySelector(ctx, namespace, selector, info, metricSelector)
	p.countRequest(apiCustom, err)
	return list, err
}

func (p *Provider) getMetricBySelector(ctx context.Context, namespace string, selector labels.Selector, info provider.CustomMetricInfo, metricSelector labels.Selector) (*custom_metrics.MetricValueList, error) {
	rule, series, ok := p.customRule(info)
	if !ok {
		return nil, p.unknownMetric(info.GroupResource, info.Metric)
	}
	// The names a selector matched are remembered until an object changes (objects.go), so
	// they are read before the query rather than beside it.
	names, err := p.objects.Names(rule.GroupResource(), namespace, selector)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("listing %s from the cache: %w", rule.GroupResource(), err))
	}
	res, err := p.queryObjects(ctx, rule, series, namespace, metricSelector)
	if err != nil {
		return nil, err
	}
	list := p.buildList(rule, info.Metric, namespace, names, metricSelector, res)
	if len(list.Items) == 0 {
		return nil, provider.NewMetricNotFoundForSelectorError(rule.GroupResource(), info.Metric, "*", selector)
	}
	return list, nil
}

// buildList makes the values of the named objects that have a usable one in res.
func (p *Provider) buildList(rule *Rule, metric, namespace string, names []string, metricSelector labels.Selector, res result) *custom_metrics.MetricValueList {
	list := &custom_metrics.MetricValueList{Items: make([]custom_metrics.MetricValue, 0, min(len(names), len(res.groups)))}
	values := p.newMetricValues(rule, metric, namespace, metricSelector)
	for _, name := range names {
		if s, reason := res.lookup(objectKey(rule, namespace, name)); reason == "" {
			list.Items = append(list.Items, values.of(name, s))
		}
	}
	return list
}

// queryObjects runs a rule's value query for the objects of a namespace (ignored for
// cluster-scoped rules), filtered by the metric selector and any extra matchers, and
// returns the result keyed by objectKey.
func (p *Provider) queryObjects(ctx context.Context, rule *Rule, series, namespace string, metricSelector labels.Selector, extra ...matcher) (result, error) {
	matchers, err := selectorMatchers(metricSelector)
	if err != nil {
		return result{}, apierrors.NewBadRequest(err.Error())
	}
	matchers = append(matchers, extra...)
	groupBy := []string{rule.ObjectLabel}
	if rule.Namespaced() {
		matchers = append(matchers, matcher{rule.NamespaceLabel, "=", namespace})
		groupBy = append(groupBy, rule.NamespaceLabel)
	}
	q, err := p.valueQuery(&rule.query, series, matchers, groupBy, nil)
	if err != nil {
		return result{}, apierrors.NewInternalError(err)
	}
	return p.run(ctx, q)
}

// objectKey is the key of an object's value in the result of queryObjects.
func objectKey(rule *Rule, namespace, name string) string {
	if rule.Namespaced() {
		return groupKey(name, namespace)
	}
	return groupKey(name)
}

// metricValues makes the values of one answer, which differ only in the object and the
// sample: what they share is worked out once, not for each of a thousand objects.
type metricValues struct {
	object custom_metrics.ObjectReference
	metric custom_metrics.MetricIdentifier
	window *int64
}

func (p *Provider) newMetricValues(rule *Rule, metric, namespace string, metricSelector labels.Selector) metricValues {
	gvk := p.kinds[rule.GroupResource()]
	v := metricValues{
		object: custom_metrics.ObjectReference{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind},
		metric: custom_metrics.MetricIdentifier{Name: metric, Selector: labelSelector(metricSelector)},
		// Shared by the values of the answer, which is encoded and dropped, never changed.
		window: ptr.To(int64(rule.query.window / time.Second)),
	}
	if rule.Namespaced() {
		v.object.Namespace = namespace
	}
	return v
}

// of is the value of the object named name.
func (v metricValues) of(name string, s sample) custom_metrics.MetricValue {
	object := v.object
	object.Name = name
	return custom_metrics.MetricValue{
		DescribedObject: object,
		Metric:          v.metric,
		Timestamp:       metav1.NewTime(s.timestamp),
		WindowSeconds:   v.window,
		Value:           quantity(s.value),
	}
}

// GetExternalMetric returns the values of an external metric, one per label set of the
// rule's groupBy.
func (p *Provider) GetExternalMetric(ctx context.Context, namespace string, metricSelector labels.Selector, info provider.ExternalMetricInfo) (*external_metrics.ExternalMetricValueList, error) {
	list, err := p.getExternalMetric(ctx, namespace, metricSelector, info)
	p.countRequest(apiExternal, err)
	return list, err
}

func (p *Provider) getExternalMetric(ctx context.Context, namespace string, metricSelector labels.Selector, info provider.ExternalMetricInfo) (*external_metrics.ExternalMetricValueList, error) {
	gr := schema.GroupResource{Group: external_metrics.GroupName, Resource: info.Metric}
	var (
		rule   *ExternalRule
		series string
	)
	for i := range p.cfg.ExternalRules {
		if s, ok := p.seriesFor(true, i, &p.cfg.ExternalRules[i].query, info.Metric); ok {
			rule, series = &p.cfg.ExternalRules[i], s
			break
		}
	}
	if rule == nil {
		return nil, p.unknownMetric(gr, info.Metric)
	}
	params, metricSelector, err := rule.query.takeParams(metricSelector)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("external metric %s: %v", info.Metric, err))
	}
	matchers, err := selectorMatchers(metricSelector)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if rule.NamespaceLabel != "" {
		matchers = append(matchers, matcher{rule.NamespaceLabel, "=", namespace})
	}
	q, err := p.valueQuery(&rule.query, series, matchers, rule.GroupBy, params)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	res, err := p.run(ctx, q)
	if err != nil {
		return nil, err
	}
	usable := res.usable()
	list := &external_metrics.ExternalMetricValueList{Items: make([]external_metrics.ExternalMetricValue, 0, len(usable))}
	window := ptr.To(int64(rule.query.window / time.Second))
	for _, s := range usable {
		list.Items = append(list.Items, external_metrics.ExternalMetricValue{
			MetricName:    info.Metric,
			MetricLabels:  s.labels(rule.GroupBy),
			Timestamp:     metav1.NewTime(s.timestamp),
			WindowSeconds: window,
			Value:         quantity(s.value),
		})
	}
	if len(list.Items) == 0 {
		return nil, provider.NewMetricNotFoundForSelectorError(gr, info.Metric, "", metricSelector)
	}
	return list, nil
}

// valueQuery builds a value query, with its timestamps grouped in Prometheus when earlier
// answers of the same shape had many raw series per value.
func (p *Provider) valueQuery(spec *querySpec, series string, matchers []matcher, groupBy []string, params map[string]int64) (valueQuery, error) {
	_, many := p.manySeries.Load(queryShape{spec: spec, series: series})
	return buildValueQuery(spec, series, matchers, groupBy, params, many)
}

// run executes a value query, through the cache, and reads its result at now. The values
// and their sample timestamps are two queries at the same evaluation time, side by side.
func (p *Provider) run(ctx context.Context, q valueQuery) (result, error) {
	halves, err := p.cache.get(ctx, q.key(), func(ctx context.Context) (vectors, error) {
		begin := p.clock.Now()
		out, err := p.instant.values(ctx, q, begin)
		p.metrics.queryDuration.WithLabelValues(queryKindValue).Observe(p.clock.Since(begin).Seconds())
		if err != nil {
			p.metrics.queryErrors.WithLabelValues(queryKindValue).Inc()
			return vectors{}, err
		}
		return out, nil
	}, p.metrics)
	if err != nil {
		// Never a value when Prometheus cannot tell: the caller gets an error it can see.
		return result{}, apierrors.NewServiceUnavailable(fmt.Sprintf("querying Prometheus: %v", err))
	}
	if !q.groupedTimestamps && manyRawSeries(len(halves.values), len(halves.timestamps)) {
		if _, known := p.manySeries.LoadOrStore(q.shape, struct{}{}); !known {
			klog.FromContext(ctx).Info("Prometheus will group the timestamps of this series from now on: it has many raw series per value",
				"rule", q.shape.spec.template.Name(), "series", q.shape.series, "rawSeries", len(halves.timestamps), "values", len(halves.values))
		}
	}
	return readResult(halves.values, halves.timestamps, p.clock.Now(), p.cfg.Values.Staleness.Duration), nil
}

// unknownMetric is the error for a metric no rule serves: not found, unless discovery could
// not look because Prometheus refused the adapter's credentials.
func (p *Provider) unknownMetric(gr schema.GroupResource, metric string) error {
	if err := p.avail.refusedCredentials(); err != nil {
		return apierrors.NewServiceUnavailable(fmt.Sprintf("listing the metrics of Prometheus: %v", err))
	}
	return provider.NewMetricNotFoundError(gr, metric)
}

// notFound says that a metric has no usable value for an object, and why.
func (p *Provider) notFound(gr schema.GroupResource, metric, object string, reason missingReason) error {
	msg := fmt.Sprintf("the server could not find the metric %s for %s: %s", metric, object, reason)
	if reason == missingStale {
		msg += fmt.Sprintf(" (its newest sample is older than %s)", p.cfg.Values.Staleness.Duration)
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotFound,
		Reason:  metav1.StatusReasonNotFound,
		Details: &metav1.StatusDetails{Group: gr.Group, Kind: gr.Resource, Name: metric},
		Message: msg,
	}}
}

func (p *Provider) countRequest(api string, err error) {
	switch {
	case err == nil:
		p.metrics.requests.WithLabelValues(api, resultOK).Inc()
	case apierrors.IsNotFound(err):
		p.metrics.requests.WithLabelValues(api, resultMissing).Inc()
	default:
		p.metrics.requests.WithLabelValues(api, resultError).Inc()
	}
}

// quantity keeps three decimals of a value, as metrics of the Kubernetes APIs do.
func quantity(v float64) resource.Quantity {
	return *resource.NewMilliQuantity(int64(v*1000), resource.DecimalSI)
}

// labelSelector is the metric label selector reported with each value; nil when empty.
func labelSelector(sel labels.Selector) *metav1.LabelSelector {
	if sel == nil || sel.Empty() {
		return nil
	}
	ls, err := metav1.ParseToLabelSelector(sel.String())
	if err != nil {
		return nil
	}
	return ls
}

// vectors are the two halves of a value query's answer.
type vectors struct {
	values, timestamps []promSample
}

// cachedVectors are a value query's answer and when it was fetched.
type cachedVectors struct {
	vectors
	fetchedAt time.Time
}

// valueCache reuses a query's result for a short time and merges concurrent identical
// queries into one, so that a burst of requests (the HPA of many targets, several
// autoscaler replicas) costs Prometheus one query. Errors are never cached.
type valueCache struct {
	ttl   time.Duration
	clock clock.PassiveClock

	mu      sync.Mutex
	entries map[string]cachedVectors
	flight  singleflight.Group
}

func (c *valueCache) get(ctx context.Context, query string, fetch func(context.Context) (vectors, error), metrics *Metrics) (vectors, error) {
	if c.ttl > 0 {
		c.mu.Lock()
		e, ok := c.entries[query]
		c.mu.Unlock()
		if ok && c.clock.Since(e.fetchedAt) < c.ttl {
			metrics.cacheHits.Inc()
			return e.vectors, nil
		}
	}
	v, err, _ := c.flight.Do(query, func() (any, error) {
		// Callers share this query: one giving up must not fail the others (the HTTP
		// client's timeout still bounds it).
		vec, err := fetch(context.WithoutCancel(ctx))
		if err != nil {
			return vectors{}, err
		}
		if c.ttl > 0 {
			c.mu.Lock()
			now := c.clock.Now()
			c.entries[query] = cachedVectors{vectors: vec, fetchedAt: now}
			for q, e := range c.entries {
				if now.Sub(e.fetchedAt) >= c.ttl {
					delete(c.entries, q)
				}
			}
			c.mu.Unlock()
		}
		return vec, nil
	})
	if err != nil {
		return vectors{}, err
	}
	return v.(vectors), nil
}
