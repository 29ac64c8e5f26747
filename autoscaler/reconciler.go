// Package autoscaler is the SeedAutoscaler controller: it reads a target's seeds and their
// metrics, asks autoscaler/recommend for the replicas, and writes them through the target's
// scale subresource.
package autoscaler

import (
	"context"
	"errors"
	"fmt"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/scale"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	custommetrics "k8s.io/metrics/pkg/client/custom_metrics"
	externalmetrics "k8s.io/metrics/pkg/client/external_metrics"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/objectlock"
	"github.com/seedscaler/seedscaler/internal/setcapacity"
)

// DefaultSyncPeriod is how often every SeedAutoscaler is evaluated, as HPA's default.
const DefaultSyncPeriod = 15 * time.Second

// DefaultMetricMaxAge is how old a metric sample may be and still count.
const DefaultMetricMaxAge = 5 * time.Minute

// Reasons of the events the autoscaler records on a SeedAutoscaler.
const (
	// EventSuccessfulRescale: the target was scaled, old → new and why.
	EventSuccessfulRescale = controllerutils.Normal("SuccessfulRescale")
	// EventDryRunRescale: in dry-run mode, the target would have been scaled.
	EventDryRunRescale = controllerutils.Normal("DryRunRescale")
	// EventFailedRescale: writing the target's scale failed.
	EventFailedRescale = controllerutils.Warning("FailedRescale")
	// EventFailedGetScale: reading the target's scale failed.
	EventFailedGetScale = controllerutils.Warning("FailedGetScale")
	// EventMetricsUnavailable: a metric or the pending demand cannot be read (ScalingActive
	// False with FailedGetResourceMetric, IncompleteMetrics, FailedGetPendingMetric or
	// FallbackActive).
	EventMetricsUnavailable = controllerutils.Warning("MetricsUnavailable")
	// EventScalingDisabled: someone else scaled the target to zero; the autoscaler leaves it.
	EventScalingDisabled = controllerutils.Normal(recommend.ReasonScalingDisabled)
	// EventScalingPaused: the pause annotation holds the target at its replicas.
	EventScalingPaused = controllerutils.Normal(recommend.ReasonScalingPaused)
	// EventInvalidPausedReplicas: the pause annotation is not a number; the replicas hold.
	EventInvalidPausedReplicas = controllerutils.Warning(recommend.ReasonInvalidPausedReplicas)
	// EventInvalidSelector: the target's scale has no usable selector; the replicas hold.
	EventInvalidSelector = controllerutils.Warning(recommend.ReasonInvalidSelector)
	// EventInvalidCapacityAnnotation: the target's capacity annotation is ignored.
	EventInvalidCapacityAnnotation = controllerutils.Warning(recommend.ReasonInvalidCapacityAnnotation)
	// EventUnknownReplicaCapacity: a new replica's capacity depends on a parent gardenlet's
	// that is not known.
	EventUnknownReplicaCapacity = controllerutils.Warning(recommend.ReasonUnknownReplicaCapacity)
	// EventInvalidPriceAnnotation: the target's seed-hour price annotation is ignored by the
	// scheduler's choice among sets.
	EventInvalidPriceAnnotation = controllerutils.Warning(recommend.ReasonInvalidPriceAnnotation)
	// EventScalingLimited: a scale-in was held at what the set can remove, or at what the
	// disruption budgets of EmptySeedRemoval allow.
	EventScalingLimited = controllerutils.Normal("ScalingLimited")
	// EventScaleInPaused, EventScaleOutPaused, EventScaleInAndOutPaused: the paused-scale-in
	// or paused-scale-out annotation now holds the target in that direction.
	EventScaleInPaused       = controllerutils.Normal(recommend.ReasonScaleInPaused)
	EventScaleOutPaused      = controllerutils.Normal(recommend.ReasonScaleOutPaused)
	EventScaleInAndOutPaused = controllerutils.Normal(recommend.ReasonScaleInAndOutPaused)
	// EventNotPaused: neither direction is paused any more.
	EventNotPaused = controllerutils.Normal(recommend.ReasonNotPaused)
	// EventInvalidPauseAnnotation: a direction's pause annotation is neither "true" nor
	// "false"; that direction is held.
	EventInvalidPauseAnnotation = controllerutils.Warning(recommend.ReasonInvalidPauseAnnotation)
)

