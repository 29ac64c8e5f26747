// Package controller binds unscheduled shoots to seeds: it reads seeds, cloud profiles
// (CloudProfiles and NamespacedCloudProfiles), region configs and ManagedSeedSets from
// informer caches, and places each shoot through its placement.Placer, which decides with
// the scheduler framework, reserves the place in the capacity ledger and patches
// spec.seedName. The drain and the binding webhook place and check through the same Placer.
package controller

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/setcapacity"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/scheduler/capacity"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/scheduler/placement"
	"github.com/seedscaler/seedscaler/scheduler/plugins"
)

// Reasons of the events the scheduler records on a shoot.
const (
	// EventSchedulingSuccessful: the shoot was bound to a seed.
	EventSchedulingSuccessful = controllerutils.Normal("SchedulingSuccessful")
	// EventSchedulingFailed: no seed fits the shoot; the message says why per seed.
	EventSchedulingFailed = controllerutils.Warning("SchedulingFailed")
)

// retrySoon is how long a shoot waits to be looked at again when the caches are not ready
// for it: before they have synced, or when a bind found them behind the kube-apiserver.
const retrySoon = 100 * time.Millisecond

// SchedulingFailed begins the status.lastOperation description of a shoot the scheduler
// cannot place. It differs from gardener-scheduler's wording (GardenerSchedulingFailed) in
// the case of "shoot", which keeps this scheduler's shoots out of another seedscaler
// scheduler's count of shoots pending elsewhere.
const SchedulingFailed = "Failed to schedule shoot: "

// maxEventNote is the longest note events.k8s.io accepts; lastOperation gets the full text.
const maxEventNote = 1024

// Reconciler schedules one shoot per call.
type Reconciler struct {
	// Client reads from the manager's cache and writes to the API server.
	Client client.Client
	// Config is the scheduler's configuration.
	Config *config.SchedulerConfiguration
	// Profile decides; built from Config when nil.
	Profile *framework.Profile
	// Ledger holds usage and reservations; its Handler must be fed by the Shoot informer.
	Ledger *capacity.Ledger
	// Recorder emits events on shoots; when nil, one of app.NewEventRecorder on a client
	// whose rate limit is EventQPS and EventBurst (app's defaults when zero), so that the
	// event every bind records never waits for the binds' rate limit nor takes from it.
	Recorder   events.EventRecorder
	EventQPS   float32
	EventBurst int
	// Clock stamps lastOperation.
	Clock clock.PassiveClock
	// Synced reports whether the ledger and the seed snapshot have seen every shoot and
	// seed of the initial lists.
	Synced func() bool

	placer       *placement.Placer
	metrics      *metrics
	pending      *pendingFits
	seedSnapshot *seedSnapshot
	regions      *regionConfigs

	mu       sync.Mutex
	failures map[string]int
}

// +kubebuilder:rbac:groups=core.gardener.cloud,resources=shoots,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=core.gardener.cloud,resources=shoots/status,verbs=patch
// +kubebuilder:rbac:groups=core.gardener.cloud,resources=seeds;cloudprofiles;namespacedcloudprofiles,verbs=get;list;watch
// +kubebuilder:rbac:groups=seedmanagement.gardener.cloud,resources=managedseedsets;managedseeds,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch,namespace=seedscaler-region-config-namespace
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch;update

// Reconcile binds the shoot to a seed, or reports why none fits and retries with backoff.
// A shoot another scheduler reported unschedulable it only counts in pending-fit.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if r.Synced != nil && !r.Synced() {
		// Deciding before every shoot is counted could overcommit a seed.
		return ctrl.Result{RequeueAfter: retrySoon}, nil
	}
	key := req.String()
	shoot, err := r.shoot(ctx, req)
	if err != nil || shoot == nil {
		return ctrl.Result{}, err
	}
	switch {
	case r.pendingElsewhere(shoot):
		return r.countPendingElsewhere(ctx, key, shoot), nil
	case !Responsible(shoot, r.Config.SchedulerName) || shoot.Spec.SeedName != nil || shoot.DeletionTimestamp != nil:
		// Someone else's, placed already, or going away.
		r.forget(key)
		return ctrl.Result{}, nil
	}
	return r.schedule(ctx, key, shoot)
}

