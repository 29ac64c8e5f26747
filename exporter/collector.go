package exporter

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/membership"
	"github.com/seedscaler/seedscaler/internal/quantity"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// The series, names written out in full (docs/metrics.md lists them; a test keeps both in
// step). They are immutable after package initialisation.
var (
	seedInfoDesc = prometheus.NewDesc("garden_seed_info",
		"Information about a seed; the value is always 1.",
		[]string{"name", "provider", "region", "visible", "managedseedset", "namespace"}, nil)
	seedCapacityDesc = prometheus.NewDesc("garden_seed_capacity",
		"Total amount of a resource the seed has (status.capacity).",
		[]string{"name", "resource"}, nil)
	seedAllocatableDesc = prometheus.NewDesc("garden_seed_allocatable",
		"Amount of a resource available to shoots on the seed (status.allocatable).",
		[]string{"name", "resource"}, nil)
	seedUsageDesc = prometheus.NewDesc("garden_seed_usage",
		"Amount of a resource shoots use on the seed, counting spec.seedName and a different status.seedName.",
		[]string{"name", "resource"}, nil)
	seedConditionDesc = prometheus.NewDesc("garden_seed_condition",
		"Status of a seed condition: 1 for the current status, 0 for the others.",
		[]string{"name", "condition", "status"}, nil)
	shootsUnscheduledDesc = prometheus.NewDesc("garden_shoots_unscheduled",
		"Number of shoots without spec.seedName.",
		[]string{"provider", "region"}, nil)
	shootInfoDesc = prometheus.NewDesc("garden_shoot_info", shootInfoHelp,
		shootInfoLabelNames[:], nil)
	managedSeedSetSpecReplicasDesc = prometheus.NewDesc("garden_managedseedset_spec_replicas",
		"Desired number of replicas of a ManagedSeedSet (spec.replicas).",
		[]string{"namespace", "name"}, nil)
	managedSeedSetStatusReplicasDesc = prometheus.NewDesc("garden_managedseedset_status_replicas",
		"Number of replicas a ManagedSeedSet has (status.replicas).",
		[]string{"namespace", "name"}, nil)
	managedSeedSetStatusReadyReplicasDesc = prometheus.NewDesc("garden_managedseedset_status_ready_replicas",
		"Number of replicas of a ManagedSeedSet whose Shoot and Seed are ready (status.readyReplicas).",
		[]string{"namespace", "name"}, nil)
	managedSeedSetStatusPendingReplicaRetriesDesc = prometheus.NewDesc("garden_managedseedset_status_pending_replica_retries",
		"Retries of the pending replica's failed shoot, 0 when no replica is pending (status.pendingReplica.retries).",
		[]string{"namespace", "name"}, nil)
	seedAutoscalerSpecMinReplicasDesc = prometheus.NewDesc("garden_seedautoscaler_spec_min_replicas",
		"Lower bound of replicas of a SeedAutoscaler (spec.minReplicas).",
		[]string{"namespace", "name"}, nil)
	seedAutoscalerSpecMaxReplicasDesc = prometheus.NewDesc("garden_seedautoscaler_spec_max_replicas",
		"Upper bound of replicas of a SeedAutoscaler (spec.maxReplicas).",
		[]string{"namespace", "name"}, nil)
	seedAutoscalerStatusCurrentReplicasDesc = prometheus.NewDesc("garden_seedautoscaler_status_current_replicas",
		"Replicas of a SeedAutoscaler's target as last seen (status.currentReplicas).",
		[]string{"namespace", "name"}, nil)
	seedAutoscalerStatusDesiredReplicasDesc = prometheus.NewDesc("garden_seedautoscaler_status_desired_replicas",
		"Replicas a SeedAutoscaler last decided on (status.desiredReplicas).",
		[]string{"namespace", "name"}, nil)
	seedAutoscalerMetricCurrentDesc = prometheus.NewDesc("garden_seedautoscaler_metric_current",
		"Current value of a SeedAutoscaler metric, in its target's unit (percent for Utilization, per seed for AverageValue).",
		[]string{"namespace", "name", "metric"}, nil)
	seedAutoscalerMetricTargetDesc = prometheus.NewDesc("garden_seedautoscaler_metric_target",
		"Target value of a SeedAutoscaler metric (averageUtilization in percent, or averageValue per seed).",
		[]string{"namespace", "name", "metric"}, nil)
	seedAutoscalerConditionDesc = prometheus.NewDesc("garden_seedautoscaler_condition",
		"Status of a SeedAutoscaler condition: 1 for the current status, 0 for the others.",
		[]string{"namespace", "name", "condition", "status"}, nil)
	seedAutoscalerConditionReasonDesc = prometheus.NewDesc("garden_seedautoscaler_condition_reason",
		"Reason of a SeedAutoscaler condition; the value is always 1, one series per condition with a reason.",
		[]string{"namespace", "name", "condition", "reason"}, nil)
	lastCacheSyncDesc = prometheus.NewDesc("garden_exporter_last_cache_sync_timestamp_seconds",
		"Unix time at which the exporter's informer caches last finished syncing; 0 until they have.",
		nil, nil)
)

