//go:build integration

package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// benchRounds numbers the rounds of BenchmarkBindShoots in this process, which the testing
// package may call more than once: every round binds shoots of its own.
var benchRounds int

const (
	benchProvider  = "bench"
	benchScheduler = "bench-scheduler"
	benchWorkers   = 8
)

// benchSeeds creates n ready seeds of the bench provider once per process and returns
// their names.
func benchSeeds(b *testing.B, n int, allocatable int64) []string {
	b.Helper()
	ctx := context.Background()
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("bench-%04d", i)
	}
	err := env.Client.Get(ctx, client.ObjectKey{Name: names[0]}, &gardencorev1beta1.Seed{})
	if err == nil {
		return names // created by an earlier round of this benchmark
	}
	require.True(b, apierrors.IsNotFound(err), "%v", err)
	createNamespace(b, "bench-ns")
	createCloudProfile(b, benchProvider, nil, "b1")
	inParallel(b, names, func(name string) error {
		return putSeed(ctx, builders.MakeSeed(name).Provider(benchProvider, "b1").Allocatable(allocatable).Ready().Obj())
	})
	return names
}

// unthrottled is the apiserver's address without a client-side rate limit, for the raw
// patches and the scheduler alike: at 500 QPS the client's token bucket, not the apiserver,
// capped the raw patch rate of a fast round at 500-625 patches/s.
func unthrottled() *rest.Config {
	cfg := rest.CopyConfig(env.Config)
	cfg.QPS = -1 // no rate limiter
	return cfg
}

// mergePatchAll merge-patches every shoot once with 8 concurrent clients: the
// same kind of write as a bind (one merge patch guarded by the resourceVersion), on the
// same objects, without binding them.
func mergePatchAll(b *testing.B, c client.Client, shoots []*gardencorev1beta1.Shoot, value string) {
	b.Helper()
	inParallel(b, shoots, func(shoot *gardencorev1beta1.Shoot) error {
		patch := fmt.Sprintf(`{"metadata":{"resourceVersion":%q,"annotations":{"bench.seedscaler.io/touched":%q}}}`, shoot.ResourceVersion, value)
		return c.Patch(context.Background(), shoot, client.RawPatch(types.MergePatchType, []byte(patch)))
	})
}

