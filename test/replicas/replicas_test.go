//go:build integration

// Package replicas runs several replicas of the set controller in object-locks mode against
// a real kube-apiserver: no set is ever reconciled by two replicas at
// once, a replica that dies holding a lock loses it, and locks of deleted sets go away.
package replicas

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/objectlock"
	"github.com/seedscaler/seedscaler/seedmanagement/managedseedset"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

const (
	lockNamespace = "seedscaler-system"
	setNamespace  = "garden"
	// leaseDuration is short so a lock left by a dead replica expires within the test.
	leaseDuration = 4 * time.Second
)

var env *testenv.Environment

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(testenv.Options{}, func(e *testenv.Environment) int {
		env = e
		return m.Run()
	}))
}

// tracker sees every reconcile of every replica while its lock is held.
type tracker struct {
	mu         sync.Mutex
	inFlight   map[reconcile.Request]string // the replica reconciling the set now
	overlaps   []string
	byReplica  map[string]int
	stuckOn    reconcile.Request // the reconcile a replica never finishes, as if it died in it
	stuckBy    string
	stuck      chan struct{} // closed when the stuck reconcile began
	release    chan struct{} // closed to let it return at the end of the test
	stuckFired bool
}

func newTracker() *tracker {
	return &tracker{inFlight: map[reconcile.Request]string{}, byReplica: map[string]int{},
		stuck: make(chan struct{}), release: make(chan struct{})}
}

func (tr *tracker) instrument(replica string) func(reconcile.Reconciler) reconcile.Reconciler {
	return func(inner reconcile.Reconciler) reconcile.Reconciler {
		return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			tr.mu.Lock()
			if other, busy := tr.inFlight[req]; busy {
				tr.overlaps = append(tr.overlaps, fmt.Sprintf("%s reconciled %s while %s did", replica, req, other))
			}
			tr.inFlight[req] = replica
			tr.byReplica[replica]++
			stick := !tr.stuckFired && replica == tr.stuckBy && req == tr.stuckOn
			if stick {
				// The replica dies here: it does nothing more to the set, but keeps the lock.
				tr.stuckFired = true
				delete(tr.inFlight, req)
			}
			tr.mu.Unlock()
			if stick {
				// Dies in the middle: the lock stays held until it expires.
				close(tr.stuck)
				<-tr.release
				return reconcile.Result{}, nil
			}
			defer func() {
				tr.mu.Lock()
				delete(tr.inFlight, req)
				tr.mu.Unlock()
			}()
			return inner.Reconcile(ctx, req)
		})
	}
}

func (tr *tracker) snapshot() ([]string, map[string]int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	by := map[string]int{}
	for k, v := range tr.byReplica {
		by[k] = v
	}
	return append([]string(nil), tr.overlaps...), by
}

// startReplica runs one set controller replica, as a pod named replica would.
// It returns a stop that waits for the replica to finish its reconciles and stop.
func startReplica(ctx context.Context, t *testing.T, replica string, tr *tracker) (stop func()) {
	t.Helper()
	require.NoError(t, env.Client.Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: lockNamespace, Name: replica},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "seedscaler", Image: "seedscaler"}}},
	}))
	opts := manager.Options{
		Scheme:  env.Scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		// Replicas are processes in production; here they share one process's registry of
		// controller names.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	}
	managedseedset.CacheOptions(&opts.Cache)
	mgr, err := manager.New(env.Config, opts)
	require.NoError(t, err)
	r := &managedseedset.Reconciler{
		Config: managedseedset.Config{MaxShootRetries: 3, ConcurrentSyncs: 4, InFlightResync: 2 * time.Second},
		Replicas: &objectlock.Replicas{
			Mode: objectlock.ModeObjectLocks, Namespace: lockNamespace, Holder: replica,
			LeaseDuration: leaseDuration, CollectInterval: 2 * time.Second, Instrument: tr.instrument(replica),
		},
	}
	require.NoError(t, r.AddToManager(ctx, mgr))
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				assert.NoError(t, err, "replica %s", replica)
			case <-time.After(30 * time.Second):
				t.Errorf("replica %s did not stop", replica)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func newSet(t *testing.T, name string, replicas int32) *seedmanagementv1alpha1.ManagedSeedSet {
	t.Helper()
	set, err := testenv.ExampleManagedSeedSet(setNamespace, name, replicas)
	require.NoError(t, err)
	set.Spec.Selector.MatchLabels["set"] = seedmanagementv1alpha1.LabelValue(name)
	set.Spec.Template.Labels["set"] = name
	set.Spec.Template.Spec.SeedTemplate.Labels["set"] = name
	set.Spec.ShootTemplate.Labels["set"] = name
	return set
}

// settled: the set saw its spec and created the shoot of each replica, exactly once.
func settled(ctx context.Context, t require.TestingT, set *seedmanagementv1alpha1.ManagedSeedSet) bool {
	got := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(set), got))
	var shoots gardencorev1beta1.ShootList
	require.NoError(t, env.Client.List(ctx, &shoots, client.InNamespace(setNamespace), client.MatchingLabels{"set": set.Name}))
	mine := 0
	for _, s := range shoots.Items {
		if metav1.IsControlledBy(&s, got) {
			mine++
		}
	}
	require.LessOrEqual(t, int32(mine), *set.Spec.Replicas, "set %s has %d shoots for %d replicas: two controller replicas created one each", set.Name, mine, *set.Spec.Replicas)
	return got.Status.ObservedGeneration == got.Generation && int32(mine) == *set.Spec.Replicas
}

