//go:build integration

// Package e2e runs the whole stack as `seedscaler-dev local` does (etcd, kube-apiserver with
// aggregation, Prometheus, the adapter as an APIService, every controller as a child
// process of the real binary, the simulator playing gardenlets) and checks the promises
// that only hold for the parts together: demand grows the set through the real metrics
// path, no seed is ever overfilled, a Prometheus outage never scales in, and a crashed
// controller neither reuses an ordinal nor deletes a seed that hosts shoots.
package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/dev/local"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/dashboards"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

const (
	setNamespace = "garden"
	setName      = "demo"
	tenants      = "garden-e2e"
	// What the demo set's seeds offer: capacity 60 less 10 reserved.
	allocatable = 50
)

// binary is the seedscaler binary the parts run as, built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "seedscaler-e2e-")
	if err != nil {
		return 0, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if binary, err = testenv.BuildSeedscaler(dir, testenv.Development); err != nil {
		return 0, fmt.Errorf("the end-to-end suite: %w", err)
	}
	return m.Run(), nil
}

// watcher follows the landscape from an informer cache and checks the invariants on
// every event: no seed above its allocatable, no seed deleted while a shoot uses it, no
// ManagedSeed name (ordinal) created again after it was deleted.
type watcher struct {
	reader client.Reader
	// usage counts the shoots on each seed from the watcher's shoot informer, as the
	// scheduler counts them.
	usage *usage.Index

	mu         sync.Mutex
	violations []string
	deleted    map[string]bool // ManagedSeeds deleted so far
	replicas   []int32         // the set's spec.replicas, every change
}

func newWatcher(ctx context.Context, t *testing.T, st *local.Stack) *watcher {
	t.Helper()
	c, err := cache.New(st.Env.Config, cache.Options{Scheme: st.Env.Scheme})
	require.NoError(t, err)
	w := &watcher{reader: c, usage: usage.NewIndex(), deleted: map[string]bool{}}

	seeds, err := c.GetInformer(ctx, &gardencorev1beta1.Seed{})
	require.NoError(t, err)
	_, err = seeds.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if seed, ok := obj.(*gardencorev1beta1.Seed); ok {
				if n := w.usage.Count(seed.Name); n > 0 {
					w.violate("seed %s was deleted while %d shoots used it", seed.Name, n)
				}
			}
		},
	})
	require.NoError(t, err)

	shoots, err := c.GetInformer(ctx, &gardencorev1beta1.Shoot{})
	require.NoError(t, err)
	// The index first, then the seeds the shoot occupies: only they can have filled up.
	count := w.usage.Handler()
	check := func(obj any) {
		if shoot, ok := obj.(*gardencorev1beta1.Shoot); ok {
			w.checkCapacity(ctx, usage.SeedNames(shoot))
		}
	}
	_, err = shoots.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { count.OnAdd(obj, false); check(obj) },
		UpdateFunc: func(old, obj any) { count.OnUpdate(old, obj); check(obj) },
		DeleteFunc: func(obj any) { count.OnDelete(obj) },
	})
	require.NoError(t, err)

	managedSeeds, err := c.GetInformer(ctx, &seedmanagementv1alpha1.ManagedSeed{})
	require.NoError(t, err)
	_, err = managedSeeds.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if ms, ok := obj.(*seedmanagementv1alpha1.ManagedSeed); ok && w.wasDeleted(ms.Name) {
				w.violate("ManagedSeed %s was created again after it was deleted: an ordinal was reused", ms.Name)
			}
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if ms, ok := obj.(*seedmanagementv1alpha1.ManagedSeed); ok {
				w.mu.Lock()
				w.deleted[ms.Name] = true
				w.mu.Unlock()
			}
		},
	})
	require.NoError(t, err)

	sets, err := c.GetInformer(ctx, &seedmanagementv1alpha1.ManagedSeedSet{})
	require.NoError(t, err)
	_, err = sets.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { w.recordReplicas(obj) }, UpdateFunc: func(_, obj any) { w.recordReplicas(obj) },
	})
	require.NoError(t, err)

	go func() { _ = c.Start(ctx) }()
	require.True(t, c.WaitForCacheSync(ctx), "the watcher's cache did not sync")
	return w
}

