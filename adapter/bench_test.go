//go:build integration

package adapter

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	promapi "github.com/prometheus/client_golang/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/process"
	"github.com/seedscaler/seedscaler/test/framework/promrunner"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// BenchmarkListSeedUsageThroughTheAggregator measures what the autoscaler waits for: a list
// of garden_seed_usage over 1,000 seeds picked by a label selector, through the
// kube-apiserver's aggregation layer, the adapter and a real Prometheus on loopback, back
// to back (p50-ms, p99-ms) and then as many at 20 a second (paced-p50-ms, paced-p99-ms);
// SEEDSCALER_BENCH_SEEDS sets another number of seeds. The value cache is off, so every
// request queries Prometheus. The exporter and the adapter run as the chart runs them, each
// its own seedscaler process: this process is the autoscaler's client alone, and its
// garbage is not collected on the adapter's time. It collects garbage at the target of
// app.MetricsPathGCPercent, as the adapter and the autoscaler do unless GOGC is set.
// Besides latencies it reports the CPU time every process of the landscape spent per list
// (from /proc), and logs what they spend in a second with no list running. Run it for 1,000
// lists: p99 is then the tenth slowest list, where of 300 it was the third.
//
//	KUBEBUILDER_ASSETS=$(hack/tools/build.sh --dir envtest) \
//	SEEDSCALER_PROMETHEUS=$(hack/tools/build.sh --dir prometheus)/prometheus \
//	go test ./adapter/ -run '^$' -bench ListSeedUsage -benchtime 1000x
func BenchmarkListSeedUsageThroughTheAggregator(b *testing.B) {
	seeds := 1000
	if v := os.Getenv("SEEDSCALER_BENCH_SEEDS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(b, err, "SEEDSCALER_BENCH_SEEDS")
		seeds = n
	}
	ctx := context.Background()
	for i := range seeds {
		createSeed(ctx, b, builders.MakeSeed(fmt.Sprintf("bench-%04d", i)).Provider("aws", "eu-west-1").Labels("bench", "list").Allocatable(250).Ready().Obj())
	}
	config := strings.NewReplacer("interval: 30s", "interval: 5s", "cacheTTL: 5s", "cacheTTL: 0s").Replace(string(defaultRulesYAML))
	l := startLandscapeProcesses(b, config)
	custom, _, _ := metricsClients(b, env.Config)
	// This process is the autoscaler's client, and collects garbage as the autoscaler does.
	runtimeGC := app.GCPercent()
	app.SetGCPercent(app.MetricsPathGCPercent)
	b.Cleanup(func() { debug.SetGCPercent(runtimeGC) })
	selector := labels.SelectorFromSet(labels.Set{"bench": "list"})
	shoots := labels.SelectorFromSet(labels.Set{"resource": "shoots"})
	require.EventuallyWithT(b, func(c *assert.CollectT) {
		list, err := custom.RootScopedMetrics().GetForObjects(seedKind, selector, "garden_seed_usage", shoots)
		if assert.NoError(c, err) {
			assert.Len(c, list.Items, seeds)
		}
	}, 2*time.Minute, 500*time.Millisecond)

	// What the lists share the machine with: the scrapes, the watches, idle servers.
	const idle = 5
	idleCPU, err := testenv.SpentCPU(func() { time.Sleep(idle * time.Second) })
	require.NoError(b, err)
	parts, total := cpuByPart(b, idleCPU, idle)
	b.Logf("CPU ms per second with no list running, by process: %s; total %.2f", parts, total)

	frontProxy, err := env.FrontProxyCA.NewClientCert("front-proxy-client")
	require.NoError(b, err)
	direct := l.httpClient(b, frontProxy)
	profiled := profileServers(b, l, direct)
	// listUsage is one list as the autoscaler makes it; an answer without every seed fails it.
	listUsage := func() error {
		list, err := custom.RootScopedMetrics().GetForObjects(seedKind, selector, "garden_seed_usage", shoots)
		if err == nil && len(list.Items) != seeds {
			err = fmt.Errorf("%d items, want %d", len(list.Items), seeds)
		}
		return err
	}
	var latencies []time.Duration
	listCPU, err := testenv.SpentCPU(func() {
		for b.Loop() {
			start := time.Now()
			err := listUsage()
			latencies = append(latencies, time.Since(start))
			if err != nil {
				b.Fatalf("listing garden_seed_usage: %v", err)
			}
		}
	})
	require.NoError(b, err)
	b.ReportMetric(quantile(latencies, 0.5), "p50-ms")
	b.ReportMetric(quantile(latencies, 0.99), "p99-ms")
	reportCPU(b, listCPU, len(latencies))
	<-profiled

	// The same lists at a pace: back to back, the lists keep most of both cores busy, so
	// each waits behind the garbage collection and the flushes of the one before. The
	// autoscaler lists once per metric every 15 s per SeedAutoscaler; 20 lists a second
	// stands for a landscape of 150 of them.
	b.StopTimer()
	paced := pacedLists(b, len(latencies), 50*time.Millisecond, listUsage)
	b.ReportMetric(quantile(paced, 0.5), "paced-p50-ms")
	b.ReportMetric(quantile(paced, 0.99), "paced-p99-ms")

	// Where the time goes: the same list straight from the adapter, in protobuf as the
	// autoscaler reads it (no kube-apiserver, no decoding), and the adapter's two queries
	// straight from Prometheus.
	const samples = 100
	path := l.adapterURL + "/apis/custom.metrics.k8s.io/v1beta2/seeds.core.gardener.cloud/*/garden_seed_usage?labelSelector=bench%3Dlist&metricLabelSelector=resource%3Dshoots"
	var adapterLatencies []time.Duration
	for range samples {
		start := time.Now()
		body := l.getAs(b, direct, path, runtime.ContentTypeProtobuf, "admin", "system:masters")
		adapterLatencies = append(adapterLatencies, time.Since(start))
		require.Contains(b, body, fmt.Sprintf("bench-%04d", seeds-1))
	}
	cfg, err := DefaultConfig()
	require.NoError(b, err)
	q, err := buildValueQuery(&cfg.Rules[0].query, "garden_seed_usage", []matcher{{"resource", "=", "shoots"}}, []string{"name"}, nil, false)
	require.NoError(b, err)
	promClient, err := promapi.NewClient(promapi.Config{Address: l.prom.URL})
	require.NoError(b, err)
	// Over the transport the adapter uses (no gzip), so that these are the adapter's queries.
	transport, _, err := newPrometheusTransport("", false)
	require.NoError(b, err)
	querier := newInstantQuerier(promClient, &http.Client{Transport: transport})
	var promLatencies []time.Duration
	for range samples {
		start := time.Now()
		vec, err := querier.values(ctx, q, start)
		promLatencies = append(promLatencies, time.Since(start))
		require.NoError(b, err)
		require.GreaterOrEqual(b, len(vec.values), seeds)
		require.GreaterOrEqual(b, len(vec.timestamps), seeds)
	}
	b.ReportMetric(quantile(adapterLatencies, 0.5), "adapter-p50-ms")
	b.ReportMetric(quantile(adapterLatencies, 0.99), "adapter-p99-ms")
	b.ReportMetric(quantile(promLatencies, 0.5), "prometheus-p50-ms")
	b.ReportMetric(quantile(promLatencies, 0.99), "prometheus-p99-ms")
}

