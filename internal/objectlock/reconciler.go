package objectlock

import (
	"context"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// busyShare is the share of busy workers above which a reconcile logs the count, as the
// Landscaper does ("worker threads of controller <name>").
const busyShare = 0.7

// Reconciler wraps a controller's reconciler: it counts busy workers, checks on the object's
// metadata alone whether the object is this controller's at all, takes the object's lock
// (when Locker is set), runs the inner reconciler and releases the lock.
type Reconciler struct {
	// Name of the controller, for the busy-worker log line.
	Name string
	// Inner is the controller's own reconciler.
	Inner reconcile.Reconciler
	// Reader reads the object's metadata (a metadata-only cache or the API).
	Reader client.Reader
	// APIReader confirms with the API server that an object Reader does not know is gone
	// before it is reconciled without a lock; with locks it must be set (Wrap sets it).
	APIReader client.Reader
	// Kind of the reconciled objects.
	Kind schema.GroupVersionKind
	// Locker takes the object locks; nil runs without locks (leader election mode).
	Locker *Locker
	// Responsible decides from metadata alone whether the object is this controller's; nil
	// means every object is.
	Responsible func(*metav1.PartialObjectMetadata) bool
	// MaxConcurrentReconciles is the number of workers, for the busy-worker share.
	MaxConcurrentReconciles int
	// RetryAfter is how soon an object locked by another replica is tried again; 2s when zero.
	RetryAfter time.Duration

	active atomic.Int32
}

// Reconcile implements reconcile.Reconciler.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	busy := r.active.Add(1)
	defer r.active.Add(-1)
	log := logf.FromContext(ctx)
	if r.MaxConcurrentReconciles > 0 && float64(busy) > busyShare*float64(r.MaxConcurrentReconciles) {
		log.Info("worker threads of controller "+r.Name, "usedWorkerThreads", busy, "maxWorkerThreads", r.MaxConcurrentReconciles)
	}

	if r.Responsible == nil && r.Locker == nil {
		// Nothing to decide from metadata and nothing to lock (leader-election mode): no
		// read, so no metadata informer beside the controller's own watch of the kind.
		return r.Inner.Reconcile(ctx, req)
	}
	meta := &metav1.PartialObjectMetadata{}
	meta.SetGroupVersionKind(r.Kind)
	if err := r.Reader.Get(ctx, req.NamespacedName, meta); err != nil {
		if !apierrors.IsNotFound(err) {
			return reconcile.Result{}, err
		}
		// Not in the cache. Gone: nothing to lock, the inner reconciler forgets it. But a new
		// object the cache has not seen yet exists and must not be reconciled unlocked:
		// another replica may lock it right now.
		if r.Locker != nil && r.APIReader != nil {
			if err := r.APIReader.Get(ctx, req.NamespacedName, meta); err == nil {
				return reconcile.Result{RequeueAfter: r.retryAfter()}, nil
			} else if !apierrors.IsNotFound(err) {
				return reconcile.Result{}, err
			}
		}
		return r.Inner.Reconcile(ctx, req)
	}
	if r.Responsible != nil && !r.Responsible(meta) {
		return reconcile.Result{}, nil
	}
	if r.Locker == nil {
		return r.Inner.Reconcile(ctx, req)
	}
	locked, err := r.Locker.Lock(ctx, meta)
	if err != nil {
		// The write may have landed with its answer lost (a context canceled at shutdown):
		// release what may be ours. Unlock leaves a lock alone that another replica holds.
		r.unlock(ctx, meta)
		return reconcile.Result{}, err
	}
	if !locked {
		log.V(1).Info("Object is locked by another replica; trying again later", "retryAfter", r.retryAfter())
		return reconcile.Result{RequeueAfter: r.retryAfter()}, nil
	}
	defer r.unlock(ctx, meta)
	return r.Inner.Reconcile(ctx, req)
}

// unlock releases the object's lock, even when the reconcile's context was canceled
// (shutdown), briefly.
func (r *Reconciler) unlock(ctx context.Context, meta *metav1.PartialObjectMetadata) {
	unlockCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := r.Locker.Unlock(unlockCtx, meta); err != nil {
		logf.FromContext(ctx).Error(err, "Releasing the object lock; it expires on its own")
	}
}

// retryAfter is how soon an object another replica holds is tried again.
func (r *Reconciler) retryAfter() time.Duration {
	if r.RetryAfter == 0 {
		return 2 * time.Second
	}
	return r.RetryAfter
}