func (w *watcher) violate(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.violations = append(w.violations, fmt.Sprintf(format, args...))
}

func (w *watcher) wasDeleted(name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.deleted[name]
}

func (w *watcher) recordReplicas(obj any) {
	set, ok := obj.(*seedmanagementv1alpha1.ManagedSeedSet)
	if !ok || set.Namespace != setNamespace || set.Name != setName || set.Spec.Replicas == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := len(w.replicas); n == 0 || w.replicas[n-1] != *set.Spec.Replicas {
		w.replicas = append(w.replicas, *set.Spec.Replicas)
	}
}

// replicaHistory returns the set's spec.replicas values, one per change, from index from.
func (w *watcher) replicaHistory(from int) []int32 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if from > len(w.replicas) {
		return nil
	}
	return append([]int32(nil), w.replicas[from:]...)
}

// checkCapacity records every one of the seeds that hosts more shoots than its allocatable.
func (w *watcher) checkCapacity(ctx context.Context, seeds []string) {
	for _, name := range seeds {
		var seed gardencorev1beta1.Seed
		if err := w.reader.Get(ctx, client.ObjectKey{Name: name}, &seed); err != nil {
			continue
		}
		q, ok := seed.Status.Allocatable[gardencorev1beta1.ResourceShoots]
		if !ok {
			continue
		}
		if n := w.usage.Count(name); int64(n) > q.Value() {
			w.violate("seed %s hosts %d shoots, above its allocatable %d", name, n, q.Value())
		}
	}
}

func (w *watcher) Violations() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.violations...)
}

// startSuiteStack starts the demo landscape's stack with the suite's simulator (gardenlets and
// shoot lifecycles; the test plays the tenants), stops it when the test ends, and prints the
// end of every part's log first if the test failed.
func startSuiteStack(ctx context.Context, t *testing.T, name string) *local.Stack {
	t.Helper()
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	st, err := local.Start(logr.NewContext(ctx, klog.NewKlogr().WithName(name)), local.Options{Binary: binary})
	require.NoError(t, err)
	t.Cleanup(st.Stop)
	t.Logf("stack: kubeconfig %s, Prometheus %s, logs %s", st.Kubeconfig, st.Prometheus.URL, filepath.Join(st.WorkDir, "logs"))
	t.Cleanup(func() {
		if t.Failed() {
			dumpLogs(t, st)
		}
	})
	require.NoError(t, st.StartSimulator(local.Options{
		Profile: filepath.Join(root, "test", "e2e", "testdata", "simulator.yaml"), Speed: 1, Duration: time.Hour,
	}))
	return st
}

// waiter returns waitFor, which polls cond every second in the test's goroutine until it
// holds, failing with msg after timeout, and at once when a part exits.
func waiter(t *testing.T, st *local.Stack) func(cond func() bool, timeout time.Duration, msg string) {
	return func(cond func() bool, timeout time.Duration, msg string) {
		t.Helper()
		deadline := time.Now().Add(timeout)
		for !cond() {
			for name, tail := range st.Exited() {
				require.Fail(t, "a part exited", "%s:\n%s", name, tail)
			}
			require.True(t, time.Now().Before(deadline), msg)
			time.Sleep(time.Second)
		}
	}
}

