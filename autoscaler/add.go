package autoscaler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/scale"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	custommetrics "k8s.io/metrics/pkg/client/custom_metrics"
	externalmetrics "k8s.io/metrics/pkg/client/external_metrics"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/membership"
)

// ControllerName is the name of the SeedAutoscaler controller.
const ControllerName = "seedautoscaler"

// targetIndex indexes SeedAutoscalers by the target they scale, so a change of a
// ManagedSeedSet finds its autoscalers without a list of them all.
const targetIndex = "spec.scaleTargetRef"

// targetKey is the index value of a target: group/kind/name (within the namespace).
func targetKey(apiVersion, kind, name string) string {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	return gv.Group + "/" + kind + "/" + name
}

// AddToManager adds the controller to mgr, filling unset dependencies with defaults: the
// manager's client, a discovery-backed RESTMapper and scale client, the custom and external
// metrics clients for the manager's config, the real clock and the manager's event recorder.
func (r *Reconciler) AddToManager(ctx context.Context, mgr manager.Manager) error {
	if err := r.setDefaults(mgr); err != nil {
		return err
	}
	if err := r.setClients(mgr); err != nil {
		return err
	}
	if err := mgr.GetFieldIndexer().IndexField(ctx, &autoscalingv1alpha1.SeedAutoscaler{}, targetIndex, func(o client.Object) []string {
		ref := o.(*autoscalingv1alpha1.SeedAutoscaler).Spec.ScaleTargetRef
		return []string{targetKey(ref.APIVersion, ref.Kind, ref.Name)}
	}); err != nil {
		return fmt.Errorf("indexing SeedAutoscalers by target: %w", err)
	}

	rec, err := r.Replicas.Wrap(mgr, ControllerName, autoscalingv1alpha1.GroupVersion.WithKind("SeedAutoscaler"), 1, r)
	if err != nil {
		return err
	}
	return builder.ControllerManagedBy(mgr).
		Named(ControllerName).
		// After an error, retry within the sync period: the default doubles up to about 16
		// minutes, far longer than an autoscaler may go unevaluated.
		WithOptions(controller.Options{RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](5*time.Millisecond, r.SyncPeriod)}).
		// Annotations too: pausing and resuming take effect at once.
		For(&autoscalingv1alpha1.SeedAutoscaler{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Watches(&seedmanagementv1alpha1.ManagedSeedSet{},
			handler.EnqueueRequestsFromMapFunc(r.MapSetToAutoscalers),
			builder.WithPredicates(TargetChanged())).
		// A seed that joins, leaves or turns ready or not changes the capacity a decision
		// counts; its heartbeats and usage updates pass by.
		Watches(&gardencorev1beta1.Seed{},
			handler.EnqueueRequestsFromMapFunc(r.MapSeedToAutoscalers),
			builder.WithPredicates(SeedCapacityChanged())).
		Complete(rec)
}

// SeedCapacityChanged lets through what changes the capacity of a set: a seed created or
// deleted, and updates of its labels (which set selects it), its GardenletReady status,
// its allocatable or the start of its deletion.
func SeedCapacityChanged() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*gardencorev1beta1.Seed)
		n, ok2 := e.ObjectNew.(*gardencorev1beta1.Seed)
		if !ok1 || !ok2 {
			return false
		}
		return !maps.Equal(o.Labels, n.Labels) || seedIsReady(o) != seedIsReady(n) ||
			!equality.Semantic.DeepEqual(o.Status.Allocatable, n.Status.Allocatable) ||
			(o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil)
	}}
}

// MapSeedToAutoscalers maps a Seed to the SeedAutoscalers of every ManagedSeedSet whose
// spec.selector picks the seed: the selector a set's scale subresource serves (Gardener's
// computes it from spec.selector, and a Gardener set has no status.selector), which must
// match the seed template's labels. Sets are few, and read from the cache.
func (r *Reconciler) MapSeedToAutoscalers(ctx context.Context, obj client.Object) []reconcile.Request {
	sets := &seedmanagementv1alpha1.ManagedSeedSetList{}
	if err := r.Client.List(ctx, sets, client.UnsafeDisableDeepCopy); err != nil {
		logf.FromContext(ctx).Error(err, "Listing the ManagedSeedSets for a Seed failed", "seed", klog.KObj(obj))
		return nil
	}
	var out []reconcile.Request
	for i := range sets.Items {
		selector, err := metav1.LabelSelectorAsSelector(sets.Items[i].Spec.Selector.AsMetav1())
		if err != nil || selector.Empty() || !selector.Matches(labels.Set(obj.GetLabels())) {
			continue
		}
		out = append(out, r.MapSetToAutoscalers(ctx, &sets.Items[i])...)
	}
	return out
}

