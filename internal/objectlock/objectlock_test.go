//go:build integration

package objectlock

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(testenv.Options{}, func(e *testenv.Environment) int {
		env = e
		return m.Run()
	}))
}

var configMapKind = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}

func namespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "lock-"}}
	require.NoError(t, env.Client.Create(context.Background(), ns))
	return ns.Name
}

func object(t *testing.T, ns, name string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	require.NoError(t, env.Client.Create(context.Background(), cm))
	return cm
}

func locker(ns, holder string, alive bool) *Locker {
	return &Locker{
		Client: env.Client, Namespace: ns, Controller: "set-controller", Holder: holder, LeaseDuration: time.Minute,
		HolderAlive: func(context.Context, string) (bool, error) { return alive, nil },
	}
}

func lease(t *testing.T, ns string, obj client.Object) *coordinationv1.Lease {
	t.Helper()
	l := &coordinationv1.Lease{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: LeaseName("set-controller", obj.GetUID())}, l))
	return l
}

func TestOnlyOneReplicaHoldsALock(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	obj := object(t, ns, "a")
	a, b := locker(ns, "replica-a", true), locker(ns, "replica-b", true)

	ok, err := a.Lock(ctx, obj)
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = b.Lock(ctx, obj)
	require.NoError(t, err)
	assert.False(t, ok, "a lock held by a live replica is not taken")
	ok, err = a.Lock(ctx, obj)
	require.NoError(t, err)
	assert.True(t, ok, "the holder may take its own lock again")

	require.NoError(t, a.Unlock(ctx, obj))
	l := lease(t, ns, obj)
	assert.Nil(t, l.Spec.HolderIdentity, "unlocking clears the holder")
	assert.Equal(t, "a", l.Annotations[AnnotationObject][len(ns)+1:])
	assert.Equal(t, string(obj.UID), l.Labels[LabelObjectUID])

	ok, err = b.Lock(ctx, obj)
	require.NoError(t, err)
	assert.True(t, ok, "a released lock is free")
	assert.Equal(t, "replica-b", *lease(t, ns, obj).Spec.HolderIdentity)
}

// Many replicas race for one object: optimistic concurrency lets exactly one win, both for
// the first lock (create) and a released one (update).
func TestRacingReplicasOneWins(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	obj := object(t, ns, "contended")
	for round := 0; round < 2; round++ {
		var wins atomic.Int32
		var wg sync.WaitGroup
		lockers := make([]*Locker, 10)
		for i := range lockers {
			lockers[i] = locker(ns, fmt.Sprintf("replica-%d", i), true)
		}
		for _, l := range lockers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := l.Lock(ctx, obj)
				assert.NoError(t, err)
				if ok {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		require.Equal(t, int32(1), wins.Load(), "round %d: exactly one replica must win", round)
		holder := *lease(t, ns, obj).Spec.HolderIdentity
		for _, l := range lockers {
			if l.Holder == holder {
				require.NoError(t, l.Unlock(ctx, obj))
			}
		}
	}
}

func TestTakeOverWhenTheHolderDied(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)

	t.Run("lease expired", func(t *testing.T) {
		obj := object(t, ns, "expired")
		a := locker(ns, "replica-a", true)
		ok, err := a.Lock(ctx, obj)
		require.NoError(t, err)
		require.True(t, ok)

		b := locker(ns, "replica-b", true) // the holder's pod still looks alive
		b.Clock = clocktesting.NewFakeClock(time.Now().Add(30 * time.Second))
		ok, err = b.Lock(ctx, obj)
		require.NoError(t, err)
		assert.False(t, ok, "within the lease duration the lock stays")
		b.Clock = clocktesting.NewFakeClock(time.Now().Add(2 * time.Minute))
		ok, err = b.Lock(ctx, obj)
		require.NoError(t, err)
		assert.True(t, ok, "an expired lock is taken over")
		assert.Equal(t, int32(1), *lease(t, ns, obj).Spec.LeaseTransitions)

		// The old holder wakes up: its unlock must not free the new holder's lock.
		require.NoError(t, a.Unlock(ctx, obj))
		assert.Equal(t, "replica-b", *lease(t, ns, obj).Spec.HolderIdentity)
	})

	t.Run("holder pod gone", func(t *testing.T) {
		obj := object(t, ns, "gone")
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "replica-a"},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "seedscaler"}}},
		}
		require.NoError(t, env.Client.Create(ctx, pod))
		a := &Locker{Client: env.Client, Namespace: ns, Controller: "set-controller", Holder: "replica-a", LeaseDuration: time.Hour}
		b := &Locker{Client: env.Client, Namespace: ns, Controller: "set-controller", Holder: "replica-b", LeaseDuration: time.Hour}
		ok, err := a.Lock(ctx, obj)
		require.NoError(t, err)
		require.True(t, ok)
		ok, err = b.Lock(ctx, obj)
		require.NoError(t, err)
		assert.False(t, ok, "the holder's pod exists")
		require.NoError(t, env.Client.Delete(ctx, pod, client.GracePeriodSeconds(0)))
		require.Eventually(t, func() bool {
			return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(pod), &corev1.Pod{}))
		}, 10*time.Second, 50*time.Millisecond)
		ok, err = b.Lock(ctx, obj)
		require.NoError(t, err)
		assert.True(t, ok, "the lock of a vanished pod is taken over at once")
	})
}

