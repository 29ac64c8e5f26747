//go:build integration

package simulator

import (
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// With 16 writers and reads from a cache, a step's writes go at once and none is lost or
// made twice: the 300 wanted shoots exist, each once, each with the infrastructure's
// finalizer; then the demand halves and exactly the surplus goes. The gardenlets run apart
// from the steps and heartbeat meanwhile.
func TestManyWritersCreateAndDeleteExactlyTheDemand(t *testing.T) {
	cfg, err := ParseConfiguration([]byte(`
apiVersion: simulator.seedscaler.io/v1alpha1
kind: SimulatorConfiguration
speed: 600
duration: 2h
tick: 100ms
progressInterval: 10m
writers: 16
demand:
  profile: step
  steps: [{at: 0h, shoots: 300}, {at: 1h, shoots: 150}]
  projects: [writers]
`))
	require.NoError(t, err)
	t.Cleanup(func() { cleanup(t) })
	sim := New(cfg, cachedClient(t), clock.RealClock{}, nil)
	ctx := logf.IntoContext(t.Context(), testr.New(t))
	createSeed(t, builders.MakeSeed("writers-seed").Obj())

	done := make(chan error, 1)
	go func() { done <- sim.Run(ctx) }()
	require.Eventually(t, func() bool { return len(tenants(ctx, t)) == 300 }, 30*time.Second, 50*time.Millisecond,
		"300 tenant shoots within the first simulated hour (6 s)")
	for _, sh := range tenants(ctx, t) {
		if controllerutil.ContainsFinalizer(&sh, Finalizer) {
			continue
		}
		require.Eventually(t, func() bool {
			return controllerutil.ContainsFinalizer(getShoot(t, sh.Namespace, sh.Name), Finalizer)
		}, 10*time.Second, 50*time.Millisecond, "shoot %s never got the finalizer", sh.Name)
	}
	lease := &coordinationv1.Lease{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: LeaseNamespace, Name: "writers-seed"}, lease),
		"the seed's gardenlet heartbeats")
	renewed := lease.Spec.RenewTime.Time
	require.Eventually(t, func() bool {
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: LeaseNamespace, Name: "writers-seed"}, lease))
		return lease.Spec.RenewTime.After(renewed)
	}, 10*time.Second, 50*time.Millisecond, "the heartbeat is renewed")
	require.NoError(t, <-done)
	assert.Len(t, tenants(ctx, t), 150, "the second hour wants 150: the surplus went, no more")
}

func getShoot(t *testing.T, namespace, name string) *gardencorev1beta1.Shoot {
	t.Helper()
	sh := &gardencorev1beta1.Shoot{}
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Namespace: namespace, Name: name}, sh))
	return sh
}

// demand.burst: tenants that want 50 shoots at once create 20 a step.
func TestBurstSpreadsCreationsOverSteps(t *testing.T) {
	h := newHarness(t, `
demand: {constant: {shoots: 50}, burst: 20, projects: [burst]}
`)
	for _, want := range []int{20, 40, 50, 50} {
		h.step(time.Second)
		require.Eventually(t, func() bool { return len(tenants(h.ctx, t)) == want }, 5*time.Second, 20*time.Millisecond,
			"%d tenant shoots after this step", want)
	}
}
