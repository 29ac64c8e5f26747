//go:build integration

package garden

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/dev/local"
	"github.com/seedscaler/seedscaler/test/framework/seeduse"
)

// The whole loop in a real garden, as `make demo-gardener` runs it: the demo's day of tenant
// shoots, which gardener-scheduler places; the exporter, Prometheus and the adapter measure
// Gardener's seeds of the set; the SeedAutoscaler grows Gardener's ManagedSeedSet from the
// shoots gardener-scheduler cannot place and from utilization, gardener-controller-manager
// adds the replicas, the simulated gardenlets register their seeds; when demand falls the
// set shrinks. No seed ever holds more shoots than its allocatable.
func TestTheLoopInAGarden(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	bin, err := developmentBuild()
	require.NoError(t, err)
	st, err := local.Start(logr.NewContext(ctx, klog.NewKlogr().WithName("garden-loop")), local.Options{Binary: bin, Gardener: true})
	require.NoError(t, err)
	t.Cleanup(st.Stop)
	t.Cleanup(func() {
		if t.Failed() {
			printLogs(t, filepath.Join(st.WorkDir, "logs"))
		}
	})
	run := 4 * time.Minute
	require.NoError(t, st.StartSimulator(local.Options{Profile: local.ProfileDemo, Speed: 240, Duration: run}))

	c := st.Env.Client
	var peak, last int32
	var overfilled []string
	var targets string
	deadline := time.Now().Add(run)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(2 * time.Second):
		}
		set := &seedmanagementv1alpha1.ManagedSeedSet{}
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "garden", Name: "demo"}, set))
		last = *set.Spec.Replicas
		peak = max(peak, last)
		overfilled = append(overfilled, overfilledSeeds(t, ctx, c)...)
		sa := &autoscalingv1alpha1.SeedAutoscaler{}
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "garden", Name: "demo"}, sa))
		if sa.Status.Targets != "" && !strings.HasPrefix(sa.Status.Targets, "<unknown>") {
			targets = sa.Status.Targets
		}
	}
	assert.GreaterOrEqual(t, peak, int32(3), "the SeedAutoscaler grew Gardener's set")
	assert.Less(t, last, peak, "and shrank it when demand fell")
	assert.Empty(t, overfilled, "no seed above its allocatable")
	assert.NotEmpty(t, targets, "the SeedAutoscaler read the seeds' utilization through the adapter")
}

// overfilledSeeds names the seeds that hold more shoots than their allocatable.
func overfilledSeeds(t *testing.T, ctx context.Context, c client.Client) []string {
	t.Helper()
	seeds := &gardencorev1beta1.SeedList{}
	require.NoError(t, c.List(ctx, seeds))
	shoots := &gardencorev1beta1.ShootList{}
	require.NoError(t, c.List(ctx, shoots))
	return seeduse.Overfilled(seeds.Items, seeduse.PerSeed(shoots.Items))
}