var (
	seedGroupKind = schema.GroupKind{Group: gardencorev1beta1.GroupVersion.Group, Kind: "Seed"}
	setGroupKind  = schema.GroupKind{Group: seedmanagementv1alpha1.GroupVersion.Group, Kind: "ManagedSeedSet"}
)

// Reconciler reconciles SeedAutoscalers. AddToManager fills the unset dependencies.
type Reconciler struct {
	// Client reads Seeds, ManagedSeeds and ManagedSeedSets from the cache and writes
	// SeedAutoscaler status.
	Client client.Client
	// Reader reads the SeedAutoscaler itself from the API server, not the cache: its status
	// holds the history the policies measure against, and a reconcile that the scale it
	// just made triggers must see the scale event it just wrote, or it scales twice.
	Reader client.Reader
	// Scales reads and writes the target's scale subresource; Mapper maps its kind.
	Scales scale.ScalesGetter
	Mapper meta.RESTMapper
	// Metrics is the custom metrics API (the adapter).
	Metrics custommetrics.CustomMetricsClient
	// ExternalMetrics is the external metrics API (the adapter), which serves the forecasts
	// of spec.scaleAhead.
	ExternalMetrics externalmetrics.ExternalMetricsClient
	// Recorder emits events on the SeedAutoscaler.
	Recorder events.EventRecorder
	Clock    clock.PassiveClock
	// SyncPeriod is how often each SeedAutoscaler is evaluated.
	SyncPeriod time.Duration
	// MetricMaxAge is how old a sample may be and still count.
	MetricMaxAge time.Duration
	// DryRun records recommendations in status and events but never scales.
	DryRun bool
	// Instruments are the controller's own Prometheus metrics.
	Instruments *Instruments
	// Replicas says how replicas of this controller share objects: nil or leader-election
	// mode reconciles every object here; object-locks mode locks each one (internal/objectlock).
	Replicas *objectlock.Replicas
	// ReactToSamples evaluates each SeedAutoscaler again as soon as its next metric sample
	// can be visible (cadence.go) rather than only every SyncPeriod.
	ReactToSamples bool

	cadences cadences
}

// +kubebuilder:rbac:groups=autoscaling.seedscaler.io,resources=seedautoscalers,verbs=get;list;watch
// +kubebuilder:rbac:groups=autoscaling.seedscaler.io,resources=seedautoscalers/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=seedmanagement.gardener.cloud,resources=managedseedsets,verbs=get;list;watch
// +kubebuilder:rbac:groups=seedmanagement.gardener.cloud,resources=managedseedsets/scale,verbs=get;update
// +kubebuilder:rbac:groups=seedmanagement.gardener.cloud,resources=managedseeds,verbs=get;list;watch
// +kubebuilder:rbac:groups=core.gardener.cloud,resources=seeds,verbs=get;list;watch
// +kubebuilder:rbac:groups=core.gardener.cloud,resources=shoots,verbs=get;list;watch
// The custom metrics API authorizes a metric as the subresource of the kind it describes:
// exactly the two metrics the autoscaler reads, no wildcard.
// +kubebuilder:rbac:groups=custom.metrics.k8s.io,resources=seeds.core.gardener.cloud/garden_seed_usage;managedseedsets.seedmanagement.gardener.cloud/seedscaler_scheduler_pending_shoots,verbs=get;list
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile evaluates one SeedAutoscaler: read the target's scale, observe its seeds and
// metrics, decide, scale, and write the status once at the end.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (_ reconcile.Result, retErr error) {
	start := r.Clock.Now()
	defer func() { r.Instruments.observeReconcile(r.Clock.Since(start), retErr) }()

	sa := &autoscalingv1alpha1.SeedAutoscaler{}
	if err := r.Reader.Get(ctx, req.NamespacedName, sa); err != nil {
		if apierrors.IsNotFound(err) {
			r.cadences.forget(req.NamespacedName)
			r.Instruments.forget(req.NamespacedName)
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !sa.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, nil // nothing of ours to clean up
	}
	ctx = logf.IntoContext(ctx, logf.FromContext(ctx).WithValues("target", sa.Spec.ScaleTargetRef.Kind+"/"+sa.Spec.ScaleTargetRef.Name))

	before := sa.DeepCopy()
	defer func() {
		if retErr == nil {
			sa.Status.ObservedGeneration = sa.Generation
		}
		if err := controllerutils.PatchStatus(ctx, r.Client, sa, before, false); err != nil {
			retErr = errors.Join(retErr, err)
		}
	}()

	newest, err := r.reconcileNormal(ctx, sa)
	if err != nil {
		return reconcile.Result{}, err
	}
	if !r.ReactToSamples {
		return reconcile.Result{RequeueAfter: r.SyncPeriod}, nil
	}
	return reconcile.Result{RequeueAfter: r.cadences.next(req.NamespacedName, newest, r.Clock.Now(), r.SyncPeriod)}, nil
}

