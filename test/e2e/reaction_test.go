//go:build integration

package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/dev/local"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

const (
	// reactionTenants holds the shoots the benchmark's steps create.
	reactionTenants = "garden-reaction"
	// stepTimeout bounds one step, from the demand step to its last stage.
	stepTimeout = 4 * time.Minute
	// The autoscaler's inputs, as the adapter reads them: the set's pending shoots (the
	// signal of an up step) and the usage of its seeds (of a down step).
	pendingSeries = `seedscaler_scheduler_pending_shoots{namespace="garden",managedseedset="demo"}`
	usageSeries   = `garden_seed_usage{resource="shoots",name=~"demo-[0-9]+"}`
)

// reactionConfig is what the environment asks of a run of BenchmarkReaction.
type reactionConfig struct {
	// steps is the number of up steps, each followed by a down step.
	steps int
	// autoscalerArgs come after the stack's own autoscaler flags, so they win.
	autoscalerArgs []string
	// syncPeriod is the autoscaler's, the last --sync-period=<duration> of autoscalerArgs.
	syncPeriod time.Duration
	reportDir  string
}

// reactionConfigFromEnv reads SEEDSCALER_REACTION_STEPS (default 5),
// SEEDSCALER_REACTION_AUTOSCALER_ARGS (flags separated by spaces) and
// SEEDSCALER_REACTION_REPORT (default report/<timestamp> in the repository at root).
func reactionConfigFromEnv(root string) (reactionConfig, error) {
	cfg := reactionConfig{steps: 5, reportDir: filepath.Join(root, "report", time.Now().Format("20060102-150405"))}
	if v := os.Getenv("SEEDSCALER_REACTION_STEPS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("SEEDSCALER_REACTION_STEPS=%q: want the number of up steps (each followed by a down step), 1 or more, such as 5", v)
		}
		cfg.steps = n
	}
	// The sync period the chart deploys, not the demo's 5 s: the benchmark measures the
	// autoscaler as users run it.
	cfg.autoscalerArgs = append([]string{"--sync-period=15s"}, strings.Fields(os.Getenv("SEEDSCALER_REACTION_AUTOSCALER_ARGS"))...)
	for _, arg := range cfg.autoscalerArgs {
		if v, ok := strings.CutPrefix(arg, "--sync-period="); ok {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return cfg, fmt.Errorf("SEEDSCALER_REACTION_AUTOSCALER_ARGS: %s is not a positive duration, such as --sync-period=15s", arg)
			}
			cfg.syncPeriod = d
		}
	}
	if v := os.Getenv("SEEDSCALER_REACTION_REPORT"); v != "" {
		cfg.reportDir = v
	}
	return cfg, nil
}

// BenchmarkReaction measures how fast the whole loop reacts to a step of demand, stage by
// stage, on the stack as `seedscaler-dev local` runs it (exporter and scheduler → Prometheus →
// adapter → autoscaler → set controller → seed controller, the simulator playing
// gardenlets). Each up step creates shoots that need one or two more seeds; each down step
// deletes them, and the set scales back in to one seed. Per step it measures, from the
// moment demand changed: the first Prometheus sample that shows it, the write of the set's
// spec.replicas, the last new seed turning Ready, and the last shoot of the step bound. It
// writes reaction.csv and logs p50 and p90 per stage; it fails when a step misses a stage,
// never on a time.
func BenchmarkReaction(b *testing.B) {
	klog.SetOutput(os.Stderr)
	logf.SetLogger(klog.NewKlogr())
	root, err := testenv.RepositoryRoot()
	require.NoError(b, err)
	cfg, err := reactionConfigFromEnv(root)
	require.NoError(b, err)
	// Canceled last, after the stack has stopped.
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	st := startReactionStack(ctx, b, root, cfg)
	rb := newReactionBench(ctx, b, st, cfg.syncPeriod)
	defer rb.rec.stop()
	rb.prepare()
	b.Logf("autoscaler flags %v, %d up and %d down steps", cfg.autoscalerArgs, cfg.steps, cfg.steps)

	started := time.Now()
	b.ResetTimer()
	var rows []reactionRow
	for round := range b.N {
		for i := 1; i <= cfg.steps; i++ {
			step := round*cfg.steps + i
			up, shoots := rb.up(step)
			rows = append(rows, up, rb.down(step, shoots))
		}
	}
	b.StopTimer()

	path := filepath.Join(cfg.reportDir, "reaction.csv")
	require.NoError(b, writeReactionCSV(path, rows))
	// Printed, not logged: a benchmark's log is cut after ten lines.
	fmt.Printf("BenchmarkReaction: %d steps in %s; %s\n%s", len(rows), time.Since(started).Round(time.Second), path, summarizeReaction(rows))
	reportReactionMetrics(b, rows)
}