func locks(ctx context.Context, t require.TestingT) []coordinationv1.Lease {
	var leases coordinationv1.LeaseList
	require.NoError(t, env.Client.List(ctx, &leases, client.InNamespace(lockNamespace),
		client.MatchingLabels{objectlock.LabelController: managedseedset.ControllerName}))
	return leases.Items
}

func TestThreeReplicasShareFiftySets(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: lockNamespace}}))
	require.NoError(t, env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: setNamespace}}))

	// 45 sets of one replica (whose shoot stays in flight: no gardenlet here) and 5 of none,
	// which the clean-up deletes.
	sets := make([]*seedmanagementv1alpha1.ManagedSeedSet, 50)
	for i := range sets {
		replicas := int32(1)
		if i >= 45 {
			replicas = 0
		}
		sets[i] = newSet(t, fmt.Sprintf("set-%02d", i), replicas)
		require.NoError(t, env.Client.Create(ctx, sets[i]))
	}
	tr := newTracker()
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(tr.release) }) }
	defer release()
	// Replica c starts alone and dies in its first reconcile of set-07, holding its lock.
	tr.stuckBy, tr.stuckOn = "set-controller-c", reconcile.Request{NamespacedName: client.ObjectKeyFromObject(sets[7])}
	stops := []func(){startReplica(ctx, t, "set-controller-c", tr)}
	select {
	case <-tr.stuck:
	case <-time.After(time.Minute):
		t.Fatal("replica c never began reconciling set-07")
	}
	for _, replica := range []string{"set-controller-a", "set-controller-b"} {
		stops = append(stops, startReplica(ctx, t, replica, tr))
	}

	require.EventuallyWithT(t, func(c *assert.CollectT) {
		for _, set := range sets {
			assert.True(c, settled(ctx, c, set), "set %s has not settled", set.Name)
		}
	}, 3*time.Minute, time.Second, "every set converges, set-07 once another replica took over the expired lock")

	overlaps, byReplica := tr.snapshot()
	assert.Empty(t, overlaps, "a set was reconciled by two replicas at once")
	assert.Len(t, byReplica, 3, "every replica took part: %v", byReplica)

	// Clean-up: the locks of deleted sets go; a set recreated under an old name keeps the
	// lock of its new UID.
	deleted := sets[45:]
	for _, set := range deleted {
		require.NoError(t, env.Client.Delete(ctx, set))
	}
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		got := &seedmanagementv1alpha1.ManagedSeedSet{}
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(deleted[0]), got)
		assert.True(c, err != nil && client.IgnoreNotFound(err) == nil, "%s is not gone yet", deleted[0].Name)
	}, time.Minute, 500*time.Millisecond)
	recreated := newSet(t, deleted[0].Name, 0)
	require.NoError(t, env.Client.Create(ctx, recreated))
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		byUID := map[string]bool{}
		for _, l := range locks(ctx, c) {
			byUID[l.Labels[objectlock.LabelObjectUID]] = true
		}
		for _, set := range deleted {
			assert.False(c, byUID[string(set.UID)], "the lock of deleted %s (%s) is still there", set.Name, set.UID)
		}
		assert.True(c, byUID[string(recreated.UID)], "the recreated %s has no lock of its own", recreated.Name)
	}, time.Minute, time.Second)
	// Nothing is left locked once the replicas stop: each finishes its reconciles and
	// releases their locks, and set-07's lock was taken over from c and released.
	release()
	for _, stop := range stops {
		stop()
	}
	for _, l := range locks(ctx, t) {
		holder := ""
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		assert.Empty(t, holder, "lock %s is still held by %s", l.Name, holder)
	}
}
