package controller

import (
	"context"
	"maps"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// A shoot no seed takes waits in backoff (1, 2, 4 … s up to the configured maximum). A seed
// that joins, turns ready or gains room may take it at once, so every shoot waiting in
// backoff is tried again soon after such a change of a seed, instead of at its next
// backoff: after a scale-out, pending shoots land on the new seed as it turns ready.

// seedSettle is how long after a seed's change its waiting shoots are tried again: the
// seed snapshot the decisions read is fed by its own handler of the same informer, which
// has then seen the change too.
const seedSettle = 250 * time.Millisecond

// seedMayTakeMore reports whether a seed's update may let it take shoots it did not take
// before: a condition's status, its allocatable, its spec (taints, visibility, settings),
// its labels (selectors), its drain or emergency-stop annotation, or a deletion that ended.
// Heartbeats and usage updates do not.
func seedMayTakeMore(old, cur *gardencorev1beta1.Seed) bool {
	return conditionStatuses(old) != conditionStatuses(cur) ||
		!equality.Semantic.DeepEqual(old.Status.Allocatable, cur.Status.Allocatable) ||
		old.Generation != cur.Generation || !maps.Equal(old.Labels, cur.Labels) ||
		gardencorev1beta1.Draining(old.Annotations) != gardencorev1beta1.Draining(cur.Annotations) ||
		gardencorev1beta1.ShootReconciliationsDisabled(old) != gardencorev1beta1.ShootReconciliationsDisabled(cur)
}

// conditionStatuses is "type=status" of every condition, in order: equal when no
// condition changed its status.
func conditionStatuses(seed *gardencorev1beta1.Seed) string {
	var b strings.Builder
	for _, c := range seed.Status.Conditions {
		b.WriteString(c.Type)
		b.WriteByte('=')
		b.WriteString(string(c.Status))
		b.WriteByte(';')
	}
	return b.String()
}

// retryWaitingOnSeeds is the handler of the seed watch: a new seed, or a seed that may take
// more, puts every shoot waiting in backoff back into the queue after seedSettle.
func (r *Reconciler) retryWaitingOnSeeds() handler.TypedEventHandler[client.Object, reconcile.Request] {
	retry := func(q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		for _, req := range r.waiting() {
			q.AddAfter(req, seedSettle)
		}
	}
	return handler.TypedFuncs[client.Object, reconcile.Request]{
		CreateFunc: func(_ context.Context, _ event.TypedCreateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			retry(q)
		},
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			old, ok1 := e.ObjectOld.(*gardencorev1beta1.Seed)
			cur, ok2 := e.ObjectNew.(*gardencorev1beta1.Seed)
			if ok1 && ok2 && seedMayTakeMore(old, cur) {
				retry(q)
			}
		},
	}
}

// waiting lists the shoots this replica keeps in backoff.
func (r *Reconciler) waiting() []reconcile.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]reconcile.Request, 0, len(r.failures))
	for key := range r.failures {
		if ns, name, ok := strings.Cut(key, "/"); ok {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}})
		}
	}
	return out
}
