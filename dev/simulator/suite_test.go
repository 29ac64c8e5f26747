//go:build integration

package simulator

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// env is a real kube-apiserver and etcd with seedscaler's CRDs; the simulator is the only
// writer besides the tests.
var env *testenv.Environment

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(testenv.Options{}, func(e *testenv.Environment) int {
		env = e
		return m.Run()
	}))
}

// harness drives a simulator step by step on a fake clock.
type harness struct {
	t     *testing.T
	ctx   context.Context
	cfg   *Configuration
	clock *clocktesting.FakeClock
	sim   *Simulator
}

// newHarness parses a configuration (the header is added), makes a simulator on a fake clock
// and removes, when the test ends, every object the test or the simulator left.
func newHarness(t *testing.T, yaml string) *harness {
	t.Helper()
	cfg, err := ParseConfiguration([]byte("apiVersion: " + ConfigAPIVersion + "\nkind: " + ConfigKind + "\n" + yaml))
	require.NoError(t, err)
	return newHarnessFor(t, cfg)
}

func newHarnessFor(t *testing.T, cfg *Configuration) *harness {
	t.Helper()
	clk := clocktesting.NewFakeClock(epoch)
	h := &harness{t: t, ctx: t.Context(), cfg: cfg, clock: clk, sim: New(cfg, env.Client, clk, nil)}
	t.Cleanup(func() { cleanup(t) })
	return h
}

// step advances the fake clock by d (wall-clock time) and runs one step.
func (h *harness) step(d time.Duration) {
	h.t.Helper()
	h.clock.Step(d)
	require.NoError(h.t, h.sim.Step(h.ctx))
}

func (h *harness) shoot(namespace, name string) *gardencorev1beta1.Shoot {
	h.t.Helper()
	sh := &gardencorev1beta1.Shoot{}
	require.NoError(h.t, env.Client.Get(h.ctx, client.ObjectKey{Namespace: namespace, Name: name}, sh))
	return sh
}

func (h *harness) gone(namespace, name string) bool {
	h.t.Helper()
	err := env.Client.Get(h.ctx, client.ObjectKey{Namespace: namespace, Name: name}, &gardencorev1beta1.Shoot{})
	if apierrors.IsNotFound(err) {
		return true
	}
	require.NoError(h.t, err)
	return false
}

// lease returns the heartbeat Lease of a seed, nil when there is none.
func (h *harness) lease(seed string) *coordinationv1.Lease {
	h.t.Helper()
	l := &coordinationv1.Lease{}
	err := env.Client.Get(h.ctx, client.ObjectKey{Namespace: LeaseNamespace, Name: seed}, l)
	if apierrors.IsNotFound(err) {
		return nil
	}
	require.NoError(h.t, err)
	return l
}

// tenants returns the tenant shoots not being deleted.
func tenants(ctx context.Context, t *testing.T) []gardencorev1beta1.Shoot {
	t.Helper()
	list := &gardencorev1beta1.ShootList{}
	require.NoError(t, env.Client.List(ctx, list, client.MatchingLabels{LabelTenant: "true"}))
	var out []gardencorev1beta1.Shoot
	for _, sh := range list.Items {
		if sh.DeletionTimestamp == nil {
			out = append(out, sh)
		}
	}
	return out
}

func ensureNamespace(t testing.TB, name string) {
	t.Helper()
	require.NoError(t, createNamespace(t.Context(), env.Client, name))
}

func createSeed(t testing.TB, seed *gardencorev1beta1.Seed) {
	t.Helper()
	status := seed.Status
	require.NoError(t, env.Client.Create(t.Context(), seed))
	seed.Status = status
	require.NoError(t, env.Client.Status().Update(t.Context(), seed))
}

// cachedClient reads from an informer cache and writes to the apiserver, as the command's
// client does: reads lag the writes.
func cachedClient(t testing.TB) client.Client {
	t.Helper()
	c, err := cache.New(env.Config, cache.Options{Scheme: env.Scheme})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Start(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	require.True(t, c.WaitForCacheSync(ctx))
	cl, err := client.New(env.Config, client.Options{Scheme: env.Scheme, Cache: &client.CacheOptions{Reader: c}})
	require.NoError(t, err)
	return cl
}

// cleanup removes every shoot (finalizers and all), seed, managed seed and heartbeat Lease.
func cleanup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	shoots := &gardencorev1beta1.ShootList{}
	require.NoError(t, env.Client.List(ctx, shoots))
	for i := range shoots.Items {
		sh := &shoots.Items[i]
		if len(sh.Finalizers) > 0 {
			orig := sh.DeepCopy()
			sh.Finalizers = nil
			if err := env.Client.Patch(ctx, sh, client.MergeFrom(orig)); err != nil && !apierrors.IsNotFound(err) {
				require.NoError(t, err)
			}
		}
		require.NoError(t, client.IgnoreNotFound(env.Client.Delete(ctx, sh)))
	}
	require.NoError(t, env.Client.DeleteAllOf(ctx, &gardencorev1beta1.Seed{}))
	managed := &seedmanagementv1alpha1.ManagedSeedList{}
	require.NoError(t, env.Client.List(ctx, managed))
	for i := range managed.Items {
		require.NoError(t, client.IgnoreNotFound(env.Client.Delete(ctx, &managed.Items[i])))
	}
	if err := env.Client.DeleteAllOf(ctx, &coordinationv1.Lease{}, client.InNamespace(LeaseNamespace)); err != nil && !apierrors.IsNotFound(err) {
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool {
		var n int
		for _, l := range []client.ObjectList{&gardencorev1beta1.ShootList{}, &gardencorev1beta1.SeedList{}, &seedmanagementv1alpha1.ManagedSeedList{}} {
			if err := env.Client.List(ctx, l); err != nil {
				return false
			}
			n += meta.LenList(l)
		}
		return n == 0
	}, 20*time.Second, 50*time.Millisecond, "objects of the test are left")
}