// TestLandscapeScalesWithDemand plays one story on one stack, in order: demand arrives,
// the set grows (a set-controller crash in the middle), Prometheus dies while demand
// falls, the scheduler restarts with nothing pending, Prometheus comes back, and the set
// shrinks by its empty seeds.
func TestLandscapeScalesWithDemand(t *testing.T) {
	klog.SetOutput(os.Stderr)
	logf.SetLogger(klog.NewKlogr())
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	st := startSuiteStack(ctx, t, "e2e")
	c := st.Env.Client
	w := newWatcher(ctx, t, st)
	prom := promQuerier(t, st.Prometheus.URL)
	waitFor := waiter(t, st)

	// The demo set starts with one replica; the simulator brings its shoot up and the
	// seed controller registers the seed.
	waitFor(func() bool { return readyReplicas(ctx, t, c) >= 1 }, 3*time.Minute,
		"the demo set's first replica never became ready")

	// Demand: 150 shoots need ceil(150 / (50 × 70%)) = 5 seeds.
	require.NoError(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenants}}))
	for i := range 150 {
		require.NoError(t, c.Create(ctx, builders.MakeShoot(tenants, fmt.Sprintf("tenant-%03d", i)).Obj()))
	}
	waitFor(func() bool { return specReplicas(ctx, t, c) > 1 }, 2*time.Minute,
		"the autoscaler never scaled the set out on 150 shoots (exporter → Prometheus → adapter → autoscaler)")
	// While the set grows, the garden's control plane crashes: the kube-apiserver (every
	// watch breaks, the adapter's APIService goes with it), then etcd. The SeedAutoscaler
	// decides again once the API is back. Then the set-controller crashes and comes back.
	for _, name := range []string{"kube-apiserver", "etcd"} {
		crashed := time.Now()
		require.NoError(t, st.Env.Crash(ctx, name))
		back := time.Now()
		waitFor(func() bool { return lastDecision(ctx, t, c).After(back) }, time.Minute,
			"the SeedAutoscaler never decided again after "+name+" came back")
		t.Logf("%s crashed: the API was back after %.1f s, the SeedAutoscaler decided again %.0f s later (sync period 5 s)",
			name, back.Sub(crashed).Seconds(), time.Since(back).Seconds())
	}
	require.NoError(t, st.Kill("set-controller"))
	require.NoError(t, st.Restart("set-controller"))

	waitFor(func() bool {
		return unbound(ctx, t, c) == 0 && readyReplicas(ctx, t, c) >= 5
	}, 6*time.Minute, "not every shoot got bound on at least 5 ready seeds")
	// A seed that just joined has no sample yet; once Prometheus scraped it, every seed has.
	waitFor(func() bool {
		return condition(autoscaler(ctx, t, c), autoscalingv1alpha1.SeedAutoscalerScalingActive).Status == metav1.ConditionTrue
	}, time.Minute, "ScalingActive never turned True with every part running")
	require.NotEmpty(t, autoscaler(ctx, t, c).Status.CurrentMetrics, "the autoscaler shows no current metrics")

	// Every dashboard query returns data now that every part has run for a while, but the
	// drained seeds' panel: nothing is drained here (TestDrainEmptiesASeedAndTheSetRemovesIt
	// checks it).
	exprs, err := dashboards.Expressions(filepath.Join(root, "dashboards"))
	require.NoError(t, err)
	require.Contains(t, exprs, drainPanel)
	delete(exprs, drainPanel)
	// The scale-ahead panels show forecasts once they were judged a lead time after they were
	// made and are in use, which a run of minutes with one step of demand need not reach;
	// TestDashboardQueriesTheAutoscalersRealSeries (autoscaler) checks each of them against
	// a real Prometheus scraping the autoscaler. The consolidation panels show budgets and
	// scores, and the demo's SeedAutoscaler does not consolidate (a demo that drains seeds
	// would move its shoots while this test counts them);
	// TestDashboardQueriesTheConsolidationSeries (autoscaler) checks each of them the same way.
	for where := range exprs {
		if strings.Contains(where, " / Autoscaling / Scale ahead: ") || strings.Contains(where, " / Autoscaling / Consolidation: ") {
			delete(exprs, where)
		}
	}
	for where, expr := range exprs {
		res, _, _, err := prom.Query(ctx, dashboards.Resolve(expr, ".*"), time.Now())
		if assert.NoError(t, err, "%s: %s", where, expr) {
			assert.NotEmpty(t, res.String(), "%s returns no data: %s", where, expr)
		}
	}

	// Demand falls to the shoots of one seed while Prometheus is down: the autoscaler must
	// not scale in on missing metrics, and must say why.
	peak := specReplicas(ctx, t, c)
	keep := busiestSeed(ctx, t, c)
	require.NoError(t, st.Prometheus.Kill())
	deleteTenantsExceptOn(ctx, t, c, keep)
	fell := time.Now()
	waitFor(func() bool {
		cond := condition(autoscaler(ctx, t, c), autoscalingv1alpha1.SeedAutoscalerScalingActive)
		return cond.Status == metav1.ConditionFalse
	}, 2*time.Minute, "ScalingActive never turned False while Prometheus was down")
	historyBefore := len(w.replicaHistory(0))
	// The autoscaler evaluates past the scale-down window since demand fell: with its
	// metrics, a scale-in would have happened by then. Prometheus being down, its own
	// metrics endpoint says when it evaluated.
	windowEnd := fell.Add(time.Duration(ptr.Deref(autoscaler(ctx, t, c).Spec.Behavior.ScaleDown.StabilizationWindowSeconds, 0)) * time.Second)
	autoscalerMetrics, err := st.MetricsURL("autoscaler")
	require.NoError(t, err)
	evaluatedBy := -1.0
	waitFor(func() bool {
		if time.Now().Before(windowEnd) {
			return false
		}
		n := evaluations(t, autoscalerMetrics)
		if evaluatedBy < 0 {
			evaluatedBy = n
		}
		return n > evaluatedBy
	}, 3*time.Minute, "the autoscaler never evaluated after its scale-down window")
	assert.Equal(t, peak, specReplicas(ctx, t, c), "the set was scaled while its metrics were missing")
	assert.Empty(t, w.replicaHistory(historyBefore), "spec.replicas changed while Prometheus was down")

	// The scheduler restarts with nothing pending. Its pending-fit series must come back, at
	// 0, for the set: without it the autoscaler holds every scale-in.
	require.NoError(t, st.Kill("scheduler"))
	require.NoError(t, st.Restart("scheduler"))

	// Prometheus is back: the set shrinks after the window, by empty seeds only.
	require.NoError(t, st.Prometheus.Restart(ctx))
	waitFor(func() bool {
		return specReplicas(ctx, t, c) < peak && replicas(ctx, t, c) == specReplicas(ctx, t, c)
	}, 4*time.Minute, "the set never shrank to its spec after demand fell")
	var seed gardencorev1beta1.Seed
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: keep}, &seed), "the seed that kept its shoots must stay")
	assert.Zero(t, unbound(ctx, t, c), "shoots lost their seed during scale-in")

	assert.Empty(t, w.Violations())
	t.Logf("spec.replicas over the run: %v", w.replicaHistory(0))
}