// reconcileNormal is the story of one evaluation; it leaves the new status in sa and
// returns the time of the newest sample it read from each source (cadence.go).
func (r *Reconciler) reconcileNormal(ctx context.Context, sa *autoscalingv1alpha1.SeedAutoscaler) (map[string]time.Time, error) {
	now := r.Clock.Now()
	sa.Status.Reference = sa.Spec.ScaleTargetRef.Kind + "/" + sa.Spec.ScaleTargetRef.Name
	gr, sc, err := r.getScale(ctx, sa)
	if err != nil {
		reason, message := scaleTargetProblem(ctx, r.Reader, sa, err)
		r.setCondition(sa, autoscalingv1alpha1.SeedAutoscalerAbleToScale, controllerutils.False(reason, message))
		r.event(sa, EventFailedGetScale, "GetScale", "%s", message)
		return nil, err
	}
	sa.Status.CurrentReplicas = sc.Spec.Replicas

	d, obs, in, err := r.decide(ctx, sa, sc, now)
	if err != nil {
		return nil, err
	}
	a := r.scaleAhead(ctx, sa, obs, in, d)
	current := sc.Spec.Replicas // apply writes the new replicas into sc
	b := r.readBudgets(sa, obs, now)
	final := pause(sa, current, r.holdDirections(sa, current, b.holdRemovals(current, a.decision)))
	if err := r.apply(ctx, sa, gr, sc, final, now); err != nil {
		return nil, err
	}
	if err := r.consolidate(ctx, sa, obs, in, final, b, now); err != nil {
		return nil, err
	}
	if a.scaledOutAhead && !r.DryRun && final.DesiredReplicas == a.decision.DesiredReplicas && final.DesiredReplicas > current {
		r.event(sa, EventScaledOutAhead, "Scale", "%s", rescaleMessage(current, final.DesiredReplicas, final.Reason))
	}
	return obs.newestSamples(), nil
}

// decide observes the target's seeds and metrics and decides, and returns what it observed
// and decided on. With an unusable selector nothing can be observed: the replicas hold and
// ScalingActive says why.
func (r *Reconciler) decide(ctx context.Context, sa *autoscalingv1alpha1.SeedAutoscaler, sc *autoscalingv1.Scale, now time.Time) (recommend.Decision, *observation, recommend.Input, error) {
	selector, err := labels.Parse(sc.Status.Selector)
	if err != nil || selector.Empty() {
		problem := fmt.Sprintf("the target's scale has no usable status.selector (%q)", sc.Status.Selector)
		if err != nil {
			problem += ": " + err.Error()
		}
		msg := problem + "; the seeds of the target cannot be found and the replicas hold: the target's scale subresource must serve a selector of its seeds " +
			"(for a ManagedSeedSet its spec.selector: gardener-apiserver serves it, seedscaler's CRD serves the set's status.selector, which seedscaler's set controller writes)"
		obs := &observation{current: sc.Spec.Replicas}
		in := buildInput(sa, obs, now, r.MetricMaxAge)
		return recommend.Hold(in, controllerutils.False(recommend.ReasonInvalidSelector, msg)), obs, in, nil
	}
	obs, err := r.observe(ctx, sa, sc, selector)
	if err != nil {
		return recommend.Decision{}, nil, recommend.Input{}, err
	}
	in := buildInput(sa, obs, now, r.MetricMaxAge)
	return recommend.Decide(in), obs, in, nil
}

