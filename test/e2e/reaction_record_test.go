//go:build integration

package e2e

import (
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/dev/local"
	"github.com/seedscaler/seedscaler/test/framework/stats"
)

// stage is a point a step of demand reaches on its way through the loop.
type stage int

const (
	// seriesChange: the first Prometheus sample that shows the step.
	seriesChange stage = iota
	// scaleWritten: the set's spec.replicas changed (the autoscaler wrote /scale).
	scaleWritten
	// seedReady: the last of the new seeds turned GardenletReady (up steps).
	seedReady
	// lastBound: the last shoot of the step got a seed (up steps).
	lastBound
)

var stages = []stage{seriesChange, scaleWritten, seedReady, lastBound}

func (s stage) String() string {
	return [...]string{"series_change", "scale_written", "seed_ready", "last_bound"}[s]
}

// reactionRow is one step: the time from the demand step to each stage it reached; a stage
// that does not apply to its direction is absent.
type reactionRow struct {
	step      int
	direction string
	after     map[stage]time.Duration
}

// set records the time to stage s; it returns true, to end a condition that found it.
func (r *reactionRow) set(s stage, d time.Duration) bool {
	if r.after == nil {
		r.after = map[stage]time.Duration{}
	}
	r.after[s] = d
	return true
}

// writeReactionCSV writes one line per step, in seconds, empty where a stage does not apply.
func writeReactionCSV(path string, rows []reactionRow) error {
	var out strings.Builder
	out.WriteString("step,direction")
	for _, s := range stages {
		out.WriteString("," + s.String() + "_s")
	}
	out.WriteString("\n")
	for _, r := range rows {
		out.WriteString(csvLine(r) + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(out.String()), 0o644)
}

// csvLine is a step as a line of reaction.csv: the step, its direction, and the seconds to
// each stage.
func csvLine(r reactionRow) string {
	var out strings.Builder
	fmt.Fprintf(&out, "%d,%s", r.step, r.direction)
	for _, s := range stages {
		out.WriteString(",")
		if d, ok := r.after[s]; ok {
			fmt.Fprintf(&out, "%.2f", d.Seconds())
		}
	}
	return out.String()
}

// reactionFigure is one line of the summary: a span per step, in one direction.
type reactionFigure struct {
	direction, name string
	spans           []time.Duration
}

// reactionFigures gathers, per direction, the time to each stage and the reaction itself:
// /scale written after the series changed.
func reactionFigures(rows []reactionRow) []reactionFigure {
	var figures []reactionFigure
	for _, dir := range []string{"up", "down"} {
		for _, s := range stages {
			figures = append(figures, reactionFigure{direction: dir, name: s.String(), spans: spans(rows, dir, func(r reactionRow) (time.Duration, bool) {
				d, ok := r.after[s]
				return d, ok
			})})
		}
		figures = append(figures, reactionFigure{direction: dir, name: "scale_after_series", spans: spans(rows, dir, func(r reactionRow) (time.Duration, bool) {
			scale, ok1 := r.after[scaleWritten]
			series, ok2 := r.after[seriesChange]
			return scale - series, ok1 && ok2
		})})
	}
	return slices.DeleteFunc(figures, func(f reactionFigure) bool { return len(f.spans) == 0 })
}

func spans(rows []reactionRow, direction string, span func(reactionRow) (time.Duration, bool)) []time.Duration {
	var out []time.Duration
	for _, r := range rows {
		if d, ok := span(r); ok && r.direction == direction {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

// summarizeReaction is a table of p50 and p90 per direction and figure, in seconds.
func summarizeReaction(rows []reactionRow) string {
	var out strings.Builder
	fmt.Fprintf(&out, "%-9s %-18s %3s %7s %7s\n", "direction", "from the step to", "n", "p50 s", "p90 s")
	for _, f := range reactionFigures(rows) {
		fmt.Fprintf(&out, "%-9s %-18s %3d %7.2f %7.2f\n", f.direction, f.name, len(f.spans),
			stats.Percentile(f.spans, 0.5).Seconds(), stats.Percentile(f.spans, 0.9).Seconds())
	}
	return out.String()
}

// reportReactionMetrics reports p50 of every figure as the benchmark's metrics; the
// summary has p90 too.
func reportReactionMetrics(b *testing.B, rows []reactionRow) {
	for _, f := range reactionFigures(rows) {
		b.ReportMetric(stats.Percentile(f.spans, 0.5).Seconds(), f.direction+"-"+f.name+"-p50-s")
	}
}

// firstScrapeWhere sums the samples of each scrape (one timestamp: every series of a target
// is stamped with its scrape's start) from t0 on, and returns the first scrape whose sum
// satisfies ok.
func firstScrapeWhere(m model.Matrix, t0 time.Time, ok func(float64) bool) (time.Time, bool) {
	sums := map[model.Time]float64{}
	for _, series := range m {
		for _, v := range series.Values {
			if !v.Timestamp.Time().Before(t0) && !math.IsNaN(float64(v.Value)) {
				sums[v.Timestamp] += float64(v.Value)
			}
		}
	}
	for _, ts := range slices.Sorted(maps.Keys(sums)) {
		if ok(sums[ts]) {
			return ts.Time(), true
		}
	}
	return time.Time{}, false
}

// reactionRecorder notes when the benchmark's informers see the changes a step's stages are
// measured by, on this process's clock as each event arrives.
type reactionRecorder struct {
	stop func()

	mu       sync.Mutex
	replicas []replicaChange      // the set's spec.replicas, every change
	ready    map[string]time.Time // the set's seeds, when first seen GardenletReady=True
	bound    map[string]time.Time // the benchmark's shoots, when first seen with spec.seedName
}

type replicaChange struct {
	at       time.Time
	replicas int32
}

// newReactionRecorder starts an informer cache on the stack; stop ends its watches, which
// must happen before the stack stops.
func newReactionRecorder(ctx context.Context, b *testing.B, st *local.Stack) *reactionRecorder {
	b.Helper()
	c, err := cache.New(st.Env.Config, cache.Options{Scheme: st.Env.Scheme})
	require.NoError(b, err)
	r := &reactionRecorder{ready: map[string]time.Time{}, bound: map[string]time.Time{}}
	onEvent(ctx, b, c, &seedmanagementv1alpha1.ManagedSeedSet{}, r.onSet)
	onEvent(ctx, b, c, &gardencorev1beta1.Seed{}, r.onSeed)
	onEvent(ctx, b, c, &gardencorev1beta1.Shoot{}, r.onShoot)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Start(ctx)
	}()
	r.stop = func() { cancel(); <-done }
	require.True(b, c.WaitForCacheSync(ctx), "the benchmark's cache did not sync")
	return r
}

// onEvent calls on with each added or updated object of obj's kind and the time it arrived.
func onEvent(ctx context.Context, b *testing.B, c cache.Cache, obj client.Object, on func(obj any, at time.Time)) {
	b.Helper()
	inf, err := c.GetInformer(ctx, obj)
	require.NoError(b, err)
	_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { on(o, time.Now()) },
		UpdateFunc: func(_, o any) { on(o, time.Now()) },
	})
	require.NoError(b, err)
}

func (r *reactionRecorder) onSet(obj any, at time.Time) {
	set, ok := obj.(*seedmanagementv1alpha1.ManagedSeedSet)
	if !ok || set.Namespace != setNamespace || set.Name != setName || set.Spec.Replicas == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.replicas); n == 0 || r.replicas[n-1].replicas != *set.Spec.Replicas {
		r.replicas = append(r.replicas, replicaChange{at: at, replicas: *set.Spec.Replicas})
	}
}

