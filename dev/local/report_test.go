package local

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/seeduse"
)

func TestTakeSampleCountsTenantsAndReadySeeds(t *testing.T) {
	replica := builders.MakeShoot("garden", "demo-0").SeedName("soil").Obj()
	replica.OwnerReferences = []metav1.OwnerReference{{APIVersion: seedmanagementv1alpha1.GroupVersion.String(), Kind: "ManagedSeedSet", Name: "demo", Controller: ptr.To(true)}}
	shoots := []gardencorev1beta1.Shoot{
		*builders.MakeShoot("p", "a").SeedName("demo-0").Obj(),
		*builders.MakeShoot("p", "b").SeedName("demo-0").Obj(),
		*builders.MakeShoot("p", "c").SeedName("demo-1").StatusSeedName("demo-0").Obj(), // migrating: counts on both
		*builders.MakeShoot("p", "d").Obj(),
		*replica,
	}
	seeds := []gardencorev1beta1.Seed{
		*builders.MakeSeed("demo-0").Allocatable(2).Ready().Obj(), // 3 shoots on 2: overcommitted
		*builders.MakeSeed("demo-1").Allocatable(10).Obj(),        // not ready: capacity not counted
		*builders.MakeSeed("soil").Ready().Obj(),                  // no allocatable: not a set seed
	}
	set := &seedmanagementv1alpha1.ManagedSeedSet{Status: seedmanagementv1alpha1.ManagedSeedSetStatus{Replicas: 2}}
	sa := &autoscalingv1alpha1.SeedAutoscaler{
		Spec: autoscalingv1alpha1.SeedAutoscalerSpec{Metrics: []autoscalingv1alpha1.MetricSpec{{
			Type: autoscalingv1alpha1.ResourceMetricSourceType,
			Resource: &autoscalingv1alpha1.ResourceMetricSource{Name: "shoots", Target: autoscalingv1alpha1.MetricTarget{
				Type: autoscalingv1alpha1.UtilizationMetricType, AverageUtilization: ptr.To[int32](70)}},
		}}},
		Status: autoscalingv1alpha1.SeedAutoscalerStatus{DesiredReplicas: 3},
	}

	s := takeSample(5*time.Second, shoots, seeds, seeduse.PerSeed(shoots), set, sa)
	assert.Equal(t, 4, s.Demand, "the set's own replica shoot is not demand")
	assert.Equal(t, 3, s.Bound)
	assert.Equal(t, 1, s.Pending)
	assert.Equal(t, 2, s.Seeds)
	assert.Equal(t, 1, s.SeedsReady)
	assert.Equal(t, int64(2), s.Allocatable)
	assert.Equal(t, int64(3), s.Usage)
	assert.Equal(t, 1, s.Overcommitted)
	assert.Equal(t, int32(2), s.Replicas)
	assert.Equal(t, int32(3), s.DesiredReplicas)
	assert.Equal(t, int32(70), s.TargetUtilization)
	assert.InDelta(t, 1.5, s.Utilization(), 1e-9)
	assert.Empty(t, s.Ahead, "no scale-ahead status: no forecast")

	sa.Status.ScaleAhead = &autoscalingv1alpha1.ScaleAheadStatus{Reason: "HeldScaleIn", ForecastReplicas: ptr.To[int32](4)}
	s = takeSample(5*time.Second, shoots, seeds, seeduse.PerSeed(shoots), set, sa)
	assert.Equal(t, "HeldScaleIn", s.Ahead)
	assert.Equal(t, int32(4), s.ForecastReplicas)
}

// Only the ScaledOutAhead events of the watched SeedAutoscaler count, a series each time.
func TestCountScaledOutAhead(t *testing.T) {
	sa := &autoscalingv1alpha1.SeedAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "demo"}}
	regarding := corev1.ObjectReference{Kind: "SeedAutoscaler", Namespace: "garden", Name: "demo"}
	other := regarding
	other.Name = "other"
	evs := []eventsv1.Event{
		{Reason: "ScaledOutAhead", Regarding: regarding},
		{Reason: "ScaledOutAhead", Regarding: regarding, Series: &eventsv1.EventSeries{Count: 3}},
		{Reason: "SuccessfulRescale", Regarding: regarding},
		{Reason: "ScaledOutAhead", Regarding: other},
	}
	assert.Equal(t, 4, countScaledOutAhead(evs, sa))
}

func TestWaitTrackerMeasuresFromCreationToFirstSeenBound(t *testing.T) {
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pending := builders.MakeShoot("p", "a").Obj()
	pending.UID, pending.CreationTimestamp = types.UID("a"), metav1.NewTime(created)
	w := newWaitTracker()
	w.observe(created.Add(time.Second), []gardencorev1beta1.Shoot{*pending})
	assert.Empty(t, w.waits, "a pending shoot has no wait yet")
	bound := pending.DeepCopy()
	bound.Spec.SeedName = ptr.To("s")
	w.observe(created.Add(7*time.Second), []gardencorev1beta1.Shoot{*bound})
	w.observe(created.Add(9*time.Second), []gardencorev1beta1.Shoot{*bound})
	assert.Equal(t, []time.Duration{7 * time.Second}, w.waits, "each shoot is measured once")
}