// lastDecision is when the SeedAutoscaler last recommended replicas: the newest of its
// status's recommendations.
func lastDecision(ctx context.Context, t testing.TB, c client.Client) time.Time {
	var newest time.Time
	for _, r := range autoscaler(ctx, t, c).Status.Recommendations {
		if r.Timestamp.After(newest) {
			newest = r.Timestamp.Time
		}
	}
	return newest
}

// evaluations is how many evaluations of SeedAutoscalers the autoscaler at metricsURL has
// finished, successful or not.
func evaluations(t testing.TB, metricsURL string) float64 {
	t.Helper()
	resp, err := http.Get(metricsURL)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	require.NoError(t, err)
	family, ok := families["seedscaler_autoscaler_reconcile_duration_seconds"]
	require.True(t, ok, "the autoscaler serves no seedscaler_autoscaler_reconcile_duration_seconds")
	var n float64
	for _, m := range family.GetMetric() {
		n += float64(m.GetHistogram().GetSampleCount())
	}
	return n
}

func promQuerier(t testing.TB, url string) promv1.API {
	t.Helper()
	cl, err := promapi.NewClient(promapi.Config{Address: url})
	require.NoError(t, err)
	return promv1.NewAPI(cl)
}

func getSet(ctx context.Context, t testing.TB, c client.Client) *seedmanagementv1alpha1.ManagedSeedSet {
	t.Helper()
	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: setNamespace, Name: setName}, set))
	return set
}

