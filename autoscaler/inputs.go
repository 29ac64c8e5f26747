package autoscaler

import (
	"errors"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/setcapacity"
)

// Metric names of the contract in docs/metrics.md, as the adapter serves them.
const (
	// MetricSeedUsage is the usage of a seed's resource, with the resource as label.
	MetricSeedUsage = "garden_seed_usage"
	// MetricPendingShoots is the scheduler's count of shoots no seed accepts that fit a
	// new replica of a ManagedSeedSet.
	MetricPendingShoots = "seedscaler_scheduler_pending_shoots"
)

// sample is one metric value with its sample time.
type sample struct {
	value float64
	at    time.Time
}

// observation is what one reconcile found out about the target, before any decision.
type observation struct {
	// current is the target's spec.replicas read through /scale.
	current int32
	// seeds of the target, by name.
	seeds map[string]*gardencorev1beta1.Seed
	// managedSeeds of the target when it is a ManagedSeedSet; nil otherwise.
	managedSeeds []seedmanagementv1alpha1.ManagedSeed
	// managedSeedsDeleting names the ManagedSeeds of the target being deleted.
	managedSeedsDeleting map[string]bool
	// shootsProtected names the ManagedSeeds whose Shoot is protected from deletion.
	shootsProtected map[string]bool
	// set is the target when it is a ManagedSeedSet; nil otherwise.
	set *seedmanagementv1alpha1.ManagedSeedSet
	// parent is the seed the set's replica shoots run on, whose gardenlet configuration
	// the replicas' gardenlets merge with; nil when not registered or not a set.
	parent *gardencorev1beta1.Seed
	// usage per resource: seed name to sample; a resource is missing when it failed.
	usage map[string]map[string]sample
	// usageErrors per resource that could not be fetched at all.
	usageErrors map[string]string
	// pending shoots that fit a new replica; nil when unknown or when the target is not a
	// ManagedSeedSet.
	pending *sample
}

// deleting says whether the seed or the ManagedSeed that registered it is being deleted:
// such a replica is on its way out and is not measured.
func (obs *observation) deleting(seed *gardencorev1beta1.Seed) bool {
	return seed.DeletionTimestamp != nil || obs.managedSeedsDeleting[seed.Name]
}

// metricKey names a metric in status.metricFailures and messages.
func metricKey(m autoscalingv1alpha1.MetricSpec) string {
	if m.Resource == nil {
		return string(m.Type)
	}
	return "resource/" + string(m.Resource.Name)
}

// resourcesOf lists the resources to fetch: every metric's, and shoots, which pending
// demand and the emptiness of seeds need.
func resourcesOf(sa *autoscalingv1alpha1.SeedAutoscaler) []string {
	seen := map[string]bool{gardencorev1beta1.ResourceShoots: true}
	out := []string{gardencorev1beta1.ResourceShoots}
	for _, m := range sa.Spec.Metrics {
		if m.Resource != nil && !seen[string(m.Resource.Name)] {
			seen[string(m.Resource.Name)] = true
			out = append(out, string(m.Resource.Name))
		}
	}
	return out
}

// fresh says whether a sample is recent enough to decide on. The adapter drops stale
// series already; this guards against a lagging adapter or Prometheus.
func fresh(s sample, now time.Time, maxAge time.Duration) bool {
	return maxAge <= 0 || now.Sub(s.at) <= maxAge
}

// seedIsReady is true while the seed's gardenlet is ready.
func seedIsReady(seed *gardencorev1beta1.Seed) bool {
	return meta.IsStatusConditionTrue(seed.Status.Conditions, gardencorev1beta1.SeedGardenletReady)
}

// readyFor is how long the seed has been ready, from its GardenletReady condition.
func readyFor(seed *gardencorev1beta1.Seed, now time.Time) time.Duration {
	since, ok := readySince(seed)
	if !ok {
		return 0
	}
	return now.Sub(since)
}

// readySince is the last transition of the seed's GardenletReady condition; false without one.
func readySince(seed *gardencorev1beta1.Seed) (time.Time, bool) {
	c := meta.FindStatusCondition(seed.Status.Conditions, gardencorev1beta1.SeedGardenletReady)
	if c == nil {
		return time.Time{}, false
	}
	return c.LastTransitionTime.Time, true
}

func quantity(list corev1.ResourceList, name string) (float64, bool) {
	q, ok := list[corev1.ResourceName(name)]
	if !ok {
		return 0, false
	}
	return q.AsApproximateFloat64(), true
}

