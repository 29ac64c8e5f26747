package adapter

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

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
	startLandscape(b, config)
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
	slices.Sort(latencies)
	quantile := func(q float64) float64 {
		return float64(latencies[int(q*float64(len(latencies)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(quantile(0.5), "p50-ms")
	b.ReportMetric(quantile(0.99), "p99-ms")
}
