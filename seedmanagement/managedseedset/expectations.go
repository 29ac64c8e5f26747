package managedseedset

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

// expectation is a write of the set controller that the informer cache has not shown yet.
// Deciding the next step from a cache that lacks the last write could start a second replica
// in flight (or delete a second seed), so a set waits until its expectations are met.
type expectation struct {
	// object is an empty object of the written kind, to read the cache into.
	object client.Object
	key    client.ObjectKey
	// met reports whether the cached object (nil: not found) shows the write.
	met      func(obj client.Object) bool
	deadline time.Time
}

// expectations of every set, by the set's UID. Safe for concurrent use.
type expectations struct {
	mu  sync.Mutex
	set map[types.UID][]expectation
}

func newExpectations() *expectations {
	return &expectations{set: map[types.UID][]expectation{}}
}

func (e *expectations) expect(uid types.UID, x expectation) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.set[uid] = append(e.set[uid], x)
}

func (e *expectations) pending(uid types.UID) []expectation {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]expectation(nil), e.set[uid]...)
}

func (e *expectations) replace(uid types.UID, xs []expectation) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(xs) == 0 {
		delete(e.set, uid)
		return
	}
	e.set[uid] = xs
}

func (e *expectations) forget(uid types.UID) {
	e.replace(uid, nil)
}

// Conditions on a cached object for the kinds of writes.

func exists(obj client.Object) bool { return obj != nil }

func goneOrDeleting(obj client.Object) bool { return obj == nil || obj.GetDeletionTimestamp() != nil }

func hasAnnotation(key, value string) func(client.Object) bool {
	return func(obj client.Object) bool {
		return obj == nil || obj.GetDeletionTimestamp() != nil || obj.GetAnnotations()[key] == value
	}
}

// changedFrom is met once the cached object is no longer at the resource version a write
// replaced: resource versions are opaque, so "changed since" is all that can be said.
func changedFrom(rv string) func(client.Object) bool {
	return func(obj client.Object) bool {
		return obj == nil || obj.GetResourceVersion() != rv
	}
}

// expect records that the cache must show a write of the set's before the set is looked at
// again: obj (an empty object of the written kind) at key, once met says so, or once the
// expectation times out.
func (a *Actuator) expect(set *seedmanagementv1alpha1.ManagedSeedSet, obj client.Object, key client.ObjectKey, met func(client.Object) bool) {
	a.expectations.expect(set.UID, expectation{object: obj, key: key, met: met, deadline: a.Clock.Now().Add(expectationTimeout)})
}

// expectationTimeout bounds how long a set waits for the cache to show one of its writes
// (someone else may have changed the object in between).
const expectationTimeout = time.Minute