// Clean-up deletes the lock of a deleted object and keeps the lock of a new object that was
// created with the same name.
func TestCollectorKeepsTheLockOfARecreatedObject(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	a := locker(ns, "replica-a", true)
	old := object(t, ns, "same-name")
	kept := object(t, ns, "untouched")
	for _, o := range []client.Object{old, kept} {
		ok, err := a.Lock(ctx, o)
		require.NoError(t, err)
		require.True(t, ok)
		require.NoError(t, a.Unlock(ctx, o))
	}
	oldLease := LeaseName("set-controller", old.UID)
	require.NoError(t, env.Client.Delete(ctx, old))
	recreated := object(t, ns, "same-name")
	require.NotEqual(t, old.UID, recreated.UID)
	ok, err := a.Lock(ctx, recreated)
	require.NoError(t, err)
	require.True(t, ok)

	c := &Collector{Client: env.Client, Namespace: ns, Controller: "set-controller", Kind: configMapKind}
	deleted, err := c.Collect(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, deleted)
	err = env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: oldLease}, &coordinationv1.Lease{})
	assert.True(t, apierrors.IsNotFound(err), "the deleted object's lock is collected")
	lease(t, ns, recreated) // fails the test if the recreated object's lock went too
	lease(t, ns, kept)
}

// Three replicas reconcile the same objects concurrently: the wrapper must never let two of
// them into the inner reconciler for one object at once, and every object gets reconciled.
func TestWrappedReplicasNeverOverlapOnAnObject(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	var objs []*corev1.ConfigMap
	for i := 0; i < 20; i++ {
		objs = append(objs, object(t, ns, fmt.Sprintf("obj-%d", i)))
	}
	var (
		mu         sync.Mutex
		inFlight   = map[string]string{}
		overlaps   atomic.Int32
		reconciled sync.Map
	)
	inner := func(replica string) reconcile.Func {
		return func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
			mu.Lock()
			if other, busy := inFlight[req.Name]; busy {
				t.Errorf("%s reconciles %s while %s does", replica, req.Name, other)
				overlaps.Add(1)
			}
			inFlight[req.Name] = replica
			mu.Unlock()
			time.Sleep(2 * time.Millisecond) // hold the object for a moment, as real work does
			mu.Lock()
			delete(inFlight, req.Name)
			mu.Unlock()
			reconciled.Store(req.Name, true)
			return reconcile.Result{}, nil
		}
	}
	var wg sync.WaitGroup
	for _, replica := range []string{"replica-a", "replica-b", "replica-c"} {
		r := &Reconciler{Name: "test", Inner: inner(replica), Reader: env.Client, Kind: configMapKind,
			Locker: locker(ns, replica, true), MaxConcurrentReconciles: 4, RetryAfter: time.Millisecond}
		// Within one replica, controller-runtime's workqueue never hands one key to two
		// workers at once; model that by giving each worker its own share of the keys.
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for round := 0; round < 3; round++ {
					for i, o := range objs {
						if i%4 != w {
							continue
						}
						req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(o)}
						for {
							res, err := r.Reconcile(ctx, req)
							if !assert.NoError(t, err) || res.RequeueAfter == 0 {
								break
							}
							time.Sleep(res.RequeueAfter)
						}
					}
				}
			}()
		}
	}
	wg.Wait()
	assert.Zero(t, overlaps.Load())
	for _, o := range objs {
		_, ok := reconciled.Load(o.Name)
		assert.True(t, ok, "%s was never reconciled", o.Name)
		assert.Nil(t, lease(t, ns, o).Spec.HolderIdentity, "%s is left locked", o.Name)
	}
}