func TestSummaryAndTimeline(t *testing.T) {
	samples := []Sample{
		{Elapsed: 0, Demand: 10, Bound: 10, Allocatable: 20, Usage: 10, Replicas: 1, DesiredReplicas: 1, TargetUtilization: 70, Seeds: 1, SeedsReady: 1},
		{Elapsed: 10 * time.Second, Demand: 40, Bound: 30, Pending: 10, Allocatable: 40, Usage: 30, Replicas: 2, DesiredReplicas: 3, TargetUtilization: 70, Seeds: 2, SeedsReady: 2},
		{Elapsed: 20 * time.Second, Demand: 20, Bound: 20, Allocatable: 60, Usage: 20, Replicas: 3, DesiredReplicas: 3, TargetUtilization: 70, Seeds: 3, SeedsReady: 3},
	}
	events := []scaleEvent{{Elapsed: 8 * time.Second, From: 1, To: 3}}
	sum := summarize(samples, events, []time.Duration{3 * time.Second, time.Second, 10 * time.Second})
	assert.Equal(t, 40, sum.PeakDemand)
	assert.InDelta(t, 0.75, sum.PeakUtilization, 1e-9)
	assert.Equal(t, int32(1), sum.MinReplicas)
	assert.Equal(t, int32(3), sum.MaxReplicas)
	assert.Equal(t, 0, sum.MaxOvercommitted)
	md := sum.Markdown()
	assert.Contains(t, md, "| peak utilization of ready seeds | 75% (target 70%) |")
	assert.Contains(t, md, "| wait for a seed: median / p95 / max | 3s / 3s / 10s |")
	assert.Contains(t, md, "| overcommits (seeds above allocatable, worst sample) | 0 |")
	assert.Contains(t, md, "1 → 3 at 8s")
	assert.NotContains(t, md, "forecast", "a run without scale-ahead says nothing of forecasts")

	var csv bytes.Buffer
	require.NoError(t, writeTimeline(&csv, samples))
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	require.Len(t, lines, 4)
	assert.Equal(t, strings.Join(timelineHeader, ","), lines[0])
	assert.Equal(t, "10.0,40,30,10,2,2,40,30,0.7500,70,2,3,0,0,,0", lines[2])

	dir := t.TempDir()
	_, err := writeReport(dir, samples, events, nil)
	require.NoError(t, err)
	plotPNG, err := os.ReadFile(filepath.Join(dir, "plot.png"))
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(plotPNG))
	require.NoError(t, err, "plot.png must be a PNG")
	assert.Greater(t, img.Bounds().Dx(), 500)
	for _, name := range []string{"timeline.csv", "summary.md"} {
		_, err := os.Stat(filepath.Join(dir, name))
		assert.NoError(t, err, name)
	}
}

// A run that scales ahead reports the forecast: its replicas and reason per sample in the
// timeline, and in the summary the scale-outs it drove, the samples it raised or held the
// replicas, and the most replicas it asked for.
func TestSummaryOfAScaleAheadRun(t *testing.T) {
	samples := []Sample{
		{Elapsed: 0, Demand: 10, Replicas: 1, Ahead: "ForecastMissing"},
		{Elapsed: 2 * time.Second, Demand: 60, Replicas: 2, ForecastReplicas: 4, Ahead: "ScaledOutAhead", ScaledOutAhead: 1},
		{Elapsed: 4 * time.Second, Demand: 90, Replicas: 4, ForecastReplicas: 5, Ahead: "ScaledOutAhead", ScaledOutAhead: 2},
		{Elapsed: 6 * time.Second, Demand: 90, Replicas: 5, ForecastReplicas: 3, Ahead: "ReactiveWins", ScaledOutAhead: 2},
		{Elapsed: 8 * time.Second, Demand: 20, Replicas: 5, ForecastReplicas: 3, Ahead: "HeldScaleIn", ScaledOutAhead: 2},
	}
	sum := summarize(samples, nil, nil)
	assert.True(t, sum.ScaleAhead)
	assert.Equal(t, 2, sum.ScaledOutAhead)
	assert.Equal(t, 3, sum.AheadSamples)
	assert.Equal(t, int32(5), sum.PeakForecastReplicas)
	md := sum.Markdown()
	assert.Contains(t, md, "| scale-outs driven by the forecast (ScaledOutAhead events) | 2 |")
	assert.Contains(t, md, "| most replicas the forecast asked for | 5 |")

	var csv bytes.Buffer
	require.NoError(t, writeTimeline(&csv, samples))
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	assert.True(t, strings.HasSuffix(lines[2], ",4,ScaledOutAhead,1"), lines[2])

	out := renderView(nil, samples, nil, 5)
	assert.Contains(t, out, "HeldScaleIn")
	assert.Contains(t, out, "scaled out ahead of demand: 2")
}

func TestRenderViewShowsTheLatestRows(t *testing.T) {
	var samples []Sample
	for i := 0; i < 30; i++ {
		samples = append(samples, Sample{Elapsed: time.Duration(i) * time.Second, Demand: i})
	}
	out := renderView([]string{"header"}, samples, []scaleEvent{{Elapsed: 3 * time.Second, From: 1, To: 2}}, 5)
	assert.Contains(t, out, "header")
	assert.Contains(t, out, "last scale event: 1 → 2 at 3s   scale events: 1")
	assert.NotContains(t, out, "\n     24s", "only the last 5 rows are shown")
	assert.Contains(t, out, "29s")
	assert.Equal(t, 5, strings.Count(out, "/-"), "one row per shown sample")
}