// startReactionStack starts the stack with the autoscaler's flags of cfg, and the simulator;
// the benchmark's cleanup stops them, after printing the end of every part's log when it
// failed.
func startReactionStack(ctx context.Context, b *testing.B, root string, cfg reactionConfig) *local.Stack {
	b.Helper()
	st, err := local.Start(logr.NewContext(ctx, klog.NewKlogr().WithName("reaction")), local.Options{
		Binary: binary, ExtraArgs: map[string][]string{"autoscaler": cfg.autoscalerArgs},
	})
	require.NoError(b, err)
	b.Cleanup(func() {
		if b.Failed() {
			dumpLogs(b, st)
		}
		st.Stop()
	})
	require.NoError(b, st.StartSimulator(local.Options{
		Profile: filepath.Join(root, "test", "e2e", "testdata", "simulator.yaml"), Speed: 1, Duration: 24 * time.Hour,
	}))
	return st
}

// reactionBench drives the steps on one stack.
type reactionBench struct {
	ctx  context.Context
	b    *testing.B
	log  logr.Logger
	st   *local.Stack
	c    client.Client
	prom promv1.API
	rec  *reactionRecorder
	// syncPeriod is the autoscaler's timer; phase draws a pause of up to one period before
	// each step, so that steps fall at every point of the timer as demand does. Without it
	// every step would start right after the set's last change, the moment the timer was
	// last reset, and wait for it the longest.
	syncPeriod time.Duration
	phase      *rand.Rand
}

func newReactionBench(ctx context.Context, b *testing.B, st *local.Stack, syncPeriod time.Duration) *reactionBench {
	return &reactionBench{ctx: ctx, b: b, log: klog.NewKlogr().WithName("reaction"), st: st, c: st.Env.Client,
		prom: promQuerier(b, st.Prometheus.URL), rec: newReactionRecorder(ctx, b, st),
		syncPeriod: syncPeriod, phase: rand.New(rand.NewPCG(1, 2))}
}

// demandStep pauses for a random part of the sync period and returns the moment demand
// changes: now.
func (rb *reactionBench) demandStep() time.Time {
	time.Sleep(time.Duration(rb.phase.Int64N(int64(rb.syncPeriod))))
	return time.Now()
}

// prepare makes what the steps need: the tenants' namespace, and a SeedAutoscaler that
// scales in without a stabilization window, so that a down step measures the reaction, not
// the window. It waits until the set's first seed is Ready.
func (rb *reactionBench) prepare() {
	rb.b.Helper()
	require.NoError(rb.b, rb.c.Create(rb.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: reactionTenants}}))
	sa := autoscaler(rb.ctx, rb.b, rb.c)
	patch := client.MergeFrom(sa.DeepCopy())
	if sa.Spec.Behavior == nil {
		sa.Spec.Behavior = &autoscalingv1alpha1.SeedAutoscalerBehavior{}
	}
	if sa.Spec.Behavior.ScaleDown == nil {
		sa.Spec.Behavior.ScaleDown = &autoscalingv1alpha1.ScalingRules{}
	}
	sa.Spec.Behavior.ScaleDown.StabilizationWindowSeconds = ptr.To[int32](0)
	require.NoError(rb.b, rb.c.Patch(rb.ctx, sa, patch))
	rb.await(time.Now().Add(3*time.Minute), func() bool { return readyReplicas(rb.ctx, rb.b, rb.c) >= 1 },
		"the demo set's first replica never became ready")
}

