package seed

import (
	"context"
	"errors"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// ControllerName is the name of the seed lifecycle controller.
const ControllerName = "seed-lifecycle"

// AddToManager adds the controller to mgr, filling unset dependencies with defaults. The
// manager's cache should hold Leases of LeaseNamespace only: build it with CacheByObject.
func (r *Reconciler) AddToManager(mgr manager.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.GracePeriod <= 0 {
		r.GracePeriod = DefaultHeartbeatGracePeriod
	}
	if r.Usage == nil {
		return errors.New("the seed lifecycle controller needs a usage index to share with the ManagedSeed controller")
	}
	rec, err := r.Replicas.Wrap(mgr, ControllerName, gardencorev1beta1.GroupVersion.WithKind("Seed"), 1, r)
	if err != nil {
		return err
	}
	return builder.ControllerManagedBy(mgr).
		Named(ControllerName).
		For(&gardencorev1beta1.Seed{}).
		Watches(&coordinationv1.Lease{},
			handler.EnqueueRequestsFromMapFunc(r.MapLeaseToSeed),
			builder.WithPredicates(predicate.NewPredicateFuncs(IsHeartbeatLease))).
		Watches(&gardencorev1beta1.Shoot{}, r.ShootUsageHandler()).
		Complete(rec)
}

// CacheByObject restricts the manager's Lease cache to the heartbeat namespace, so the
// controller neither caches nor needs RBAC for Leases elsewhere.
func CacheByObject() map[client.Object]cache.ByObject {
	return map[client.Object]cache.ByObject{
		&coordinationv1.Lease{}: {Namespaces: map[string]cache.Config{LeaseNamespace: {}}},
	}
}

// IsHeartbeatLease reports whether obj is a Lease in the heartbeat namespace.
func IsHeartbeatLease(obj client.Object) bool {
	return obj.GetNamespace() == LeaseNamespace
}

// MapLeaseToSeed maps a heartbeat Lease to the seed it is named after.
func (r *Reconciler) MapLeaseToSeed(_ context.Context, lease client.Object) []reconcile.Request {
	if !IsHeartbeatLease(lease) {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: lease.GetName()}}}
}

// ShootUsageHandler feeds every shoot event into the usage index first and then enqueues
// the seeds the shoot occupied before and after, so a reconcile never reads a count older
// than the event that triggered it.
func (r *Reconciler) ShootUsageHandler() handler.EventHandler {
	enqueue := func(q workqueue.TypedRateLimitingInterface[reconcile.Request], shoots ...client.Object) {
		seen := map[string]bool{}
		for _, obj := range shoots {
			shoot, ok := obj.(*gardencorev1beta1.Shoot)
			if !ok {
				continue
			}
			for _, name := range usage.SeedNames(shoot) {
				if !seen[name] {
					seen[name] = true
					q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Name: name}})
				}
			}
		}
	}
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if shoot, ok := e.Object.(*gardencorev1beta1.Shoot); ok {
				r.Usage.Set(usage.Key(shoot), usage.SeedNames(shoot))
				enqueue(q, shoot)
			}
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if shoot, ok := e.ObjectNew.(*gardencorev1beta1.Shoot); ok {
				r.Usage.Set(usage.Key(shoot), usage.SeedNames(shoot))
				enqueue(q, e.ObjectOld, shoot)
			}
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if shoot, ok := e.Object.(*gardencorev1beta1.Shoot); ok {
				r.Usage.Delete(usage.Key(shoot))
				enqueue(q, shoot)
			}
		},
	}
}