func specReplicas(ctx context.Context, t testing.TB, c client.Client) int32 {
	if r := getSet(ctx, t, c).Spec.Replicas; r != nil {
		return *r
	}
	return 1
}

func readyReplicas(ctx context.Context, t testing.TB, c client.Client) int32 {
	return getSet(ctx, t, c).Status.ReadyReplicas
}

func replicas(ctx context.Context, t *testing.T, c client.Client) int32 {
	return getSet(ctx, t, c).Status.Replicas
}

func autoscaler(ctx context.Context, t testing.TB, c client.Client) *autoscalingv1alpha1.SeedAutoscaler {
	t.Helper()
	sa := &autoscalingv1alpha1.SeedAutoscaler{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: setNamespace, Name: setName}, sa))
	return sa
}

func condition(sa *autoscalingv1alpha1.SeedAutoscaler, typ string) metav1.Condition {
	if c := meta.FindStatusCondition(sa.Status.Conditions, typ); c != nil {
		return *c
	}
	return metav1.Condition{Type: typ, Status: metav1.ConditionUnknown, Reason: "NotSet"}
}

func tenantShoots(ctx context.Context, t *testing.T, c client.Client) []gardencorev1beta1.Shoot {
	t.Helper()
	var shoots gardencorev1beta1.ShootList
	require.NoError(t, c.List(ctx, &shoots, client.InNamespace(tenants)))
	return shoots.Items
}

func unbound(ctx context.Context, t *testing.T, c client.Client) int {
	n := 0
	for _, s := range tenantShoots(ctx, t, c) {
		if s.Spec.SeedName == nil {
			n++
		}
	}
	return n
}

// busiestSeed names the seed with the most tenant shoots.
func busiestSeed(ctx context.Context, t *testing.T, c client.Client) string {
	t.Helper()
	count := map[string]int{}
	for _, s := range tenantShoots(ctx, t, c) {
		if s.Spec.SeedName != nil {
			count[*s.Spec.SeedName]++
		}
	}
	names := make([]string, 0, len(count))
	for n := range count {
		names = append(names, n)
	}
	require.NotEmpty(t, names, "no tenant shoot is bound")
	sort.Slice(names, func(i, j int) bool { return count[names[i]] > count[names[j]] })
	require.LessOrEqual(t, count[names[0]], allocatable)
	return names[0]
}

func deleteTenantsExceptOn(ctx context.Context, t *testing.T, c client.Client, seed string) {
	t.Helper()
	for _, s := range tenantShoots(ctx, t, c) {
		if !slices.Contains(usage.SeedNames(&s), seed) {
			require.NoError(t, client.IgnoreNotFound(c.Delete(ctx, &s)))
		}
	}
}

// dumpLogs prints the end of every part's log when the test failed.
func dumpLogs(t testing.TB, st *local.Stack) {
	entries, err := os.ReadDir(filepath.Join(st.WorkDir, "logs"))
	if err != nil {
		return
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(st.WorkDir, "logs", e.Name()))
		if err != nil {
			continue
		}
		lines := strings.Split(string(data), "\n")
		if len(lines) > 40 {
			lines = lines[len(lines)-40:]
		}
		t.Logf("=== end of %s:\n%s", e.Name(), strings.Join(lines, "\n"))
	}
}
