package controller

import (
	"context"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/seedscaler/seedscaler/internal/membership"
)

// SeedShootPriority is the work queue priority of a ManagedSeedSet replica's shoot: above
// every tenant shoot (0, or lower when the informer merely resynced).
//
// A burst of tenant shoots that no seed can take yet fills the queue with thousands of
// attempts, each an event and a status write. A new seed's own shoot created meanwhile
// would wait behind all of them, and the seeds the tenants wait for would come up only
// after the tenants' next round of failures: on a fleet of a thousand seeds, half the
// seeds came up minutes late. The seed's shoot goes first.
const SeedShootPriority = 100

// seedShootsFirst enqueues the shoots of ManagedSeedSet replicas (membership.IsReplica) at
// SeedShootPriority. It stands beside the controller's own shoot handler, with the same
// predicate: a request in the queue twice is there once, at the higher priority.
func seedShootsFirst() handler.TypedEventHandler[client.Object, reconcile.Request] {
	add := func(q workqueue.TypedRateLimitingInterface[reconcile.Request], obj client.Object) {
		if !membership.IsReplica(obj) {
			return
		}
		req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)}
		if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok {
			pq.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(SeedShootPriority)}, req)
			return
		}
		q.Add(req)
	}
	return handler.TypedFuncs[client.Object, reconcile.Request]{
		CreateFunc: func(_ context.Context, e event.TypedCreateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			add(q, e.Object)
		},
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			add(q, e.ObjectNew)
		},
	}
}