// apply scales the target to the decision and puts the decision into status, also when the
// scale cannot be written: status then shows what was decided and why it did not happen.
func (r *Reconciler) apply(ctx context.Context, sa *autoscalingv1alpha1.SeedAutoscaler, gr schema.GroupResource, sc *autoscalingv1.Scale, d recommend.Decision, now time.Time) error {
	current, desired := sc.Spec.Replicas, d.DesiredReplicas
	logf.FromContext(ctx).V(1).Info("Decided", "current", current, "desired", desired, "reason", d.Reason)

	able := d.AbleToScale
	scaled := false
	switch {
	case desired == current:
	case r.DryRun:
		able = controllerutils.True(recommend.ReasonDryRun, fmt.Sprintf("dry run: would scale from %d to %d", current, desired))
		r.event(sa, EventDryRunRescale, "Scale", "Dry run, not scaled: %s", rescaleMessage(current, desired, d.Reason))
	default:
		if err := r.scale(ctx, sa, gr, sc, d, now); err != nil {
			r.writeDecision(sa, d, controllerutils.False(recommend.ReasonFailedUpdateScale, err.Error()))
			r.event(sa, EventFailedRescale, "Scale", "%s", err.Error())
			return err
		}
		scaled = true
		able = controllerutils.True(recommend.ReasonSucceededRescale, fmt.Sprintf("the autoscaler scaled the target from %d to %d", current, desired))
	}
	r.Instruments.decision(direction(current, desired))

	r.writeDecision(sa, d, able)
	switch {
	case scaled && desired == 0 && d.ScalingActive.Reason != recommend.ReasonScalingPaused:
		r.setCondition(sa, autoscalingv1alpha1.SeedAutoscalerScaledToZero, controllerutils.True(recommend.ReasonScaledToZero,
			"the autoscaler scaled the target to zero replicas: it had no demand and its last seed was empty"))
	case current > 0 || scaled:
		r.setCondition(sa, autoscalingv1alpha1.SeedAutoscalerScaledToZero, controllerutils.False(recommend.ReasonNotScaledToZero,
			"the target has replicas, or was not scaled to zero by the autoscaler"))
	}
	return nil
}

// scale writes the decided replicas through the target's scale subresource and records the
// scale event in status.
func (r *Reconciler) scale(ctx context.Context, sa *autoscalingv1alpha1.SeedAutoscaler, gr schema.GroupResource, sc *autoscalingv1.Scale, d recommend.Decision, now time.Time) error {
	current, desired := sc.Spec.Replicas, d.DesiredReplicas
	sc.Spec.Replicas = desired
	if _, err := r.Scales.Scales(sa.Namespace).Update(ctx, gr, sc, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("scaling %s %s/%s from %d to %d: %w", sa.Spec.ScaleTargetRef.Kind, sa.Namespace, sa.Spec.ScaleTargetRef.Name, current, desired, err)
	}
	sa.Status.LastScaleTime = &metav1.Time{Time: now}
	sa.Status.ScaleEvents = scaleEventsStatus(recommend.RecordScaleEvent(now, desired-current,
		recommend.BehaviorFromSpec(sa.Spec.Behavior), scaleEventsFromStatus(sa.Status.ScaleEvents)))
	logf.FromContext(ctx).Info("Scaled the target", "from", current, "to", desired, "reason", d.Reason)
	r.event(sa, EventSuccessfulRescale, "Scale", "%s", rescaleMessage(current, desired, d.Reason))
	return nil
}