// shoot gets the shoot from the cache; nil, and forgotten, when it is gone.
func (r *Reconciler) shoot(ctx context.Context, req ctrl.Request) (*gardencorev1beta1.Shoot, error) {
	shoot := &gardencorev1beta1.Shoot{}
	if err := r.Client.Get(ctx, req.NamespacedName, shoot); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.String())
			return nil, nil
		}
		return nil, fmt.Errorf("getting shoot %s: %w", req, err)
	}
	return shoot, nil
}

// pendingElsewhere says whether the shoot counts in pending-fit although another scheduler
// places it (PendingElsewhere); never with pendingFit.otherSchedulers off.
func (r *Reconciler) pendingElsewhere(shoot *gardencorev1beta1.Shoot) bool {
	return r.Config.PendingFitOfOtherSchedulers() && PendingElsewhere(shoot, r.Config.SchedulerName)
}

// countPendingElsewhere counts a shoot its own scheduler reported unschedulable for the set
// a new replica of which would take it, as pendingFit counts the scheduler's own, and looks
// again after the backoff: sets come and go and their templates change. It neither binds
// the shoot nor writes to it (no event, no lastOperation): the shoot's scheduler places it
// and reports on it.
func (r *Reconciler) countPendingElsewhere(ctx context.Context, key string, shoot *gardencorev1beta1.Shoot) ctrl.Result {
	log := logr.FromContextOrDiscard(ctx)
	in, err := r.input(ctx, shoot)
	if err != nil {
		// Its cloud profile cannot be read: no set can be judged, so none is asked for a
		// seed. Its scheduler reports the same problem on the shoot.
		log.V(1).Info("Cannot judge which ManagedSeedSet the shoot of another scheduler fits", "reason", err.Error())
		r.pending.set(key, nil)
		return ctrl.Result{RequeueAfter: r.retryAfterFailure(key)}
	}
	fits, chosen, err := r.pendingFit(ctx, key, in)
	switch {
	case err != nil:
		log.Error(err, "Evaluating ManagedSeedSet templates failed")
	case chosen != nil:
		// No event names the choice on a shoot this scheduler does not own; the log does.
		log.V(1).Info("Shoot of another scheduler asks a ManagedSeedSet for a new seed", "managedSeedSet", klog.KRef(chosen.Set.Namespace, chosen.Set.Name), "why", chosen.Why, "fits", joinKeys(fits), "ignored", chosen.Ignored)
	}
	return ctrl.Result{RequeueAfter: r.retryAfterFailure(key)}
}

// schedule places the shoot (decide, reserve, bind: placement.Placer) and reports the bind,
// or reports why no seed takes it.
func (r *Reconciler) schedule(ctx context.Context, key string, shoot *gardencorev1beta1.Shoot) (ctrl.Result, error) {
	log := logr.FromContextOrDiscard(ctx)
	start := r.Clock.Now()
	d, err := r.placer.Place(ctx, shoot, placement.Options{})
	switch {
	case d.Pending != "":
		// Bound a moment ago; the informer has not shown it yet.
		log.V(1).Info("Shoot is being bound", "seed", d.Pending)
		return ctrl.Result{}, nil
	case d.Unjudged != nil:
		return r.fail(ctx, shoot, start, d.Why(), nil, nil)
	case err != nil:
		r.metrics.attempts.WithLabelValues(resultError).Inc()
		if apierrors.IsConflict(err) {
			// The cache was behind; the newer shoot comes with its own event, and this
			// look again is the backstop.
			return ctrl.Result{RequeueAfter: retrySoon}, nil
		}
		return ctrl.Result{}, fmt.Errorf("binding shoot %s to seed %s: %w", key, d.Seed(), err)
	case d.Seed() == "":
		fits, chosen, err := r.pendingFit(ctx, key, d.Input)
		if err != nil {
			log.Error(err, "Evaluating ManagedSeedSet templates failed")
		}
		return r.fail(ctx, shoot, start, d.Why(), fits, chosen)
	}
	r.forget(key)
	r.metrics.attempts.WithLabelValues(resultScheduled).Inc()
	r.metrics.binds.WithLabelValues(d.Seed()).Inc()
	r.metrics.latency.Observe(r.Clock.Since(start).Seconds())
	log.V(1).Info("Shoot scheduled", "seed", klog.KRef("", d.Seed()))
	controllerutils.Event(r.Recorder, shoot, nil, EventSchedulingSuccessful, "Schedule", "Scheduled to seed %s", d.Seed())
	return ctrl.Result{}, nil
}