// Kinds of bad data a scrape skips, the kind label of garden_exporter_scrape_errors_total.
const (
	// errorInvalidQuantity: a capacity, allocatable or metric value that does not parse.
	errorInvalidQuantity = "invalid_quantity"
	// errorMissingProvider: a seed without spec.provider.type or spec.provider.region.
	errorMissingProvider = "missing_provider"
	// errorMalformedObject: a field of an unexpected type.
	errorMalformedObject = "malformed_object"
	// errorDuplicateSeries: two entries that would make the same series (e.g. a
	// SeedAutoscaler with two metrics of one resource, or two conditions of one type); the
	// first wins.
	errorDuplicateSeries = "duplicate_series"
)

var errorKinds = []string{errorInvalidQuantity, errorMissingProvider, errorMalformedObject, errorDuplicateSeries}

// conditionStatuses are the statuses every condition series is emitted for.
var conditionStatuses = [...]string{"True", "False", "Unknown"}

// Sources are the informer stores and indexes a Collector reads.
type Sources struct {
	// Seeds, ManagedSeeds, ManagedSeedSets and SeedAutoscalers hold the transformed
	// unstructured objects.
	Seeds, ManagedSeeds, ManagedSeedSets, SeedAutoscalers toolscache.Store
	// Usage counts the shoots on each seed.
	Usage *usage.Index
	// Shoots holds the shoot info series and unscheduled counts.
	Shoots *shootIndex
}

const shootInfoHelp = "Information about a shoot; the value is always 1."

// Collector is the exporter's prometheus.Collector. A scrape reads informer stores and
// indexes only: no API call, no walk over all shoots.
type Collector struct {
	src          Sources
	log          logr.Logger
	scrapeErrors *prometheus.CounterVec
	// schedulingWaits is garden_shoot_scheduling_wait_seconds, observed by bindingHandler.
	schedulingWaits *prometheus.HistogramVec
	lastSync        atomic.Int64 // Unix nanoseconds; 0 before the first sync
	// infoApart: Handler writes garden_shoot_info, so Collect leaves it out.
	infoApart atomic.Bool
	// noShootInfo: garden_shoot_info is not served at all (SetShootInfo).
	noShootInfo atomic.Bool
}

// SetShootInfo says whether garden_shoot_info is served (the default) or left out, so that
// whoever scrapes the exporter learns no tenant's shoot names.
func (c *Collector) SetShootInfo(on bool) { c.noShootInfo.Store(!on) }

// NewCollector returns a collector over the given sources; it logs skipped bad data to log.
func NewCollector(src Sources, log logr.Logger) *Collector {
	c := &Collector{
		src: src,
		log: log,
		scrapeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "garden_exporter_scrape_errors_total",
			Help: "Bad data a scrape skipped, by kind.",
		}, []string{"kind"}),
		schedulingWaits: newSchedulingWaits(),
	}
	for _, kind := range errorKinds {
		c.scrapeErrors.WithLabelValues(kind)
	}
	return c
}

// MarkSynced records that the informer caches finished syncing at t.
func (c *Collector) MarkSynced(t time.Time) { c.lastSync.Store(t.UnixNano()) }

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		seedInfoDesc, seedCapacityDesc, seedAllocatableDesc, seedUsageDesc, seedConditionDesc,
		shootsUnscheduledDesc, shootInfoDesc,
		managedSeedSetSpecReplicasDesc, managedSeedSetStatusReplicasDesc, managedSeedSetStatusReadyReplicasDesc,
		managedSeedSetStatusPendingReplicaRetriesDesc,
		seedAutoscalerSpecMinReplicasDesc, seedAutoscalerSpecMaxReplicasDesc, seedAutoscalerStatusCurrentReplicasDesc,
		seedAutoscalerStatusDesiredReplicasDesc, seedAutoscalerMetricCurrentDesc, seedAutoscalerMetricTargetDesc,
		seedAutoscalerConditionDesc, seedAutoscalerConditionReasonDesc, lastCacheSyncDesc,
	} {
		ch <- d
	}
	c.scrapeErrors.Describe(ch)
	c.schedulingWaits.Describe(ch)
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	for _, obj := range c.src.Seeds.List() {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			c.collectSeed(ch, u)
		}
	}
	c.src.Shoots.collect(ch, !c.infoApart.Load() && !c.noShootInfo.Load())
	for _, obj := range c.src.ManagedSeedSets.List() {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			c.collectManagedSeedSet(ch, u)
		}
	}
	for _, obj := range c.src.SeedAutoscalers.List() {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			c.collectSeedAutoscaler(ch, u)
		}
	}
	var lastSync float64
	if ns := c.lastSync.Load(); ns != 0 {
		lastSync = float64(ns) / 1e9
	}
	ch <- prometheus.MustNewConstMetric(lastCacheSyncDesc, prometheus.GaugeValue, lastSync)
	c.scrapeErrors.Collect(ch)
	c.schedulingWaits.Collect(ch)
}

