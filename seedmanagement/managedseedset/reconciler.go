package managedseedset

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/objectlock"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// Finalizer keeps a deleted set until its last replica is removed.
const Finalizer = "seedmanagement.gardener.cloud/managedseedset"

// Config configures the set controller.
type Config struct {
	// MaxShootRetries is how often a failed replica shoot is retried before the set reports
	// it and moves on.
	MaxShootRetries int32
	// ConcurrentSyncs is the number of sets reconciled at the same time.
	ConcurrentSyncs int
	// InFlightResync requeues a set while a replica is in flight, in case an event is missed.
	InFlightResync time.Duration
}

// DefaultConfig is the configuration the command starts from.
func DefaultConfig() Config {
	return Config{MaxShootRetries: 3, ConcurrentSyncs: 5, InFlightResync: time.Minute}
}

// Reconciler is the plumbing of the set controller: it reads the set, keeps its finalizer,
// hands the set to the Actuator and writes the status once. AddToManager fills the nil fields.
type Reconciler struct {
	// Client reads from the cache and writes to the kube-apiserver.
	Client client.Client
	// APIReader reads the set itself, so a reconcile never starts from an older status than
	// the one it wrote last (the status holds the replica in flight).
	APIReader client.Reader
	Config    Config
	Clock     clock.Clock
	Recorder  events.EventRecorder
	// Usage counts shoots per seed; the controller's own Shoot watch feeds it (a new index
	// when nil).
	Usage *usage.Index
	// Replicas says how replicas of this controller share sets: nil or leader-election (one
	// replica works), or object-locks (each set under a Lease; replicas read a set's Shoots
	// and ManagedSeeds from the kube-apiserver, since another replica may have written them
	// last and the expectations of its writes live in its memory).
	Replicas *objectlock.Replicas

	actuator *Actuator
}

// +kubebuilder:rbac:groups=seedmanagement.gardener.cloud,resources=managedseedsets,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=seedmanagement.gardener.cloud,resources=managedseedsets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=seedmanagement.gardener.cloud,resources=managedseedsets/finalizers,verbs=update
// +kubebuilder:rbac:groups=seedmanagement.gardener.cloud,resources=managedseeds,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=core.gardener.cloud,resources=shoots,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=core.gardener.cloud,resources=seeds,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=controllerrevisions,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile is the story of one set: get it, wait for the cache to show the last write,
// keep the finalizer, take one step, write the status; remove the finalizer once a deleted
// set has no replicas left.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (result reconcile.Result, err error) {
	log := logf.FromContext(ctx)
	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	if err := r.APIReader.Get(ctx, req.NamespacedName, set); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("reading ManagedSeedSet %s: %w", req, err)
	}
	log = log.WithValues("managedSeedSet", klog.KObj(set))
	ctx = logf.IntoContext(ctx, log)

	if waiting, err := r.unmetExpectations(ctx, set); err != nil || waiting {
		return reconcile.Result{RequeueAfter: time.Second}, err
	}

	if set.DeletionTimestamp == nil && !controllerutil.ContainsFinalizer(set, Finalizer) {
		patch := client.MergeFrom(set.DeepCopy())
		controllerutil.AddFinalizer(set, Finalizer)
		if err := r.Client.Patch(ctx, set, patch); err != nil {
			return reconcile.Result{}, fmt.Errorf("adding the finalizer to ManagedSeedSet %s: %w", req, err)
		}
	}

	base := set.DeepCopy()
	out, err := r.actuator.Reconcile(ctx, log, set)
	defer func() {
		if out.status == nil {
			return
		}
		if err == nil {
			out.status.ObservedGeneration = set.Generation
		} else {
			r.actuator.event(set, "Warning", EventReconcileError, "Reconcile", "%s", err.Error())
		}
		set.Status = *out.status
		if perr := r.Client.Status().Patch(ctx, set, client.MergeFrom(base)); perr != nil && !apierrors.IsNotFound(perr) {
			err = fmt.Errorf("writing the status of ManagedSeedSet %s: %w", req, perr)
		}
	}()
	if err != nil {
		return reconcile.Result{}, err
	}

	if set.DeletionTimestamp != nil && out.replicasLeft == 0 && controllerutil.ContainsFinalizer(set, Finalizer) {
		log.Info("Last replica removed, releasing the set")
		patch := client.MergeFrom(set.DeepCopy())
		controllerutil.RemoveFinalizer(set, Finalizer)
		if err := r.Client.Patch(ctx, set, patch); client.IgnoreNotFound(err) != nil {
			return reconcile.Result{}, fmt.Errorf("removing the finalizer from ManagedSeedSet %s: %w", req, err)
		}
		r.actuator.expectations.forget(set.UID)
		out.status = nil
		return reconcile.Result{}, nil
	}
	if out.recheck {
		return reconcile.Result{RequeueAfter: time.Second}, nil
	}
	if out.inFlight && r.Config.InFlightResync > 0 {
		return reconcile.Result{RequeueAfter: r.Config.InFlightResync}, nil
	}
	return reconcile.Result{}, nil
}

// unmetExpectations reports whether the cache still lacks one of the set's own writes.
func (r *Reconciler) unmetExpectations(ctx context.Context, set *seedmanagementv1alpha1.ManagedSeedSet) (bool, error) {
	var left []expectation
	now := r.Clock.Now()
	for _, x := range r.actuator.expectations.pending(set.UID) {
		obj := x.object.DeepCopyObject().(client.Object)
		var cached client.Object
		switch err := r.Client.Get(ctx, x.key, obj); {
		case err == nil:
			cached = obj
		case !apierrors.IsNotFound(err):
			return true, fmt.Errorf("reading %s from the cache: %w", x.key, err)
		}
		if !x.met(cached) && now.Before(x.deadline) {
			left = append(left, x)
		}
	}
	r.actuator.expectations.replace(set.UID, left)
	if len(left) > 0 {
		logf.FromContext(ctx).V(1).Info("Waiting for the cache to show the last writes", "writes", len(left))
	}
	return len(left) > 0, nil
}