// Responsible says whether a shoot is this scheduler's: its schedulerName, or
// default-scheduler when it names none.
func Responsible(shoot *gardencorev1beta1.Shoot, schedulerName string) bool {
	name := gardencorev1beta1.DefaultSchedulerName
	if shoot.Spec.SchedulerName != nil && *shoot.Spec.SchedulerName != "" {
		name = *shoot.Spec.SchedulerName
	}
	return name == schedulerName
}

// Backoff is the delay before retry number failures (1-based): base doubled per failure,
// capped at maxDelay.
func Backoff(failures int, base, maxDelay time.Duration) time.Duration {
	d := base
	for i := 1; i < failures && d < maxDelay; i++ {
		d *= 2
	}
	return min(d, maxDelay)
}

// bind sets spec.seedName with a merge patch guarded by the resourceVersion the decision
// was made on. It asks for the patched shoot's metadata only, in protobuf: the informer
// brings the whole shoot anyway, and encoding it as JSON for the answer (a shoot is a
// custom resource, JSON only) and decoding it here was work for both sides on every bind.
func (r *Reconciler) bind(ctx context.Context, shoot *gardencorev1beta1.Shoot, seed string) error {
	if r.Config.Binding == config.SubresourceBinding {
		return r.bindSubresource(ctx, shoot, seed)
	}
	patch := fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"spec":{"seedName":%q}}`, shoot.ResourceVersion, seed)
	meta := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: shoot.Namespace, Name: shoot.Name}}
	meta.SetGroupVersionKind(gardencorev1beta1.GroupVersion.WithKind("Shoot"))
	if err := r.Client.Patch(ctx, meta, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		return err
	}
	shoot.ResourceVersion = meta.ResourceVersion
	shoot.Spec.SeedName = &seed
	return nil
}

func (r *Reconciler) fail(ctx context.Context, shoot *gardencorev1beta1.Shoot, start time.Time, reason string, fits []types.NamespacedName, chosen *Chosen) (ctrl.Result, error) {
	log := logr.FromContextOrDiscard(ctx)
	key := usage.Key(shoot)
	description := SchedulingFailed + reason
	if len(fits) > 0 {
		description += "\nWould fit a new replica of ManagedSeedSet(s): " + joinKeys(fits)
		if chosen != nil && len(fits) > 1 {
			description += fmt.Sprintf("; a new seed is asked of %s (%s)", chosen.Set, chosen.Why)
			for _, ignored := range chosen.Ignored {
				description += "; " + ignored
			}
		}
	} else {
		description += "\nWould fit no ManagedSeedSet's template."
	}
	r.metrics.attempts.WithLabelValues(resultUnschedulable).Inc()
	r.metrics.latency.Observe(r.Clock.Since(start).Seconds())
	controllerutils.Event(r.Recorder, shoot, nil, EventSchedulingFailed, "Schedule", "%s", controllerutils.Truncate(description, maxEventNote))

	before := shoot.DeepCopy()
	shoot.Status.LastOperation = &gardencorev1beta1.LastOperation{
		Type:           gardencorev1beta1.LastOperationTypeCreate,
		State:          gardencorev1beta1.LastOperationStatePending,
		Description:    controllerutils.Truncate(description, 32768),
		LastUpdateTime: metav1.NewTime(r.Clock.Now()),
	}
	if err := controllerutils.PatchStatus(ctx, r.Client, shoot, before, false); client.IgnoreNotFound(err) != nil {
		log.Error(err, "Reporting the scheduling failure in status.lastOperation failed")
	}

	return ctrl.Result{RequeueAfter: r.retryAfterFailure(key)}, nil
}

// retryAfterFailure counts a failure of the shoot and returns the backoff until its next try.
func (r *Reconciler) retryAfterFailure(key string) time.Duration {
	r.mu.Lock()
	r.failures[key]++
	n := r.failures[key]
	r.mu.Unlock()
	return Backoff(n, r.Config.BackoffBase(), r.Config.BackoffMax())
}

func (r *Reconciler) forget(key string) {
	r.mu.Lock()
	delete(r.failures, key)
	r.mu.Unlock()
	r.pending.forget(key)
}

// input gathers the cloud profile and region config of a shoot from the cache, and whether
// its domain is below a default domain of the seeds.
func (r *Reconciler) input(ctx context.Context, shoot *gardencorev1beta1.Shoot) (*framework.Input, error) {
	cp, err := CloudProfileOf(ctx, r.Client, shoot)
	if err != nil {
		return nil, err
	}
	in := &framework.Input{Shoot: shoot, CloudProfile: cp, UsesDefaultDomain: plugins.UsesDefaultDomain(shoot, r.seedSnapshot.List())}
	if cp != nil && r.Config.Strategy == config.MinimalDistance {
		// By the name of the profile the shoot refers to, a NamespacedCloudProfile's own, as
		// Gardener's scheduler looks it up.
		in.RegionConfig = r.regions.get(cp.Name)
	}
	return in, nil
}

// pendingFit returns the sets a new replica of which would take the shoot, and records the
// one set (ChooseSet) whose pending-shoots series counts it.
func (r *Reconciler) pendingFit(ctx context.Context, key string, in *framework.Input) ([]types.NamespacedName, *Chosen, error) {
	list := &seedmanagementv1alpha1.ManagedSeedSetList{}
	if err := r.Client.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		return nil, nil, fmt.Errorf("listing ManagedSeedSets from the cache: %w", err)
	}
	sets := make([]*seedmanagementv1alpha1.ManagedSeedSet, len(list.Items))
	byKey := make(map[types.NamespacedName]*seedmanagementv1alpha1.ManagedSeedSet, len(list.Items))
	for i := range list.Items {
		sets[i] = &list.Items[i]
		byKey[types.NamespacedName{Namespace: sets[i].Namespace, Name: sets[i].Name}] = sets[i]
	}
	sizing := r.replicaSizing()
	fits, err := PendingFit(r.Profile, plugins.Strategy{Kind: r.Config.Strategy}, in, sets, sizing)
	if err != nil {
		return nil, nil, err
	}
	fitting := make([]*seedmanagementv1alpha1.ManagedSeedSet, len(fits))
	for i, k := range fits {
		fitting[i] = byKey[k]
	}
	chosen, ok := ChooseSet(fitting, sizing)
	if !ok {
		r.pending.set(key, nil)
		return fits, nil, nil
	}
	r.pending.set(key, []types.NamespacedName{chosen.Set})
	return fits, &chosen, nil
}

// replicaSizing sizes new replicas from the configured default and the seeds the scheduler
// sees, among which a set's parent seed is.
func (r *Reconciler) replicaSizing() setcapacity.Sizing {
	return setcapacity.Sizing{
		DefaultShoots: int64(r.Config.DefaultSeedCapacity),
		Seed: func(name string) *gardencorev1beta1.Seed {
			if info, ok := r.seedSnapshot.value(name); ok {
				return info.Seed
			}
			return nil
		},
	}
}

func joinKeys(keys []types.NamespacedName) string {
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += ", "
		}
		s += k.String()
	}
	return s
}