// pacedLists runs n lists, one every period, and returns how long each took. A list that
// takes longer than period delays the next rather than overlapping it, as the autoscaler's
// workers do not overlap their own lists either.
func pacedLists(b *testing.B, n int, period time.Duration, list func() error) []time.Duration {
	b.Helper()
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	latencies := make([]time.Duration, 0, n)
	for range n {
		<-ticker.C
		start := time.Now()
		err := list()
		latencies = append(latencies, time.Since(start))
		if err != nil {
			b.Fatalf("listing garden_seed_usage at a pace: %v", err)
		}
	}
	return latencies
}

// profileServers writes CPU profiles of the adapter, Prometheus and the kube-apiserver for
// the first 3 seconds of the timed lists, as adapter.pprof, prometheus.pprof and
// kube-apiserver.pprof, and what the adapter allocated in those seconds, as
// adapter-allocs.pprof, when SEEDSCALER_BENCH_PROFILE names a directory: where a list's CPU
// goes in each, and what the adapter's garbage collector is given, for `go tool pprof`.
// The returned channel is closed when all are written, at once without the variable.
func profileServers(b *testing.B, l *landscape, direct *http.Client) <-chan struct{} {
	done := make(chan struct{})
	dir := os.Getenv("SEEDSCALER_BENCH_PROFILE")
	if dir == "" {
		close(done)
		return done
	}
	const cpu, allocs = "/debug/pprof/profile?seconds=3", "/debug/pprof/allocs?seconds=3"
	prom, err := http.NewRequest(http.MethodGet, l.prom.URL+cpu, nil)
	require.NoError(b, err)
	save := func(c *http.Client, req *http.Request, file string) {
		if err := testenv.SaveProfile(c, req, filepath.Join(dir, file)); err != nil {
			b.Errorf("profiling for %s: %v", file, err)
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { save(direct, asUser(b, l.adapterURL+cpu, "admin", "system:masters"), "adapter.pprof") })
	wg.Go(func() {
		save(direct, asUser(b, l.adapterURL+allocs, "admin", "system:masters"), "adapter-allocs.pprof")
	})
	wg.Go(func() { save(http.DefaultClient, prom, "prometheus.pprof") })
	wg.Go(func() {
		kube, err := rest.HTTPClientFor(env.Config)
		if err != nil {
			b.Errorf("a client for the kube-apiserver's profile: %v", err)
			return
		}
		req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(env.Config.Host, "/")+cpu, nil)
		if err != nil {
			b.Errorf("the kube-apiserver's profile: %v", err)
			return
		}
		save(kube, req, "kube-apiserver.pprof")
	})
	go func() {
		wg.Wait()
		close(done)
	}()
	return done
}

