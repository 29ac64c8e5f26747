package adapter

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	promapi "github.com/prometheus/client_golang/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/seedscaler/seedscaler/internal/builders"
)

// BenchmarkListSeedUsageThroughTheAggregator measures what the autoscaler waits for: a list
// of garden_seed_usage over 1,000 seeds picked by a label selector, through the
// kube-apiserver's aggregation layer, the adapter and a real Prometheus on loopback. The
// value cache is off, so every request queries Prometheus.
//
//	KUBEBUILDER_ASSETS=$(hack/tools/build.sh --dir envtest) \
//	SEEDSCALER_PROMETHEUS=$(hack/tools/build.sh --dir prometheus)/prometheus \
//	go test ./adapter/ -run '^$' -bench ListSeedUsage -benchtime 300x
func BenchmarkListSeedUsageThroughTheAggregator(b *testing.B) {
	const seeds = 1000
	ctx := context.Background()
	for i := range seeds {
		createSeed(ctx, b, builders.MakeSeed(fmt.Sprintf("bench-%04d", i)).Provider("aws", "eu-west-1").Labels("bench", "list").Allocatable(250).Ready().Obj())
	}
	config := strings.NewReplacer("interval: 30s", "interval: 5s", "cacheTTL: 5s", "cacheTTL: 0s").Replace(string(defaultRulesYAML))
	l := startLandscape(b, config)
	custom, _, _ := metricsClients(b, env.Config)
	selector := labels.SelectorFromSet(labels.Set{"bench": "list"})
	shoots := labels.SelectorFromSet(labels.Set{"resource": "shoots"})
	require.EventuallyWithT(b, func(c *assert.CollectT) {
		list, err := custom.RootScopedMetrics().GetForObjects(seedKind, selector, "garden_seed_usage", shoots)
		if assert.NoError(c, err) {
			assert.Len(c, list.Items, seeds)
		}
	}, 2*time.Minute, 500*time.Millisecond)

	var latencies []time.Duration
	for b.Loop() {
		start := time.Now()
		list, err := custom.RootScopedMetrics().GetForObjects(seedKind, selector, "garden_seed_usage", shoots)
		latencies = append(latencies, time.Since(start))
		if err != nil {
			b.Fatalf("listing garden_seed_usage: %v", err)
		}
		if len(list.Items) != seeds {
			b.Fatalf("listing garden_seed_usage: %d items, want %d", len(list.Items), seeds)
		}
	}
	b.ReportMetric(quantile(latencies, 0.5), "p50-ms")
	b.ReportMetric(quantile(latencies, 0.99), "p99-ms")

	// Where the time goes: the same list straight from the adapter, in protobuf as the
	// autoscaler reads it (no kube-apiserver, no decoding), and the adapter's two queries
	// straight from Prometheus.
	b.StopTimer()
	const samples = 100
	frontProxy, err := env.FrontProxyCA.NewClientCert("front-proxy-client")
	require.NoError(b, err)
	direct := l.httpClient(b, frontProxy)
	path := l.adapterURL + "/apis/custom.metrics.k8s.io/v1beta2/seeds.core.gardener.cloud/*/garden_seed_usage?labelSelector=bench%3Dlist&metricLabelSelector=resource%3Dshoots"
	var adapterLatencies []time.Duration
	for range samples {
		start := time.Now()
		body := l.getAs(b, direct, path, runtime.ContentTypeProtobuf, "admin", "system:masters")
		adapterLatencies = append(adapterLatencies, time.Since(start))
		require.Contains(b, body, "bench-0999")
	}
	cfg, err := DefaultConfig()
	require.NoError(b, err)
	q, err := buildValueQuery(&cfg.Rules[0].query, "garden_seed_usage", []matcher{{"resource", "=", "shoots"}}, []string{"name"})
	require.NoError(b, err)
	promClient, err := promapi.NewClient(promapi.Config{Address: l.prom.URL})
	require.NoError(b, err)
	querier := &instantQuerier{client: promClient}
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
	b.ReportMetric(quantile(promLatencies, 0.5), "prometheus-p50-ms")
}

// quantile of latencies, in milliseconds.
func quantile(latencies []time.Duration, q float64) float64 {
	sorted := slices.Clone(latencies)
	slices.Sort(sorted)
	return float64(sorted[int(q*float64(len(sorted)-1))]) / float64(time.Millisecond)
}