func (c *Collector) collectSeed(ch chan<- prometheus.Metric, seed *unstructured.Unstructured) {
	name := seed.GetName()
	log := c.log.WithValues("seed", name)

	provider := nestedString(seed.Object, "spec", "provider", "type")
	region := nestedString(seed.Object, "spec", "provider", "region")
	if provider == "" || region == "" {
		c.skip(log, errorMissingProvider, errors.New("spec.provider.type or spec.provider.region is empty"), "series", "garden_seed_info")
	} else {
		visible := "true" // the API's default when settings.scheduling.visible is unset
		if v, ok, _ := unstructured.NestedFieldNoCopy(seed.Object, "spec", "settings", "scheduling", "visible"); ok {
			if b, isBool := v.(bool); isBool && !b {
				visible = "false"
			}
		}
		set := c.setOfSeed(seed)
		ch <- prometheus.MustNewConstMetric(seedInfoDesc, prometheus.GaugeValue, 1,
			name, provider, region, visible, set.Name, set.Namespace)
	}

	c.collectResources(ch, log, seedCapacityDesc, name, seed.Object, "capacity")
	c.collectResources(ch, log, seedAllocatableDesc, name, seed.Object, "allocatable")
	ch <- prometheus.MustNewConstMetric(seedUsageDesc, prometheus.GaugeValue,
		float64(c.src.Usage.Count(name)), name, gardencorev1beta1.ResourceShoots)
	c.collectConditions(ch, log, seedConditionDesc, nil, seed.Object, name)
}

// setOfSeed is the ManagedSeedSet of a seed (membership.SetOfSeed), by its ManagedSeed in
// the ManagedSeed store; empty for a seed of no set.
func (c *Collector) setOfSeed(seed *unstructured.Unstructured) types.NamespacedName {
	var managedSeed metav1.Object
	if obj, ok, _ := c.src.ManagedSeeds.GetByKey(membership.ManagedSeedOf(seed).String()); ok {
		if u, isUnstructured := obj.(*unstructured.Unstructured); isUnstructured {
			managedSeed = u
		}
	}
	set, _ := membership.SetOfSeed(seed, managedSeed)
	return set
}

// collectResources sends a series per resource of status.<field>, skipping values that
// do not parse.
func (c *Collector) collectResources(ch chan<- prometheus.Metric, log logr.Logger, desc *prometheus.Desc, seed string, obj map[string]any, field string) {
	v, ok, _ := unstructured.NestedFieldNoCopy(obj, "status", field)
	if !ok || v == nil {
		return
	}
	resources, ok := v.(map[string]any)
	if !ok {
		c.skip(log, errorMalformedObject, fmt.Errorf("status.%s is a %T, not a map", field, v), "field", "status."+field)
		return
	}
	for resourceName, raw := range resources {
		value, err := quantityValue(raw)
		if err != nil {
			c.skip(log, errorInvalidQuantity, err, "field", "status."+field, "resource", resourceName)
			continue
		}
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, value, seed, resourceName)
	}
}