// seedSamples joins the seeds with their usage samples for one resource. Allocatable comes
// from the Seed's status (the seed controller's capacity − reserved), readiness from its
// GardenletReady condition, usage only from the metrics API.
func seedSamples(obs *observation, res string, now time.Time, maxAge time.Duration) []recommend.Seed {
	names := make([]string, 0, len(obs.seeds))
	for name := range obs.seeds {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]recommend.Seed, 0, len(names))
	for _, name := range names {
		seed := obs.seeds[name]
		s := recommend.Seed{Name: name, Ready: seedIsReady(seed), Deleting: obs.deleting(seed)}
		s.Allocatable, _ = quantity(seed.Status.Allocatable, res)
		if smp, ok := obs.usage[res][name]; ok && fresh(smp, now, maxAge) {
			s.Usage, s.HasUsage = smp.value, true
		} else if s.Ready && readyFor(seed, now) < maxAge {
			// Just Ready and not scraped since: still bootstrapping as far as the metrics
			// path goes, not a seed whose samples went missing.
			s.Ready = false
		}
		out = append(out, s)
	}
	return out
}

// target converts a metric target.
func target(t autoscalingv1alpha1.MetricTarget) recommend.Target {
	if t.Type == autoscalingv1alpha1.AverageValueMetricType && t.AverageValue != nil {
		return recommend.Target{AverageValue: t.AverageValue.AsApproximateFloat64()}
	}
	if t.AverageUtilization != nil {
		return recommend.Target{UtilizationPercent: *t.AverageUtilization}
	}
	return recommend.Target{UtilizationPercent: 100}
}

// removableReplicas counts the replicas the set can remove beyond spec.replicas: replicas
// asked for that do not exist yet, and existing ones that are not protected from deletion
// (on the ManagedSeed or the Shoot, as the set controller reads it) and whose seed is
// empty, less those a scale-in in flight removes already. Empty is a fresh
// garden_seed_usage of 0 shoots, or status.usage when the metric is missing; a replica
// without a registered seed hosts nothing. Without ManagedSeeds (a target that is not a
// ManagedSeedSet) every empty seed counts.
func removableReplicas(obs *observation, now time.Time, maxAge time.Duration) int32 {
	empty := func(name string) bool {
		seed, ok := obs.seeds[name]
		if !ok {
			return true
		}
		if smp, ok := obs.usage[gardencorev1beta1.ResourceShoots][name]; ok && fresh(smp, now, maxAge) {
			return smp.value == 0
		}
		used, ok := quantity(seed.Status.Usage, gardencorev1beta1.ResourceShoots)
		return ok && used == 0
	}
	var removable int32
	if obs.set == nil {
		for name := range obs.seeds {
			if empty(name) {
				removable++
			}
		}
		return removable
	}
	live := int32(0)
	for i := range obs.managedSeeds {
		ms := &obs.managedSeeds[i]
		if ms.DeletionTimestamp != nil {
			continue
		}
		live++
		if ms.Annotations[seedmanagementv1alpha1.AnnotationProtectFromDeletion] == "true" || obs.shootsProtected[ms.Name] {
			continue
		}
		if empty(ms.Name) {
			removable++
		}
	}
	// Replicas beyond spec.replicas are being removed already and use up removable seeds
	// first; replicas asked for that do not exist yet can be canceled.
	return max(0, removable-max(0, live-obs.current)) + max(0, obs.current-live)
}

// buildInput turns the observation, the spec and the history in status into the plain
// input of a decision.
func buildInput(sa *autoscalingv1alpha1.SeedAutoscaler, obs *observation, now time.Time, maxAge time.Duration) recommend.Input {
	metrics, shootsTarget := metricsOf(sa, obs, now, maxAge)
	in := recommend.Input{
		Now:               now,
		CurrentReplicas:   obs.current,
		MinReplicas:       minReplicas(sa),
		MaxReplicas:       sa.Spec.MaxReplicas,
		Behavior:          recommend.BehaviorFromSpec(sa.Spec.Behavior),
		RemovableReplicas: removableReplicas(obs, now, maxAge),
		ScaledToZero:      meta.IsStatusConditionTrue(sa.Status.Conditions, autoscalingv1alpha1.SeedAutoscalerScaledToZero),
		Metrics:           metrics,
		Demand:            demandOf(obs, shootsTarget, now, maxAge),
		MetricFailures:    map[string]recommend.MetricFailure{},
	}
	if sa.Spec.Headroom != nil {
		in.Headroom = float64(sa.Spec.Headroom.Shoots)
	}
	for _, f := range sa.Status.MetricFailures {
		failure := recommend.MetricFailure{Since: f.Since.Time, FallbackReplicas: ptr.Deref(f.FallbackReplicas, 0)}
		if f.FallbackActiveSince != nil {
			failure.FallbackSince = f.FallbackActiveSince.Time
		}
		in.MetricFailures[f.Metric] = failure
	}
	in.Recommendations = recommendationsFromStatus(sa.Status.Recommendations)
	for _, e := range sa.Status.ScaleEvents {
		in.ScaleEvents = append(in.ScaleEvents, recommend.ScaleEvent{At: e.Timestamp.Time, Change: e.ReplicaChange})
	}
	return in
}