func (r *reactionRecorder) onSeed(obj any, at time.Time) {
	seed, ok := obj.(*gardencorev1beta1.Seed)
	if !ok || seed.Labels["seedscaler.io/set"] != setName ||
		!meta.IsStatusConditionTrue(seed.Status.Conditions, gardencorev1beta1.SeedGardenletReady) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, seen := r.ready[seed.Name]; !seen {
		r.ready[seed.Name] = at
	}
}

func (r *reactionRecorder) onShoot(obj any, at time.Time) {
	shoot, ok := obj.(*gardencorev1beta1.Shoot)
	if !ok || shoot.Namespace != reactionTenants || shoot.Spec.SeedName == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, seen := r.bound[shoot.Name]; !seen {
		r.bound[shoot.Name] = at
	}
}

// firstReplicasAfter returns the first change of the set's spec.replicas seen after t0.
func (r *reactionRecorder) firstReplicasAfter(t0 time.Time) (time.Time, int32, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.replicas {
		if c.at.After(t0) {
			return c.at, c.replicas, true
		}
	}
	return time.Time{}, 0, false
}

// lastReadyAfter returns how many of the set's seeds turned Ready after t0, and when the
// last of them did.
func (r *reactionRecorder) lastReadyAfter(t0 time.Time) (time.Time, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var last time.Time
	n := 0
	for _, at := range r.ready {
		if at.After(t0) {
			n++
			last = later(last, at)
		}
	}
	return last, n
}

// lastBound returns when the last of the named shoots got a seed, and how many have none.
func (r *reactionRecorder) lastBound(names []string) (time.Time, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var last time.Time
	unbound := 0
	for _, name := range names {
		at, ok := r.bound[name]
		if !ok {
			unbound++
		}
		last = later(last, at)
	}
	return last, unbound
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
