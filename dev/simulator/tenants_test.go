//go:build integration

package simulator

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

func TestRampProfileCreatesTheWantedShoots(t *testing.T) {
	// A real clock at speed 3600: an hour a second. The ramp goes from 0 to 40 shoots over the
	// first simulated hour and holds for another; a sample every step.
	cfg, err := ParseConfiguration([]byte(`
apiVersion: simulator.seedscaler.io/v1alpha1
kind: SimulatorConfiguration
speed: 3600
duration: 2h
tick: 100ms
progressInterval: 1s
demand:
  profile: ramp
  ramp: {from: 0, to: 40, over: 1h}
  projects: [ramp-a, ramp-b]
  locations:
  - {provider: gcp, region: europe-west1, weight: 3}
  - {provider: aws, region: eu-central-1, cloudProfile: aws-profile, weight: 1}
  purposes: [{purpose: production}, {purpose: development}]
  highAvailability: 0.5
  tolerations: [{keys: []}, {keys: [seed.gardener.cloud/protected]}]
`))
	require.NoError(t, err)
	t.Cleanup(func() { cleanup(t) })
	// Reads from a cache, as `seedscaler-dev simulate` does.
	sim := New(cfg, cachedClient(t), clock.RealClock{}, nil)
	var progress bytes.Buffer
	sim.Progress = &progress
	require.NoError(t, sim.Run(logf.IntoContext(t.Context(), testr.New(t))))

	shoots := tenants(t.Context(), t)
	assert.Len(t, shoots, 40, "the ramp ends at 40 shoots and holds")
	count := map[string]int{}
	for _, sh := range shoots {
		assert.Nil(t, sh.Spec.SeedName, "tenants leave scheduling to the scheduler")
		assert.Equal(t, "10.180.0.0/16", *sh.Spec.Networking.Nodes)
		count[sh.Namespace]++
		count[sh.Spec.Provider.Type+"/"+sh.Spec.Region+"/"+*sh.Spec.CloudProfileName]++
		count[string(*sh.Spec.Purpose)]++
		if sh.Spec.ControlPlane != nil {
			count["ha"]++
		}
		count["tolerations"] += len(sh.Spec.Tolerations)
	}
	for _, k := range []string{"garden-ramp-a", "garden-ramp-b", "gcp/europe-west1/gcp", "aws/eu-central-1/aws-profile", "production", "development", "ha", "tolerations"} {
		assert.Positive(t, count[k], "the mix has %s", k)
	}
	assert.Greater(t, count["gcp/europe-west1/gcp"], count["aws/eu-central-1/aws-profile"], "weight 3 against 1")
	assert.Equal(t, 40, count["garden-ramp-a"]+count["garden-ramp-b"])

	// Every sample shows the shoots the step before asked for, or (as the cache may not have
	// caught up yet) those of the step before that; never more: tenants follow the ramp
	// within a step.
	tl := sim.Timeline()
	require.Greater(t, len(tl), 5)
	for i := 1; i < len(tl); i++ {
		want := RampDesired(*cfg.Demand.Ramp, tl[i-1].Elapsed)
		assert.LessOrEqual(t, tl[i].Tenants, want, "sample %d at %s", i, tl[i].Elapsed)
		if i > 1 {
			assert.GreaterOrEqual(t, tl[i].Tenants, RampDesired(*cfg.Demand.Ramp, tl[i-2].Elapsed), "sample %d at %s", i, tl[i].Elapsed)
		}
		assert.Equal(t, tl[i].Tenants, tl[i].Pending, "nothing schedules them here")
	}
	last := tl[len(tl)-1]
	assert.GreaterOrEqual(t, last.Elapsed, 2*time.Hour, "the final sample is taken when the run ends")
	assert.Equal(t, 40, last.Wanted)
	assert.Equal(t, 40, last.Tenants, "an hour of holding: the cache has caught up")
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	assert.Len(t, lines, len(tl), "a progress line per sample")
	assert.Contains(t, lines[len(lines)-1], "wanted   40")
}