func TestResponsibilityIsCheckedOnMetadataFirst(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	mine := object(t, ns, "mine")
	mine.Labels = map[string]string{"owner": "me"}
	require.NoError(t, env.Client.Update(ctx, mine))
	theirs := object(t, ns, "theirs")
	var calls []string
	r := &Reconciler{Name: "test", Reader: env.Client, Kind: configMapKind, Locker: locker(ns, "replica-a", true),
		Responsible: func(m *metav1.PartialObjectMetadata) bool { return m.Labels["owner"] == "me" },
		Inner: reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
			calls = append(calls, req.Name)
			return reconcile.Result{}, nil
		})}
	for _, o := range []client.Object{mine, theirs} {
		_, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(o)})
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"mine"}, calls)
	err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: LeaseName("set-controller", theirs.UID)}, &coordinationv1.Lease{})
	assert.True(t, apierrors.IsNotFound(err), "no lock is taken for an object that is not ours")
}

// laggingCache is a cache that has not seen any object yet.
type laggingCache struct{ client.Reader }

func (laggingCache) Get(_ context.Context, key client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
	return apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, key.Name)
}

// An object the cache has not seen yet is not reconciled without its lock: it is tried
// again once the cache catches up. One that is really gone is handed to the reconciler.
func TestAnObjectTheCacheMissesIsNotReconciledUnlocked(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	fresh := object(t, ns, "fresh")
	var calls []string
	r := &Reconciler{Name: "test", Reader: laggingCache{}, APIReader: env.Client, Kind: configMapKind,
		Locker: locker(ns, "replica-a", true),
		Inner: reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
			calls = append(calls, req.Name)
			return reconcile.Result{}, nil
		})}
	res, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(fresh)})
	require.NoError(t, err)
	assert.Positive(t, res.RequeueAfter, "an object that exists is tried again")
	assert.Empty(t, calls, "an object that exists was reconciled without its lock")

	_, err = r.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: "gone"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"gone"}, calls, "a deleted object still reaches the reconciler, which forgets it")
}

// lostAnswers writes objects to the API and then answers as if the request failed, as a
// client does whose context is canceled after the request went out.
type lostAnswers struct{ client.Client }

func (c lostAnswers) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if err := c.Client.Create(ctx, obj, opts...); err != nil {
		return err
	}
	return context.Canceled
}

// A lock taken by a write whose answer was lost is released: the replica does not know it
// holds it, and nothing else would release it before it expires.
func TestALockWhoseAnswerWasLostIsReleased(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	obj := object(t, ns, "lost")
	l := locker(ns, "replica-a", true)
	l.Client = lostAnswers{env.Client}
	called := false
	r := &Reconciler{Name: "test", Reader: env.Client, Kind: configMapKind, Locker: l,
		Inner: reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
			called = true
			return reconcile.Result{}, nil
		})}
	_, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, called, "a reconcile ran without knowing it holds the lock")
	assert.Nil(t, lease(t, ns, obj).Spec.HolderIdentity, "the lock taken by the lost write is still held")
}