// BenchmarkBindShoots binds 5,000 shoots over 1,000 seeds with the real controller (8
// workers) against envtest's kube-apiserver and etcd, and measures in the same round the
// raw merge-patch rate of that apiserver on the same shoots with as many concurrent
// clients, once before and once after the binds so that a change of the machine's load
// during the round weighs on both. Neither side has a client-side rate limit, so both
// measure the apiserver. It reports binds/s, patches/s and their ratio over all rounds: how
// close the scheduler comes to what the apiserver can take, and the events written while
// the binds ran, which the event client's rate limit (app.DefaultEventQPS) bounds. One
// round takes about two minutes, most of them the events catching up at that rate; run it
// with -benchtime 1x.
func BenchmarkBindShoots(b *testing.B) {
	const seeds, shoots = 1000, 5000
	ctx := context.Background()
	seedNames := benchSeeds(b, seeds, 100)
	raw, err := client.New(unthrottled(), client.Options{Scheme: env.Scheme})
	require.NoError(b, err)
	var bindTime, patchTime time.Duration
	// eventsWhileBinding are the events written by the last bind of each round.
	var eventsWhileBinding float64
	// CPU spent during the binds and during the raw patches before them, by process.
	bindCPU, patchCPU := testenv.CPU{}, testenv.CPU{}
	b.StopTimer()
	for range b.N {
		benchRounds++
		round := benchRounds
		// Counted before this round's shoots exist: a list of every shoot right before the
		// binds would leave its garbage to the apiserver's collector during them.
		before := boundOnBenchSeeds(seedNames, nil)
		objs := make([]client.Object, shoots)
		list := make([]*gardencorev1beta1.Shoot, shoots)
		for i := range objs {
			list[i] = builders.MakeShoot("bench-ns", fmt.Sprintf("r%d-%04d", round, i)).CloudProfile(benchProvider).
				Provider(benchProvider, "b1").SchedulerName(benchScheduler).Obj()
			objs[i] = list[i]
		}
		createInParallel(b, objs)

		// The apiserver sends every write to its watchers. A shoot informer watches during
		// the patches as the scheduler's does during the binds, so both pay for one watch.
		watchCtx, stopWatch := context.WithCancel(ctx)
		watcher, err := cache.New(env.Config, cache.Options{Scheme: env.Scheme})
		require.NoError(b, err)
		_, err = watcher.GetInformer(watchCtx, &gardencorev1beta1.Shoot{})
		require.NoError(b, err)
		watched := make(chan error, 1)
		go func() { watched <- watcher.Start(watchCtx) }()
		require.True(b, watcher.WaitForCacheSync(watchCtx))
		cpuBefore := readCPU(b)
		start := time.Now()
		mergePatchAll(b, raw, list, "before")
		patchedBefore := time.Since(start)
		roundPatchCPU := readCPU(b).Sub(cpuBefore)
		patchCPU = patchCPU.Add(roundPatchCPU)
		stopWatch()
		require.NoError(b, <-watched)

		// The controller starts its workers once the shoot informer has synced; the clock
		// starts then too, so that it measures binding and not the initial list.
		runCtx, cancel := context.WithCancel(ctx)
		s := newBenchScheduler(b, runCtx)
		done := make(chan error, 1)
		go func() { done <- s.manager.Start(runCtx) }()
		require.Eventually(b, func() bool { return s.reconciler.Synced() }, time.Minute, time.Millisecond)
		b.StartTimer()
		profileRound(b, round)
		cpuBefore = readCPU(b)
		start = time.Now()
		require.Eventually(b, func() bool {
			return boundOnBenchSeeds(seedNames, s.reconciler) == before+shoots
		}, 5*time.Minute, 10*time.Millisecond)
		bound := time.Since(start)
		b.StopTimer()
		roundBindCPU := readCPU(b).Sub(cpuBefore)
		bindCPU = bindCPU.Add(roundBindCPU)
		eventsWithBinds := metricValue(b, s.registry, "seedscaler_scheduler_events_total", "result", "written")
		eventsWhileBinding += eventsWithBinds
		// The events go out at their client's rate limit and catch up after the binds. The
		// raw patches below must not share the apiserver with them.
		require.Eventually(b, func() bool {
			return metricValue(b, s.registry, "seedscaler_scheduler_events_total", "result", "written") >= shoots &&
				metricValue(b, s.registry, "seedscaler_scheduler_event_writes_pending", "", "") == 0
		}, 5*time.Minute, 10*time.Millisecond)
		recorded := time.Since(start)
		require.Zero(b, metricValue(b, s.registry, "seedscaler_scheduler_events_total", "result", "dropped"))
		// A bind that failed (a conflict, say) costs a second decision and patch.
		b.Logf("round %d: attempts: %.0f scheduled, %.0f failed", round,
			testutil.ToFloat64(s.reconciler.metrics.attempts.WithLabelValues(resultScheduled)),
			testutil.ToFloat64(s.reconciler.metrics.attempts.WithLabelValues(resultError)))

		// The same patches again on the bound shoots, the scheduler's informer watching.
		for i, shoot := range list {
			list[i] = &gardencorev1beta1.Shoot{}
			require.NoError(b, s.manager.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(shoot), list[i]))
		}
		start = time.Now()
		mergePatchAll(b, raw, list, "after")
		patchedAfter := time.Since(start)
		cancel()
		require.NoError(b, <-done)

		bindTime += bound
		patchTime += patchedBefore + patchedAfter
		b.Logf("round %d: CPU ms per bind: kube-apiserver %.2f, etcd %.2f, scheduler %.2f; per raw patch: %.2f, %.2f, client %.2f", round,
			roundBindCPU.MillisPer("kube-apiserver", shoots), roundBindCPU.MillisPer("etcd", shoots), roundBindCPU.MillisPer(testenv.Self, shoots),
			roundPatchCPU.MillisPer("kube-apiserver", shoots), roundPatchCPU.MillisPer("etcd", shoots), roundPatchCPU.MillisPer(testenv.Self, shoots))
		b.Logf("round %d: %.0f of the events written by the last bind, the last %.1f s after it", round, eventsWithBinds, (recorded - bound).Seconds())
		b.Logf("round %d: %.0f binds/s, %.0f events/s while binding; %.0f patches/s before, %.0f after", round,
			shoots/bound.Seconds(), eventsWithBinds/bound.Seconds(), shoots/patchedBefore.Seconds(), shoots/patchedAfter.Seconds())
	}
	bindRate := float64(b.N*shoots) / bindTime.Seconds()
	patchRate := float64(2*b.N*shoots) / patchTime.Seconds()
	b.ReportMetric(bindRate, "binds/s")
	b.ReportMetric(patchRate, "patches/s")
	b.ReportMetric(bindRate/patchRate, "bind/patch")
	// The events' share of the kube-apiserver while the binds ran: what the event client's
	// rate limit lets through.
	b.ReportMetric(eventsWhileBinding/bindTime.Seconds(), "events/s")
	// What each write costs whom: the apiserver's and etcd's CPU per bind against per raw
	// patch, and this process's (the scheduler's) per bind.
	ops := float64(b.N * shoots)
	b.ReportMetric(serverCPU(bindCPU).Seconds()*1000/ops, "server-cpu-ms/bind")
	b.ReportMetric(serverCPU(patchCPU).Seconds()*1000/ops, "server-cpu-ms/patch")
	b.ReportMetric(bindCPU[testenv.Self].Seconds()*1000/ops, "scheduler-cpu-ms/bind")
}

// serverCPU is the CPU of the kube-apiserver and etcd together.
func serverCPU(c testenv.CPU) time.Duration { return c["kube-apiserver"] + c["etcd"] }

// readCPU reads the CPU time of this process (the scheduler) and of its envtest children.
func readCPU(b *testing.B) testenv.CPU {
	b.Helper()
	c, err := testenv.ReadCPU()
	require.NoError(b, err)
	require.NotZero(b, c["kube-apiserver"], "no kube-apiserver child found in /proc")
	return c
}

// newBenchScheduler is startScheduler without starting: the benchmark starts the clock
// between sync and work.
func newBenchScheduler(b *testing.B, ctx context.Context) *scheduler {
	b.Helper()
	cfg := &config.SchedulerConfiguration{SchedulerName: benchScheduler, Workers: benchWorkers}
	return buildSchedulerFor(b, ctx, unthrottled(), cfg)
}

// boundOnBenchSeeds counts the shoots on the bench seeds as the scheduler's informer sees
// them, or as the apiserver lists them before a scheduler runs.
func boundOnBenchSeeds(seedNames []string, r *Reconciler) int {
	if r != nil {
		n := 0
		for _, seed := range seedNames {
			n += r.Ledger.Index().Count(seed)
		}
		return n
	}
	list := &gardencorev1beta1.ShootList{}
	if err := env.Client.List(context.Background(), list, client.InNamespace("bench-ns")); err != nil {
		panic(err)
	}
	n := 0
	for _, shoot := range list.Items {
		if shoot.Spec.SeedName != nil {
			n++
		}
	}
	return n
}