// getScale reads the target's scale through its scale subresource.
func (r *Reconciler) getScale(ctx context.Context, sa *autoscalingv1alpha1.SeedAutoscaler) (schema.GroupResource, *autoscalingv1.Scale, error) {
	ref := sa.Spec.ScaleTargetRef
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return schema.GroupResource{}, nil, fmt.Errorf("spec.scaleTargetRef.apiVersion %q of SeedAutoscaler %s: %w", ref.APIVersion, klog.KObj(sa), err)
	}
	mapping, err := r.Mapper.RESTMapping(schema.GroupKind{Group: gv.Group, Kind: ref.Kind}, gv.Version)
	if err != nil {
		return schema.GroupResource{}, nil, fmt.Errorf("mapping the target kind %s of SeedAutoscaler %s: %w", ref.Kind, klog.KObj(sa), err)
	}
	gr := mapping.Resource.GroupResource()
	sc, err := r.Scales.Scales(sa.Namespace).Get(ctx, gr, ref.Name, metav1.GetOptions{})
	if err != nil {
		return gr, nil, fmt.Errorf("reading the scale of %s %s/%s: %w", ref.Kind, sa.Namespace, ref.Name, err)
	}
	return gr, sc, nil
}

// observe reads the target's seeds, those the selector of its scale picks, from the cache
// and their metrics from the custom metrics API.
func (r *Reconciler) observe(ctx context.Context, sa *autoscalingv1alpha1.SeedAutoscaler, sc *autoscalingv1.Scale, selector labels.Selector) (*observation, error) {
	obs := &observation{
		current:     sc.Spec.Replicas,
		seeds:       map[string]*gardencorev1beta1.Seed{},
		usage:       map[string]map[string]sample{},
		usageErrors: map[string]string{},
	}
	ref := sa.Spec.ScaleTargetRef
	gv, _ := schema.ParseGroupVersion(ref.APIVersion)
	targetGK := schema.GroupKind{Group: gv.Group, Kind: ref.Kind}
	if targetGK == setGroupKind {
		if err := r.readSet(ctx, sa, selector, obs); err != nil {
			return nil, err
		}
	}
	if err := r.readSeeds(ctx, sa, selector, obs); err != nil {
		return nil, err
	}
	r.readUsage(sa, selector, obs)

	if obs.set == nil {
		return obs, nil // no pending-fit for other kinds (buildInput)
	}
	pending, err := r.Metrics.NamespacedMetrics(sa.Namespace).GetForObject(targetGK, ref.Name, MetricPendingShoots, labels.Everything())
	if err != nil {
		r.Instruments.fetchError(MetricPendingShoots)
		logf.FromContext(ctx).V(1).Info("Pending shoots unknown", "error", err.Error())
	} else {
		obs.pending = &sample{value: pending.Value.AsApproximateFloat64(), at: pending.Timestamp.Time}
	}
	return obs, nil
}

// readSet fills obs with the target ManagedSeedSet, its parent seed, its ManagedSeeds
// (those its selector picks) and which of them are deleted or protected.
func (r *Reconciler) readSet(ctx context.Context, sa *autoscalingv1alpha1.SeedAutoscaler, selector labels.Selector, obs *observation) error {
	ref := sa.Spec.ScaleTargetRef
	obs.set = &seedmanagementv1alpha1.ManagedSeedSet{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: sa.Namespace, Name: ref.Name}, obs.set); err != nil {
		return fmt.Errorf("reading ManagedSeedSet %s/%s, the target of SeedAutoscaler %s: %w", sa.Namespace, ref.Name, klog.KObj(sa), err)
	}
	list := &seedmanagementv1alpha1.ManagedSeedList{}
	if err := r.Client.List(ctx, list, client.InNamespace(sa.Namespace), client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return fmt.Errorf("listing the ManagedSeeds of ManagedSeedSet %s/%s: %w", sa.Namespace, ref.Name, err)
	}
	if name := setcapacity.ParentSeedName(obs.set); name != "" {
		parent := &gardencorev1beta1.Seed{}
		switch err := r.Client.Get(ctx, client.ObjectKey{Name: name}, parent); {
		case err == nil:
			obs.parent = parent
		case !apierrors.IsNotFound(err):
			return fmt.Errorf("reading seed %s, the parent of ManagedSeedSet %s/%s's replicas: %w", name, sa.Namespace, ref.Name, err)
		}
	}
	obs.managedSeeds = list.Items
	obs.managedSeedsDeleting = map[string]bool{}
	for i := range list.Items {
		if list.Items[i].DeletionTimestamp != nil {
			obs.managedSeedsDeleting[list.Items[i].Name] = true
		}
	}
	return r.readShootProtection(ctx, sa, obs)
}