// up creates shoots that need one more seed (odd steps) or two (even steps), and waits
// until every stage of the step is reached. It returns the row and the step's shoots.
func (rb *reactionBench) up(step int) (reactionRow, []string) {
	rb.b.Helper()
	// Nothing pending in the newest sample, or a sample from before the step could pass for
	// its effect.
	rb.awaitSeries(time.Now().Add(time.Minute), "sum("+pendingSeries+")", 0)
	before := specReplicas(rb.ctx, rb.b, rb.c)
	names := stepShoots(step, shootsForMoreSeeds(1+(step+1)%2))
	t0 := rb.demandStep()
	rb.createShoots(names)
	deadline := t0.Add(stepTimeout)
	row := reactionRow{step: step, direction: "up"}

	var scaled int32
	rb.awaitStage(deadline, step, "up", scaleWritten, func() bool {
		at, replicas, ok := rb.rec.firstReplicasAfter(t0)
		scaled = replicas
		return ok && row.set(scaleWritten, at.Sub(t0))
	}, "spec.replicas of the set never changed from %d", before)
	require.Greater(rb.b, scaled, before, "up step %d: the first write of spec.replicas lowered it", step)
	rb.awaitStage(deadline, step, "up", lastBound, func() bool {
		at, unbound := rb.rec.lastBound(names)
		return unbound == 0 && row.set(lastBound, at.Sub(t0))
	}, "not every one of its %d shoots got a seed", len(names))
	// After the shoots: by then the set asks for every seed the step needs.
	rb.awaitStage(deadline, step, "up", seedReady, func() bool {
		at, n := rb.rec.lastReadyAfter(t0)
		return n >= int(specReplicas(rb.ctx, rb.b, rb.c)-before) && row.set(seedReady, at.Sub(t0))
	}, "the seeds asked for never all turned GardenletReady")
	rb.awaitStage(deadline, step, "up", seriesChange, func() bool {
		at, ok := rb.firstScrape(t0, pendingSeries, func(v float64) bool { return v > 0 })
		return ok && row.set(seriesChange, at.Sub(t0))
	}, "no sample of %s after the step was above 0", pendingSeries)
	rb.log.Info("Step measured", "csv", csvLine(row))
	return row, names
}

// down deletes the shoots of an up step and waits until the set has scaled back in to the
// replicas it had before that step.
func (rb *reactionBench) down(step int, names []string) reactionRow {
	rb.b.Helper()
	// The series must show every shoot of the step first, or a sample from before the
	// deletion could pass for its effect.
	rb.awaitSeries(time.Now().Add(time.Minute), "sum("+usageSeries+")", len(names))
	before := specReplicas(rb.ctx, rb.b, rb.c)
	t0 := rb.demandStep()
	require.NoError(rb.b, rb.c.DeleteAllOf(rb.ctx, &gardencorev1beta1.Shoot{}, client.InNamespace(reactionTenants)))
	deadline := t0.Add(stepTimeout)
	row := reactionRow{step: step, direction: "down"}

	rb.awaitStage(deadline, step, "down", scaleWritten, func() bool {
		at, _, ok := rb.rec.firstReplicasAfter(t0)
		return ok && row.set(scaleWritten, at.Sub(t0))
	}, "spec.replicas of the set never changed from %d", before)
	rb.awaitStage(deadline, step, "down", seriesChange, func() bool {
		at, ok := rb.firstScrape(t0, usageSeries, func(v float64) bool { return v < float64(len(names)) })
		return ok && row.set(seriesChange, at.Sub(t0))
	}, "no sample of %s after the step was below %d", usageSeries, len(names))
	rb.await(deadline, func() bool { return rb.scaledIn() }, "down step %d: the set never scaled back in to 1 seed with its shoots gone", step)
	rb.log.Info("Step measured", "csv", csvLine(row))
	return row
}