// collectConditions sends, for every condition, a series per status of statusDesc (1 for
// the current), and with a reasonDesc a series of the condition's reason when it has one.
func (c *Collector) collectConditions(ch chan<- prometheus.Metric, log logr.Logger, statusDesc, reasonDesc *prometheus.Desc, obj map[string]any, objectLabels ...string) {
	v, ok, _ := unstructured.NestedFieldNoCopy(obj, "status", "conditions")
	if !ok || v == nil {
		return
	}
	conditions, ok := v.([]any)
	if !ok {
		c.skip(log, errorMalformedObject, fmt.Errorf("status.conditions is a %T, not a list", v), "field", "status.conditions")
		return
	}
	seen := make(map[string]bool, len(conditions))
	for _, raw := range conditions {
		condition, _ := raw.(map[string]any)
		typ, _ := condition["type"].(string)
		status, _ := condition["status"].(string)
		if typ == "" {
			c.skip(log, errorMalformedObject, errors.New("a condition without a type"), "field", "status.conditions")
			continue
		}
		if seen[typ] {
			c.skip(log, errorDuplicateSeries, fmt.Errorf("status.conditions has type %s more than once", typ), "condition", typ)
			continue
		}
		seen[typ] = true
		for _, s := range conditionStatuses {
			value := 0.0
			if s == status {
				value = 1
			}
			ch <- prometheus.MustNewConstMetric(statusDesc, prometheus.GaugeValue, value, append(objectLabels, typ, s)...)
		}
		if reasonDesc == nil {
			continue
		}
		if reason, _ := condition["reason"].(string); reason != "" {
			ch <- prometheus.MustNewConstMetric(reasonDesc, prometheus.GaugeValue, 1, append(objectLabels, typ, reason)...)
		}
	}
}

func (c *Collector) collectManagedSeedSet(ch chan<- prometheus.Metric, set *unstructured.Unstructured) {
	namespace, name := set.GetNamespace(), set.GetName()
	log := c.log.WithValues("managedSeedSet", namespace+"/"+name)
	gauges := []struct {
		desc     *prometheus.Desc
		path     []string
		fallback int64
	}{
		{managedSeedSetSpecReplicasDesc, []string{"spec", "replicas"}, 1}, // the API's default
		{managedSeedSetStatusReplicasDesc, []string{"status", "replicas"}, 0},
		{managedSeedSetStatusReadyReplicasDesc, []string{"status", "readyReplicas"}, 0},
		{managedSeedSetStatusPendingReplicaRetriesDesc, []string{"status", "pendingReplica", "retries"}, 0},
	}
	for _, g := range gauges {
		value, err := nestedNumber(set.Object, float64(g.fallback), g.path...)
		if err != nil {
			c.skip(log, errorMalformedObject, err, "field", strings.Join(g.path, "."))
			continue
		}
		ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, value, namespace, name)
	}
}

func (c *Collector) collectSeedAutoscaler(ch chan<- prometheus.Metric, sa *unstructured.Unstructured) {
	namespace, name := sa.GetNamespace(), sa.GetName()
	log := c.log.WithValues("seedAutoscaler", namespace+"/"+name)
	gauges := []struct {
		desc     *prometheus.Desc
		path     []string
		fallback float64
	}{
		{seedAutoscalerSpecMinReplicasDesc, []string{"spec", "minReplicas"}, 1}, // the API's default
		{seedAutoscalerSpecMaxReplicasDesc, []string{"spec", "maxReplicas"}, 0},
		{seedAutoscalerStatusCurrentReplicasDesc, []string{"status", "currentReplicas"}, 0},
		{seedAutoscalerStatusDesiredReplicasDesc, []string{"status", "desiredReplicas"}, 0},
	}
	for _, g := range gauges {
		value, err := nestedNumber(sa.Object, g.fallback, g.path...)
		if err != nil {
			c.skip(log, errorMalformedObject, err, "field", strings.Join(g.path, "."))
			continue
		}
		ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, value, namespace, name)
	}

	targetTypes := c.collectSeedAutoscalerTargets(ch, log, sa)
	c.collectSeedAutoscalerCurrent(ch, log, sa, targetTypes)
	c.collectConditions(ch, log, seedAutoscalerConditionDesc, seedAutoscalerConditionReasonDesc, sa.Object, namespace, name)
}

// collectSeedAutoscalerTargets exports the target of each of spec.metrics and returns the
// target's type per resource: the unit each metric's current value is reported in.
func (c *Collector) collectSeedAutoscalerTargets(ch chan<- prometheus.Metric, log logr.Logger, sa *unstructured.Unstructured) map[string]string {
	namespace, name := sa.GetNamespace(), sa.GetName()
	targetTypes := map[string]string{}
	metrics, _, _ := unstructured.NestedFieldNoCopy(sa.Object, "spec", "metrics")
	specMetrics, _ := metrics.([]any)
	for _, raw := range specMetrics {
		resourceName, target := resourceEntry(raw, "target")
		if resourceName == "" {
			continue
		}
		if _, seen := targetTypes[resourceName]; seen {
			c.skip(log, errorDuplicateSeries, fmt.Errorf("spec.metrics has resource %s more than once", resourceName), "metric", resourceName)
			continue
		}
		typ, _ := target["type"].(string)
		targetTypes[resourceName] = typ
		field := "averageValue"
		if typ == string(autoscalingv1alpha1.UtilizationMetricType) {
			field = "averageUtilization"
		}
		value, err := quantityValue(target[field])
		if err != nil {
			c.skip(log, errorInvalidQuantity, fmt.Errorf("spec.metrics[%s].target.%s: %w", resourceName, field, err), "metric", resourceName)
			continue
		}
		ch <- prometheus.MustNewConstMetric(seedAutoscalerMetricTargetDesc, prometheus.GaugeValue, value, namespace, name, resourceName)
	}
	return targetTypes
}

