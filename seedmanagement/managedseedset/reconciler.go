package managedseedset

import (
	"context"
	"errors"
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
	"github.com/seedscaler/seedscaler/internal/controllerutils"
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
// +kubebuilder:rbac:groups=apps,resources=controllerrevisions,verbs=get;list;watch;create;update;patch;delete,namespace=seedscaler-seed-management-namespaces
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile is the story of one set: get it, wait for the cache to show the last write,
// keep the finalizer, take one step, write the status once; remove the finalizer once a
// deleted set has no replicas left.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (result reconcile.Result, retErr error) {
	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	if err := r.APIReader.Get(ctx, req.NamespacedName, set); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("reading ManagedSeedSet %s: %w", req, err)
	}
	ctx = logf.IntoContext(ctx, logf.FromContext(ctx).WithValues("managedSeedSet", klog.KObj(set)))

	if waiting, err := r.unmetExpectations(ctx, set); err != nil || waiting {
		return reconcile.Result{RequeueAfter: time.Second}, err
	}

	before := set.DeepCopy()
	released := false
	defer func() {
		if !released {
			retErr = r.patchStatus(ctx, set, before, retErr)
		}
	}()

	if set.DeletionTimestamp != nil {
		result, released, retErr = r.reconcileDelete(ctx, set)
		return result, retErr
	}
	if err := controllerutils.EnsureFinalizer(ctx, r.Client, set, Finalizer); err != nil {
		return reconcile.Result{}, err
	}
	out, err := r.actuator.Reconcile(ctx, set)
	if err != nil {
		return reconcile.Result{}, err
	}
	return r.requeue(out), nil
}

// reconcileDelete removes the replicas of a deleted set one step at a time, and removes the
// finalizer once none is left: then the set is released and has no status to write.
func (r *Reconciler) reconcileDelete(ctx context.Context, set *seedmanagementv1alpha1.ManagedSeedSet) (result reconcile.Result, released bool, err error) {
	out, err := r.actuator.Reconcile(ctx, set)
	if err != nil {
		return reconcile.Result{}, false, err
	}
	if out.replicasLeft > 0 || !controllerutil.ContainsFinalizer(set, Finalizer) {
		return r.requeue(out), false, nil
	}
	logf.FromContext(ctx).Info("Last replica removed, releasing the set")
	if err := controllerutils.RemoveFinalizer(ctx, r.Client, set, Finalizer); err != nil {
		return reconcile.Result{}, false, err
	}
	r.actuator.expectations.forget(set.UID)
	return reconcile.Result{}, true, nil
}

// requeue is when to look at the set again after a step: soon when the cache was behind,
// after InFlightResync while a replica is in flight, in case an event is missed.
func (r *Reconciler) requeue(out Outcome) reconcile.Result {
	switch {
	case out.recheck:
		return reconcile.Result{RequeueAfter: time.Second}
	case out.inFlight && r.Config.InFlightResync > 0:
		return reconcile.Result{RequeueAfter: r.Config.InFlightResync}
	}
	return reconcile.Result{}
}

// patchStatus writes the set's status once, when it changed, at the end of a reconcile:
// observedGeneration only when the reconcile succeeded, a ReconcileError event when it did
// not. It returns the reconcile's error, joined with the write's.
func (r *Reconciler) patchStatus(ctx context.Context, set, before *seedmanagementv1alpha1.ManagedSeedSet, reconcileErr error) error {
	if reconcileErr == nil {
		set.Status.ObservedGeneration = set.Generation
	} else {
		controllerutils.Event(r.Recorder, set, nil, EventReconcileError, "Reconcile", "%s", reconcileErr.Error())
	}
	if err := controllerutils.PatchStatus(ctx, r.Client, set, before, false); client.IgnoreNotFound(err) != nil {
		return errors.Join(reconcileErr, err)
	}
	return reconcileErr
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