// readUsage fills obs.usage with the usage of each resource of the spec on the seeds in
// obs.seeds, from the custom metrics API, and obs.usageErrors with why it could not.
func (r *Reconciler) readUsage(sa *autoscalingv1alpha1.SeedAutoscaler, selector labels.Selector, obs *observation) {
	for _, res := range resourcesOf(sa) {
		values, err := r.Metrics.RootScopedMetrics().GetForObjects(seedGroupKind, selector, MetricSeedUsage,
			labels.SelectorFromSet(labels.Set{"resource": res}))
		if err != nil {
			r.Instruments.fetchError(MetricSeedUsage)
			obs.usageErrors[res] = fmt.Sprintf("fetching %s{resource=%q} from the custom metrics API: %v", MetricSeedUsage, res, err)
			continue
		}
		byName := map[string]sample{}
		for _, v := range values.Items {
			if _, ok := obs.seeds[v.DescribedObject.Name]; ok {
				byName[v.DescribedObject.Name] = sample{value: v.Value.AsApproximateFloat64(), at: v.Timestamp.Time}
			}
		}
		obs.usage[res] = byName
	}
}

// readShootProtection fills obs.shootsProtected: the set controller keeps a replica whose
// Shoot carries protect-from-deletion as it keeps one whose ManagedSeed does. Only the
// Shoots' metadata is cached, which is all this needs.
func (r *Reconciler) readShootProtection(ctx context.Context, sa *autoscalingv1alpha1.SeedAutoscaler, obs *observation) error {
	obs.shootsProtected = map[string]bool{}
	for i := range obs.managedSeeds {
		ms := &obs.managedSeeds[i]
		name := ms.Name
		if ms.Spec.Shoot != nil && ms.Spec.Shoot.Name != "" {
			name = ms.Spec.Shoot.Name
		}
		shoot := &metav1.PartialObjectMetadata{}
		shoot.SetGroupVersionKind(gardencorev1beta1.GroupVersion.WithKind("Shoot"))
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ms.Namespace, Name: name}, shoot); err != nil {
			if apierrors.IsNotFound(err) {
				continue // not created yet, or gone
			}
			return fmt.Errorf("reading Shoot %s/%s of ManagedSeed %s, a replica of the target of SeedAutoscaler %s: %w", ms.Namespace, name, ms.Name, klog.KObj(sa), err)
		}
		if shoot.Annotations[seedmanagementv1alpha1.AnnotationProtectFromDeletion] == "true" {
			obs.shootsProtected[ms.Name] = true
		}
	}
	return nil
}

// readSeeds fills obs.seeds with the target's seeds from the cache. Seeds are
// cluster-scoped: of a ManagedSeedSet, only the seeds of its own ManagedSeeds (named
// alike) count, even if a set elsewhere uses the same labels, so those are read by name
// rather than by a list of every seed; of any other target, every seed its selector matches.
func (r *Reconciler) readSeeds(ctx context.Context, sa *autoscalingv1alpha1.SeedAutoscaler, selector labels.Selector, obs *observation) error {
	ref := sa.Spec.ScaleTargetRef
	if obs.set != nil {
		for _, ms := range obs.managedSeeds {
			seed := &gardencorev1beta1.Seed{}
			if err := r.Client.Get(ctx, client.ObjectKey{Name: ms.Name}, seed); err != nil {
				if apierrors.IsNotFound(err) {
					continue // not registered yet
				}
				return fmt.Errorf("reading Seed %s of %s %s/%s: %w", ms.Name, ref.Kind, sa.Namespace, ref.Name, err)
			}
			if selector.Matches(labels.Set(seed.Labels)) {
				obs.seeds[seed.Name] = seed
			}
		}
		return nil
	}
	seeds := &gardencorev1beta1.SeedList{}
	if err := r.Client.List(ctx, seeds, client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return fmt.Errorf("listing the seeds of %s %s/%s: %w", ref.Kind, sa.Namespace, ref.Name, err)
	}
	for i := range seeds.Items {
		obs.seeds[seeds.Items[i].Name] = &seeds.Items[i]
	}
	return nil
}