// setDefaults fills the Reconciler's unset plain dependencies: the manager's client,
// reader and event recorder, the real clock, the default periods and the instruments.
func (r *Reconciler) setDefaults(mgr manager.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	if r.Reader == nil {
		r.Reader = mgr.GetAPIReader()
	}
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.SyncPeriod <= 0 {
		r.SyncPeriod = DefaultSyncPeriod
	}
	if r.MetricMaxAge == 0 {
		r.MetricMaxAge = DefaultMetricMaxAge
	}
	if r.Recorder == nil {
		recorder, err := app.NewEventRecorder(mgr, ControllerName, app.EventRecorderOptions{})
		if err != nil {
			return err
		}
		r.Recorder = recorder
	}
	if r.Instruments == nil {
		i, err := NewInstruments(ctrlmetrics.Registry)
		if err != nil {
			return fmt.Errorf("registering the autoscaler's metrics: %w", err)
		}
		r.Instruments = i
	}
	return nil
}

// setClients fills the Reconciler's unset API clients for the manager's config: a
// discovery-backed RESTMapper and scale client, and the custom and external metrics clients.
func (r *Reconciler) setClients(mgr manager.Manager) error {
	cfg := mgr.GetConfig()
	if r.Mapper == nil {
		r.Mapper = mgr.GetRESTMapper()
	}
	if r.Scales == nil || r.Metrics == nil {
		dc, err := discovery.NewDiscoveryClientForConfig(cfg)
		if err != nil {
			return fmt.Errorf("creating a discovery client: %w", err)
		}
		if r.Scales == nil {
			r.Scales, err = scale.NewForConfig(cfg, r.Mapper, dynamic.LegacyAPIPathResolverFunc, scale.NewDiscoveryScaleKindResolver(dc))
			if err != nil {
				return fmt.Errorf("creating the scale client: %w", err)
			}
		}
		if r.Metrics == nil {
			// Lists of a thousand values: protobuf, not JSON (docs/performance.md).
			r.Metrics = custommetrics.NewForConfig(app.Protobuf(cfg), r.Mapper, custommetrics.NewAvailableAPIsGetter(dc))
		}
	}
	if r.ExternalMetrics == nil {
		// One value per forecast: JSON, as the client's own codec speaks it.
		em, err := externalmetrics.NewForConfig(cfg)
		if err != nil {
			return fmt.Errorf("creating the external metrics client: %w", err)
		}
		r.ExternalMetrics = em
	}
	if r.Client == nil || r.Scales == nil || r.Metrics == nil {
		return errors.New("the SeedAutoscaler controller needs a client, a scale client and a custom metrics client")
	}
	return nil
}

// TargetChanged lets through the changes of a target that can change a decision: its spec
// (replicas through /scale included), its annotations (the capacity hint) and its status
// replicas and selector (the selector seedscaler's CRD serves through /scale, which its set
// controller writes). The set controller's other status updates pass by.
func TargetChanged() predicate.Predicate {
	return predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{},
		predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*seedmanagementv1alpha1.ManagedSeedSet)
			n, ok2 := e.ObjectNew.(*seedmanagementv1alpha1.ManagedSeedSet)
			return ok1 && ok2 && (o.Status.Replicas != n.Status.Replicas || o.Status.Selector != n.Status.Selector)
		}})
}

// MapSetToAutoscalers maps a ManagedSeedSet to the SeedAutoscalers that scale it.
func (r *Reconciler) MapSetToAutoscalers(ctx context.Context, obj client.Object) []reconcile.Request {
	list := &autoscalingv1alpha1.SeedAutoscalerList{}
	key := targetKey(seedmanagementv1alpha1.GroupVersion.String(), "ManagedSeedSet", obj.GetName())
	if err := r.Client.List(ctx, list, client.InNamespace(obj.GetNamespace()), client.MatchingFields{targetIndex: key}); err != nil {
		logf.FromContext(ctx).Error(err, "Listing the SeedAutoscalers of a ManagedSeedSet failed", "managedSeedSet", klog.KObj(obj))
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for _, sa := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: sa.Namespace, Name: sa.Name}})
	}
	return out
}

// CacheOptions keeps the metadata of the ManagedSeedSets' replica shoots, and of few others:
// the autoscaler reads a replica's shoot for its protect-from-deletion annotation, and a
// cache of every shoot's metadata cost 41 MB at 60,000 tenant shoots. A replica's shoot is
// told by its owner reference, which no selector of a watch can match, so the cache holds
//   - every shoot of the garden namespace (membership.GardenNamespace): Gardener keeps
//     ManagedSeeds there only, so its sets and their replica shoots live there, beside
//     few operator shoots and no tenant's;
//   - elsewhere the shoots labeled with their set, as seedscaler's set controller labels
//     its replicas in any namespace.
func CacheOptions(opts *cache.Options) {
	if opts.ByObject == nil {
		opts.ByObject = map[client.Object]cache.ByObject{}
	}
	hasSet, _ := labels.NewRequirement(seedmanagementv1alpha1.LabelManagedSeedSet, selection.Exists, nil)
	shoots := &metav1.PartialObjectMetadata{}
	shoots.SetGroupVersionKind(gardencorev1beta1.GroupVersion.WithKind("Shoot"))
	opts.ByObject[shoots] = cache.ByObject{Namespaces: map[string]cache.Config{
		membership.GardenNamespace: {LabelSelector: labels.Everything()},
		cache.AllNamespaces:        {LabelSelector: labels.NewSelector().Add(*hasSet)},
	}}
}