// scaledIn reports whether the set stands where every up step starts: one replica, its seed
// Ready, no tenant shoot left.
func (rb *reactionBench) scaledIn() bool {
	set := getSet(rb.ctx, rb.b, rb.c)
	var shoots gardencorev1beta1.ShootList
	require.NoError(rb.b, rb.c.List(rb.ctx, &shoots, client.InNamespace(reactionTenants)))
	return set.Spec.Replicas != nil && *set.Spec.Replicas == 1 && set.Status.Replicas == 1 &&
		set.Status.ReadyReplicas == 1 && len(shoots.Items) == 0
}

// shootsForMoreSeeds is how many shoots make the demo set (one seed of 50 allocatable, at
// 70%) ask for more seeds: 60 for one, 90 for two. Either fills the first seed and leaves
// shoots pending, and none of the seeds it asks for falls below the target's tolerance once
// the shoots are placed (60 of 100, 90 of 150), so the set stays grown until the down step.
func shootsForMoreSeeds(more int) int { return allocatable + 10 + (more-1)*30 }

func stepShoots(step, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("r%02d-%03d", step, i)
	}
	return names
}

// createShoots creates the shoots side by side, so that the demand arrives as one step.
func (rb *reactionBench) createShoots(names []string) {
	rb.b.Helper()
	errs := make(chan error, len(names))
	sem := make(chan struct{}, 8)
	for _, name := range names {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			errs <- rb.c.Create(rb.ctx, builders.MakeShoot(reactionTenants, name).Obj())
		}()
	}
	for range names {
		require.NoError(rb.b, <-errs)
	}
}

// firstScrape queries every sample of series since t0 and returns the time of the first
// scrape whose sum over the series satisfies ok.
func (rb *reactionBench) firstScrape(t0 time.Time, series string, ok func(float64) bool) (time.Time, bool) {
	window := int(time.Since(t0).Seconds()) + 10
	res, _, _, err := rb.prom.Query(rb.ctx, fmt.Sprintf("%s[%ds]", series, window), time.Now())
	require.NoError(rb.b, err)
	matrix, isMatrix := res.(model.Matrix)
	require.True(rb.b, isMatrix, "%s: a range query answered %s", series, res.Type())
	return firstScrapeWhere(matrix, t0, ok)
}

// awaitSeries waits until the newest value of query, a sum, is want.
func (rb *reactionBench) awaitSeries(deadline time.Time, query string, want int) {
	rb.b.Helper()
	rb.await(deadline, func() bool {
		res, _, _, err := rb.prom.Query(rb.ctx, query, time.Now())
		if err != nil {
			return false
		}
		v, ok := res.(model.Vector)
		return ok && len(v) == 1 && float64(v[0].Value) == float64(want)
	}, "%s never reached %d in Prometheus", query, want)
}

// awaitStage waits for one stage of a step; a step that misses it fails the benchmark with
// a message that names the stage.
func (rb *reactionBench) awaitStage(deadline time.Time, step int, direction string, s stage, reached func() bool, format string, args ...any) {
	rb.b.Helper()
	rb.await(deadline, reached, "%s step %d never reached stage %s: %s", direction, step, s, fmt.Sprintf(format, args...))
}

// await polls cond every quarter second until it holds, failing when deadline passes or a
// part of the stack exits.
func (rb *reactionBench) await(deadline time.Time, cond func() bool, format string, args ...any) {
	rb.b.Helper()
	for !cond() {
		for name, tail := range rb.st.Exited() {
			require.Fail(rb.b, "a part exited", "%s:\n%s", name, tail)
		}
		if time.Now().After(deadline) {
			require.Fail(rb.b, fmt.Sprintf(format, args...))
		}
		time.Sleep(250 * time.Millisecond)
	}
}