// metricsOf is the resource metrics of the spec with the samples observed for each, and the
// target of the shoots metric (100% utilization when the spec has none), which the pending
// demand is measured against.
func metricsOf(sa *autoscalingv1alpha1.SeedAutoscaler, obs *observation, now time.Time, maxAge time.Duration) ([]recommend.Metric, recommend.Target) {
	var metrics []recommend.Metric
	shootsTarget := recommend.Target{UtilizationPercent: 100}
	for _, m := range sa.Spec.Metrics {
		if m.Resource == nil {
			continue
		}
		res := string(m.Resource.Name)
		metric := recommend.Metric{
			Key: metricKey(m), Resource: res, Target: target(m.Resource.Target),
			FetchError: obs.usageErrors[res],
		}
		if metric.FetchError == "" {
			metric.Seeds = seedSamples(obs, res, now, maxAge)
		}
		if m.Fallback != nil {
			metric.Fallback = &recommend.Fallback{
				FailureDuration: time.Duration(m.Fallback.FailureDurationSeconds) * time.Second,
				Behavior:        m.Fallback.Behavior, Replicas: ptr.Deref(m.Fallback.Replicas, 0),
			}
		}
		if res == gardencorev1beta1.ResourceShoots {
			shootsTarget = metric.Target
		}
		metrics = append(metrics, metric)
	}
	return metrics, shootsTarget
}

// demandOf is the demand of shoots: those on the target's seeds and those pending for it.
func demandOf(obs *observation, shootsTarget recommend.Target, now time.Time, maxAge time.Duration) recommend.Demand {
	demand := recommend.Demand{Seeds: seedSamples(obs, gardencorev1beta1.ResourceShoots, now, maxAge), Target: shootsTarget}
	if obs.set != nil {
		// The scheduler's answer, so that the replicas the autoscaler adds are the ones
		// the pending shoots were counted against.
		perSeed, err := setcapacity.NewReplicaShoots(obs.set, obs.parent, setcapacity.DefaultShoots)
		demand.AllocatablePerSeed, demand.AllocatableSource = float64(perSeed.Shoots), perSeed.Source
		var unknownParent *setcapacity.UnknownParentError
		switch {
		case errors.As(err, &unknownParent):
			demand.UnknownReplicaCapacity = err.Error()
		case err != nil:
			demand.InvalidCapacityAnnotation = err.Error()
		}
		// The price only ranks the set in the scheduler's choice; the scheduler ignores an
		// invalid one, and the set's autoscaler is where its owner looks.
		if _, err := setcapacity.SeedHourPrice(obs.set); err != nil {
			demand.InvalidPriceAnnotation = err.Error()
		}
	}
	switch {
	case obs.set == nil:
		// Pending-fit needs a template a pending shoot could fit; only a ManagedSeedSet
		// has one, and the scheduler publishes the series for sets only. Another target
		// has no pending demand to wait for.
		demand.PendingKnown = true
	case obs.pending != nil && fresh(*obs.pending, now, maxAge):
		demand.Pending, demand.PendingKnown = obs.pending.value, true
	}
	return demand
}

func minReplicas(sa *autoscalingv1alpha1.SeedAutoscaler) int32 {
	if sa.Spec.MinReplicas == nil {
		return 1
	}
	return *sa.Spec.MinReplicas
}