// landscapeParts are the processes a list passes through or shares the machine with, as
// testenv.ReadCPU names them, this process being the autoscaler's client.
var landscapeParts = []string{testenv.Self, "kube-apiserver", "etcd", "seedscaler adapter", "prometheus", "seedscaler exporter"}

// reportCPU reports the CPU time of the timed lists, per list: the adapter's and every
// part's together, and logs each part's. Two cores give 2 ms of CPU per millisecond.
func reportCPU(b *testing.B, spent testenv.CPU, lists int) {
	b.Helper()
	parts, total := cpuByPart(b, spent, lists)
	b.Logf("CPU ms per list, by process: %s; total %.2f", parts, total)
	b.ReportMetric(spent.MillisPer("seedscaler adapter", lists), "adapter-cpu-ms/list")
	b.ReportMetric(total, "cpu-ms/list")
}

// cpuByPart says the CPU time of each of landscapeParts in milliseconds per one of n, and
// their total.
func cpuByPart(b *testing.B, spent testenv.CPU, n int) (string, float64) {
	b.Helper()
	var total float64
	parts := make([]string, 0, len(landscapeParts))
	for _, part := range landscapeParts {
		require.Contains(b, spent, part, "no %s process found in /proc", part)
		ms := spent.MillisPer(part, n)
		total += ms
		name := part
		if part == testenv.Self {
			name = "client"
		}
		parts = append(parts, fmt.Sprintf("%s %.2f", name, ms))
	}
	return strings.Join(parts, ", "), total
}

// quantile of latencies, in milliseconds.
func quantile(latencies []time.Duration, q float64) float64 {
	sorted := slices.Clone(latencies)
	slices.Sort(sorted)
	return float64(sorted[int(q*float64(len(sorted)-1))]) / float64(time.Millisecond)
}

// startLandscapeProcesses is startLandscape with the exporter and the adapter each run as a
// seedscaler process with the flags the chart gives them; their logs are in the test's
// temporary directory, and the end of each is printed if the benchmark fails.
func startLandscapeProcesses(b *testing.B, configYAML string) *landscape {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	dir := b.TempDir()
	bin, err := testenv.BuildSeedscaler(dir, testenv.Shipped)
	require.NoError(b, err)
	admin, err := env.KubeconfigBytes()
	require.NoError(b, err)
	require.NoError(b, os.WriteFile(filepath.Join(dir, "admin.kubeconfig"), admin, 0o600))

	exporterMetrics, err := promrunner.FreeLoopbackAddress()
	require.NoError(b, err)
	exporterHealth, err := promrunner.FreeLoopbackAddress()
	require.NoError(b, err)
	startPart(b, bin, dir, "exporter", "--kubeconfig="+filepath.Join(dir, "admin.kubeconfig"),
		"--metrics-bind-address="+exporterMetrics, "--health-probe-bind-address="+exporterHealth)
	require.Eventually(b, func() bool {
		resp, err := http.Get("http://" + exporterHealth + "/readyz")
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, time.Minute, 100*time.Millisecond, "the exporter did not get ready")

	promBin, err := testenv.Tool("prometheus")
	require.NoError(b, err)
	prom, err := promrunner.Start(ctx, promrunner.Options{Binary: promBin, ScrapeInterval: time.Second,
		Targets: []promrunner.Target{{Job: "exporter", Addresses: []string{exporterMetrics}}}})
	require.NoError(b, err)
	b.Cleanup(func() { _ = prom.Stop() })

	l := &landscape{prom: prom}
	secure, err := promrunner.FreeLoopbackAddress()
	require.NoError(b, err)
	_, port, err := net.SplitHostPort(secure)
	require.NoError(b, err)
	startPart(b, bin, dir, "adapter", append(l.chartFlags(ctx, b, dir, configYAML),
		"--secure-port="+port, "--bind-address=127.0.0.1", "--metrics-bind-address=0", "--health-probe-bind-address=0")...)
	l.adapterURL = "https://" + secure
	portNumber, err := strconv.Atoi(port)
	require.NoError(b, err)
	registerAPIServices(ctx, b, int32(portNumber), l.ca.CertPEM())
	return l
}

// startPart runs `bin part args...` until the benchmark ends, its output in dir/<part>.log,
// the end of which the benchmark logs if it fails.
func startPart(b *testing.B, bin, dir, part string, args ...string) {
	b.Helper()
	p := process.New(part, bin, dir, append([]string{part}, args...)...)
	require.NoError(b, p.Start())
	b.Cleanup(func() {
		if b.Failed() {
			b.Logf("the end of the %s's log:\n%s", part, p.Tail(4000))
		}
		p.Stop(10 * time.Second)
	})
}