// collectSeedAutoscalerCurrent exports the current value of each of status.currentMetrics,
// in the unit of its target.
func (c *Collector) collectSeedAutoscalerCurrent(ch chan<- prometheus.Metric, log logr.Logger, sa *unstructured.Unstructured, targetTypes map[string]string) {
	namespace, name := sa.GetNamespace(), sa.GetName()
	current, _, _ := unstructured.NestedFieldNoCopy(sa.Object, "status", "currentMetrics")
	currentMetrics, _ := current.([]any)
	seen := map[string]bool{}
	for _, raw := range currentMetrics {
		resourceName, values := resourceEntry(raw, "current")
		if resourceName == "" || values == nil {
			continue
		}
		if seen[resourceName] {
			c.skip(log, errorDuplicateSeries, fmt.Errorf("status.currentMetrics has resource %s more than once", resourceName), "metric", resourceName)
			continue
		}
		seen[resourceName] = true
		field := currentField(targetTypes[resourceName], values)
		if field == "" {
			continue
		}
		value, err := quantityValue(values[field])
		if err != nil {
			c.skip(log, errorInvalidQuantity, fmt.Errorf("status.currentMetrics[%s].current.%s: %w", resourceName, field, err), "metric", resourceName)
			continue
		}
		ch <- prometheus.MustNewConstMetric(seedAutoscalerMetricCurrentDesc, prometheus.GaugeValue, value, namespace, name, resourceName)
	}
}

// currentField picks the field of a metric's current value that is in its target's unit:
// averageUtilization for a Utilization target, averageValue for an AverageValue target;
// without a target, the first present of averageUtilization, averageValue, value.
func currentField(targetType string, values map[string]any) string {
	switch targetType {
	case string(autoscalingv1alpha1.UtilizationMetricType):
		if _, ok := values["averageUtilization"]; ok {
			return "averageUtilization"
		}
		return ""
	case string(autoscalingv1alpha1.AverageValueMetricType):
		if _, ok := values["averageValue"]; ok {
			return "averageValue"
		}
		return ""
	}
	for _, field := range []string{"averageUtilization", "averageValue", "value"} {
		if _, ok := values[field]; ok {
			return field
		}
	}
	return ""
}

// resourceEntry reads a {type: Resource, resource: {name, <field>: {...}}} list entry.
func resourceEntry(raw any, field string) (string, map[string]any) {
	entry, _ := raw.(map[string]any)
	res, _ := entry["resource"].(map[string]any)
	name, _ := res["name"].(string)
	values, _ := res[field].(map[string]any)
	return name, values
}

// skip logs and counts bad data a scrape leaves out.
func (c *Collector) skip(log logr.Logger, kind string, err error, keysAndValues ...any) {
	c.scrapeErrors.WithLabelValues(kind).Inc()
	log.Error(err, "Skipping bad data in a scrape", append([]any{"kind", kind}, keysAndValues...)...)
}

// quantityValue reads a quantity as the JSON decoder left it: an integer, a float or a
// string such as "100" or "1.5k".
func quantityValue(raw any) (float64, error) {
	switch v := raw.(type) {
	case int64:
		return float64(v), nil
	case float64:
		return v, nil
	case string:
		q, err := quantity.Parse(v)
		if err != nil {
			return 0, fmt.Errorf("quantity %q: %w", v, err)
		}
		f := q.AsApproximateFloat64()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, fmt.Errorf("quantity %q is out of range", v)
		}
		return f, nil
	case nil:
		return 0, errors.New("quantity is missing")
	default:
		return 0, fmt.Errorf("quantity is a %T, neither a number nor a string", raw)
	}
}

// nestedNumber reads an integer field, or fallback when it is absent.
func nestedNumber(obj map[string]any, fallback float64, path ...string) (float64, error) {
	v, ok, _ := unstructured.NestedFieldNoCopy(obj, path...)
	if !ok || v == nil {
		return fallback, nil
	}
	switch n := v.(type) {
	case int64:
		return float64(n), nil
	case float64:
		return n, nil
	default:
		return 0, fmt.Errorf("%v is a %T, not a number", path, v)
	}
}