func TestReplayFollowsItsCSV(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "demand.csv"), []byte(`# a replayed morning
offset,gcp/europe-west1,aws/eu-central-1
0s,3,1
10m,5,0
20m,2,2
30m,0,0
`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sim.yaml"), []byte(`
apiVersion: simulator.seedscaler.io/v1alpha1
kind: SimulatorConfiguration
speed: 60
shoots: {deleteDelay: 2m, jitter: 0}
demand:
  profile: replay
  replay: {file: demand.csv}
  projects: [replay]
  locations: [{provider: aws, region: eu-central-1, cloudProfile: aws-profile}]
`), 0o600))
	cfg, err := LoadConfiguration(filepath.Join(dir, "sim.yaml"))
	require.NoError(t, err)
	h := newHarnessFor(t, cfg)

	perLocation := func() map[string]int {
		out := map[string]int{}
		for _, sh := range tenants(h.ctx, t) {
			out[sh.Spec.Provider.Type+"/"+sh.Spec.Region]++
			if sh.Spec.Provider.Type == "aws" {
				assert.Equal(t, "aws-profile", *sh.Spec.CloudProfileName, "the location's settings apply")
			}
		}
		return out
	}
	h.step(0)
	assert.Equal(t, map[string]int{"gcp/europe-west1": 3, "aws/eu-central-1": 1}, perLocation())
	h.step(9 * time.Second)
	assert.Equal(t, map[string]int{"gcp/europe-west1": 3, "aws/eu-central-1": 1}, perLocation(), "a row holds until the next")
	h.step(time.Second)
	assert.Equal(t, map[string]int{"gcp/europe-west1": 5}, perLocation())
	h.step(10 * time.Second)
	assert.Equal(t, map[string]int{"gcp/europe-west1": 2, "aws/eu-central-1": 2}, perLocation())
	h.step(10 * time.Second)
	assert.Empty(t, perLocation())
	h.step(time.Second) // the simulator sees the deletions: 2 simulated minutes to go
	h.step(2 * time.Second)
	list := &gardencorev1beta1.ShootList{}
	require.NoError(t, env.Client.List(h.ctx, list))
	assert.Empty(t, list.Items, "the tenants' deleted shoots are gone after the deletion delay")
}

// laggingClient serves every shoot list one list late, as a cache that has not caught up
// with the writes would.
type laggingClient struct {
	client.Client
	previous *gardencorev1beta1.ShootList
}

func (c *laggingClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	shoots, ok := list.(*gardencorev1beta1.ShootList)
	if !ok {
		return c.Client.List(ctx, list, opts...)
	}
	fresh := &gardencorev1beta1.ShootList{}
	if err := c.Client.List(ctx, fresh, opts...); err != nil {
		return err
	}
	if c.previous == nil {
		c.previous = &gardencorev1beta1.ShootList{}
	}
	c.previous.DeepCopyInto(shoots)
	c.previous = fresh
	return nil
}

func TestTenantsExpectTheirOwnWritesWhenReadsLag(t *testing.T) {
	cfg, err := ParseConfiguration([]byte(`
speed: 60
shoots: {jitter: 0}
demand:
  profile: step
  steps: [{at: 0s, shoots: 6}, {at: 10m, shoots: 4}, {at: 20m, shoots: 7}]
  projects: [lag]
`))
	require.NoError(t, err)
	h := newHarnessFor(t, cfg)
	h.sim = New(cfg, &laggingClient{Client: env.Client}, h.clock, nil)

	count := func() int { return len(tenants(h.ctx, t)) }
	h.step(0)
	assert.Equal(t, 6, count())
	h.step(time.Second) // the read shows no tenant shoot yet
	assert.Equal(t, 6, count(), "shoots created but not yet read are not created again")
	h.step(time.Second)
	assert.Equal(t, 6, count())

	h.step(8 * time.Second) // 10m: 4 wanted; the read shows 6
	assert.Equal(t, 4, count())
	h.step(time.Second) // the read still shows all 6 alive
	h.step(time.Second)
	assert.Equal(t, 4, count(), "shoots deleted but not yet read as deleting do not count, and no other goes in their place")

	h.step(8 * time.Second) // 20m: 7 wanted
	h.step(time.Second)
	h.step(time.Second)
	assert.Equal(t, 7, count())
}

// stalledClient serves shoot lists as they were before the stall while still is set, as
// a watch through a loaded garden's API server does when it is cut and relists for minutes.
type stalledClient struct {
	client.Client
	still atomic.Bool
}

func (c *stalledClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if _, ok := list.(*gardencorev1beta1.ShootList); ok && c.still.Load() {
		return nil // nothing of the tenants' yet
	}
	return c.Client.List(ctx, list, opts...)
}

func TestTenantsExpectTheirOwnWritesWhileReadsStandStill(t *testing.T) {
	cfg, err := ParseConfiguration([]byte(`
speed: 60
shoots: {jitter: 0}
demand:
  profile: step
  steps: [{at: 0s, shoots: 6}]
  projects: [stall]
`))
	require.NoError(t, err)
	h := newHarnessFor(t, cfg)
	stalled := &stalledClient{Client: env.Client}
	stalled.still.Store(true)
	h.sim = New(cfg, stalled, h.clock, nil)

	count := func() int { return len(tenants(h.ctx, t)) }
	h.step(0)
	require.Equal(t, 6, count())
	for range 10 { // five minutes of wall-clock time without a fresh read
		h.step(30 * time.Second)
	}
	assert.Equal(t, 6, count(), "shoots created while the read stands still are not created again")

	stalled.still.Store(false)
	h.step(time.Second)
	assert.Equal(t, 6, count())
}

func TestTenantsRetryTheirFailedShoots(t *testing.T) {
	h := newHarness(t, `
speed: 60
shoots: {createDelay: 1m, jitter: 0, failureRate: 1}
demand: {constant: {shoots: 1}, projects: [retry]}
`)
	h.step(0)
	own := tenants(h.ctx, t)
	require.Len(t, own, 1)
	sh := &own[0]
	// The scheduler's part: bind it.
	orig := sh.DeepCopy()
	sh.Spec.SeedName = ptr.To("seed-a")
	require.NoError(t, env.Client.Patch(h.ctx, sh, client.MergeFrom(orig)))

	h.step(time.Second) // Create/Processing
	h.step(time.Second) // Failed, and the tenant asks for a retry
	sh = h.shoot(sh.Namespace, sh.Name)
	assert.Equal(t, gardencorev1beta1.LastOperationStateFailed, sh.Status.LastOperation.State)
	assert.Equal(t, seedmanagementv1alpha1.OperationRetry, sh.Annotations[seedmanagementv1alpha1.AnnotationOperation])

	h.cfg.Shoots.FailureRate = 0
	h.step(time.Second) // the retry starts
	sh = h.shoot(sh.Namespace, sh.Name)
	assert.Equal(t, gardencorev1beta1.LastOperationStateProcessing, sh.Status.LastOperation.State)
	assert.NotContains(t, sh.Annotations, seedmanagementv1alpha1.AnnotationOperation)
	h.step(time.Second)
	assert.Equal(t, gardencorev1beta1.LastOperationStateSucceeded, h.shoot(sh.Namespace, sh.Name).Status.LastOperation.State)
	assert.Len(t, tenants(h.ctx, t), 1, "retried, not replaced")
}