// writeDecision puts the decision into status, and records a Warning the moment metrics
// become unavailable and an event the moment a scale-in is held by removable seeds.
func (r *Reconciler) writeDecision(sa *autoscalingv1alpha1.SeedAutoscaler, d recommend.Decision, able controllerutils.Outcome) {
	if !d.ScalingActive.IsTrue() && controllerutils.ConditionChanged(sa.Status.Conditions, autoscalingv1alpha1.SeedAutoscalerScalingActive, d.ScalingActive) {
		r.event(sa, scalingActiveEvent(d.ScalingActive.Reason), "Evaluate", "%s", d.ScalingActive.Message)
	}
	if (d.ScalingLimited.Reason == recommend.ReasonTooFewRemovableSeeds || d.ScalingLimited.Reason == recommend.ReasonDisruptionBudget) &&
		controllerutils.ConditionChanged(sa.Status.Conditions, autoscalingv1alpha1.SeedAutoscalerScalingLimited, d.ScalingLimited) {
		r.event(sa, EventScalingLimited, "Evaluate", "%s", d.ScalingLimited.Message)
	}

	sa.Status.DesiredReplicas = d.DesiredReplicas
	sa.Status.CurrentMetrics = metricStatuses(d.Metrics)
	sa.Status.Targets = recommend.Targets(d.Metrics)
	sa.Status.Recommendations = recommendationsStatus(d.Recommendations)
	sa.Status.MetricFailures = metricFailuresStatus(d.MetricFailures)
	sa.Status.Headroom = headroomStatus(sa, d.Headroom)
	r.setCondition(sa, autoscalingv1alpha1.SeedAutoscalerAbleToScale, able)
	r.setCondition(sa, autoscalingv1alpha1.SeedAutoscalerScalingActive, d.ScalingActive)
	r.setCondition(sa, autoscalingv1alpha1.SeedAutoscalerScalingLimited, d.ScalingLimited)
}

// scalingActiveEvent is the event of a reason of ScalingActive False: MetricsUnavailable
// only when metrics are, so that the event means one thing; a reason of its own otherwise,
// a Warning for what needs fixing, Normal for what someone chose.
func scalingActiveEvent(reason controllerutils.Reason) controllerutils.EventReason {
	switch reason {
	case recommend.ReasonFailedGetResourceMetric, recommend.ReasonIncompleteMetrics, recommend.ReasonFailedGetPendingMetric, recommend.ReasonFallbackActive:
		return EventMetricsUnavailable
	case recommend.ReasonScalingDisabled:
		return EventScalingDisabled
	case recommend.ReasonScalingPaused:
		return EventScalingPaused
	case recommend.ReasonInvalidPausedReplicas:
		return EventInvalidPausedReplicas
	case recommend.ReasonInvalidSelector:
		return EventInvalidSelector
	case recommend.ReasonInvalidCapacityAnnotation:
		return EventInvalidCapacityAnnotation
	case recommend.ReasonUnknownReplicaCapacity:
		return EventUnknownReplicaCapacity
	case recommend.ReasonInvalidPriceAnnotation:
		return EventInvalidPriceAnnotation
	default:
		return controllerutils.Warning(reason)
	}
}

func (r *Reconciler) setCondition(sa *autoscalingv1alpha1.SeedAutoscaler, conditionType string, o controllerutils.Outcome) {
	controllerutils.SetCondition(&sa.Status.Conditions, conditionType, o, sa.Generation, r.Clock.Now())
}

func (r *Reconciler) event(sa *autoscalingv1alpha1.SeedAutoscaler, reason controllerutils.EventReason, action, note string, args ...any) {
	controllerutils.Event(r.Recorder, sa, nil, reason, action, note, args...)
}