// metricStatuses renders the measured values for status.currentMetrics.
func metricStatuses(values []recommend.MetricValue) []autoscalingv1alpha1.MetricStatus {
	out := make([]autoscalingv1alpha1.MetricStatus, 0, len(values))
	for _, v := range values {
		st := autoscalingv1alpha1.MetricStatus{
			Type:     autoscalingv1alpha1.ResourceMetricSourceType,
			Resource: &autoscalingv1alpha1.ResourceMetricStatus{Name: v.Resource},
		}
		if v.Known {
			st.Resource.Current.Value = floatQuantity(v.Value)
			st.Resource.Current.AverageValue = floatQuantity(v.AverageValue)
			if v.Target.AverageValue <= 0 {
				st.Resource.Current.AverageUtilization = &v.UtilizationPercent
			}
		}
		out = append(out, st)
	}
	return out
}

// floatQuantity renders a value in milli-units, exact for counts like shoots.
func floatQuantity(v float64) *resource.Quantity {
	return resource.NewMilliQuantity(int64(v*1000+0.5), resource.DecimalSI)
}

// history converts the decision's history for status, oldest first.
// recommendationsFromStatus reads a stabilization history kept in status, the reverse of
// recommendationsStatus.
func recommendationsFromStatus(recs []autoscalingv1alpha1.TimestampedRecommendation) []recommend.Recommendation {
	var out []recommend.Recommendation
	for _, r := range recs {
		out = append(out, recommend.Recommendation{At: r.Timestamp.Time, Replicas: r.Replicas})
	}
	return out
}

func recommendationsStatus(recs []recommend.Recommendation) []autoscalingv1alpha1.TimestampedRecommendation {
	out := make([]autoscalingv1alpha1.TimestampedRecommendation, 0, len(recs))
	for _, r := range recs {
		out = append(out, autoscalingv1alpha1.TimestampedRecommendation{Timestamp: metav1.NewTime(r.At), Replicas: r.Replicas})
	}
	return out
}

func scaleEventsStatus(events []recommend.ScaleEvent) []autoscalingv1alpha1.ScaleEvent {
	out := make([]autoscalingv1alpha1.ScaleEvent, 0, len(events))
	for _, e := range events {
		out = append(out, autoscalingv1alpha1.ScaleEvent{Timestamp: metav1.NewTime(e.At), ReplicaChange: e.Change})
	}
	return out
}

func scaleEventsFromStatus(events []autoscalingv1alpha1.ScaleEvent) []recommend.ScaleEvent {
	out := make([]recommend.ScaleEvent, 0, len(events))
	for _, e := range events {
		out = append(out, recommend.ScaleEvent{At: e.Timestamp.Time, Change: e.ReplicaChange})
	}
	return out
}

func metricFailuresStatus(failures map[string]recommend.MetricFailure) []autoscalingv1alpha1.MetricFailure {
	keys := make([]string, 0, len(failures))
	for k := range failures {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]autoscalingv1alpha1.MetricFailure, 0, len(keys))
	for _, k := range keys {
		f := failures[k]
		st := autoscalingv1alpha1.MetricFailure{Metric: k, Since: metav1.NewTime(f.Since)}
		if !f.FallbackSince.IsZero() {
			st.FallbackActiveSince = &metav1.Time{Time: f.FallbackSince}
			st.FallbackReplicas = ptr.To(f.FallbackReplicas)
		}
		out = append(out, st)
	}
	return out
}

// headroomStatus renders what spec.headroom asked for; nil without spec.headroom.
func headroomStatus(sa *autoscalingv1alpha1.SeedAutoscaler, h *recommend.HeadroomResult) *autoscalingv1alpha1.HeadroomStatus {
	switch {
	case sa.Spec.Headroom == nil:
		return nil
	case h == nil:
		return &autoscalingv1alpha1.HeadroomStatus{Message: "unknown: the target's seeds could not be observed"}
	case !h.Known:
		return &autoscalingv1alpha1.HeadroomStatus{Message: controllerutils.Truncate(h.Message, 1024)}
	}
	return &autoscalingv1alpha1.HeadroomStatus{
		FreeShoots: ptr.To(int32(h.Free)), Replicas: ptr.To(h.Replicas), Message: controllerutils.Truncate(h.Message, 1024),
	}
}

// direction names a change of replicas for events and metrics.
func direction(from, to int32) string {
	switch {
	case to > from:
		return "up"
	case to < from:
		return "down"
	default:
		return "none"
	}
}

// rescaleMessage is the note of a rescale event: "3 → 5: resource/shoots is 90% of target 50%".
func rescaleMessage(from, to int32, reason string) string {
	return fmt.Sprintf("%d → %d: %s", from, to, reason)
}
