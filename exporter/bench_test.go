package exporter

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// bigLandscape loads seeds and shoots through the informers' transforms, stores and
// handlers, as the exporter holds them: 10 sets of seeds, every shoot bound round-robin, one in fifty
// unscheduled. It returns the exporter's /metrics handler over a registry holding the
// collector, and the heap the objects took.
func bigLandscape(tb testing.TB, seeds, shoots int) (http.Handler, uint64) {
	before := heapAlloc()
	f := newFixture(tb)
	regions := []string{"europe-west1", "us-central1", "asia-east1"}
	for i := range seeds {
		f.addSeed(builders.MakeSeed(fmt.Sprintf("seed-%04d", i)).Provider("gcp", regions[i%len(regions)]).
			Allocatable(250).Ready().
			Labels(seedmanagementv1alpha1.LabelManagedSeedSet, fmt.Sprintf("set-%d", i%10),
				seedmanagementv1alpha1.LabelManagedSeedSetNamespace, "garden").Obj(), nil)
	}
	for i := range shoots {
		b := builders.MakeShoot(fmt.Sprintf("garden-project-%d", i%500), fmt.Sprintf("shoot-%06d", i)).
			Provider("gcp", regions[i%len(regions)])
		if i%50 != 0 {
			b = b.SeedName(fmt.Sprintf("seed-%04d", i%seeds))
		}
		f.addShoot(b.Obj())
	}
	c := NewCollector(f.src, logr.Discard())
	reg := prometheus.NewRegistry() // as controller-runtime's metrics registry
	require.NoError(tb, reg.Register(c))
	h := c.Handler(reg)
	after := heapAlloc()
	runtime.KeepAlive(f.shoots) // held by the informer in the exporter
	return h, after - before
}

// peakRSS is this process's peak resident set size (VmHWM): an upper bound of what the
// exporter needs for the same objects, since this process also built them as typed and
// unstructured objects first.
func peakRSS(tb testing.TB) float64 {
	data, err := os.ReadFile("/proc/self/status")
	require.NoError(tb, err)
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			require.NoError(tb, err)
			return kb * 1024
		}
	}
	tb.Fatal("no VmHWM in /proc/self/status")
	return 0
}

func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// scrape does what Prometheus does: GET /metrics, reading the whole body.
func scrape(tb testing.TB, h http.Handler) {
	rec := &discardWriter{header: http.Header{}}
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(tb, 0, rec.status, "the handler reported an error")
	require.NotZero(tb, rec.n)
}

// discardWriter is a ResponseWriter that counts the body and keeps nothing.
type discardWriter struct {
	header http.Header
	status int
	n      int
}

func (d *discardWriter) Header() http.Header { return d.header }
func (d *discardWriter) Write(p []byte) (int, error) {
	d.n += len(p)
	return len(p), nil
}
func (d *discardWriter) WriteHeader(code int) {
	if code != http.StatusOK {
		d.status = code
	}
}

// BenchmarkScrape measures the exporter's budget (docs/performance.md): a scrape of /metrics
// over 1,000 seeds and 100,000 shoots, through the handler the exporter serves. The heap-MiB
// metric is what the transformed objects and indexes hold (the bulk of the process's memory).
func BenchmarkScrape(b *testing.B) {
	for _, size := range []struct{ seeds, shoots int }{{100, 10_000}, {1_000, 100_000}} {
		b.Run(fmt.Sprintf("seeds=%d/shoots=%d", size.seeds, size.shoots), func(b *testing.B) {
			h, held := bigLandscape(b, size.seeds, size.shoots)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				scrape(b, h)
			}
			b.ReportMetric(float64(held)/(1<<20), "heap-MiB")
			b.ReportMetric(peakRSS(b)/(1<<20), "peak-RSS-MiB")
		})
	}
}

// Scrapes must not leave memory behind: the heap after many scrapes is the heap after the
// first, within a small allowance for the runtime's own bookkeeping.
func TestScrapesDoNotGrowTheHeap(t *testing.T) {
	h, _ := bigLandscape(t, 100, 10_000)
	scrape(t, h)
	first := heapAlloc()
	for range 50 {
		scrape(t, h)
	}
	after := heapAlloc()
	require.LessOrEqual(t, after, first+(1<<20),
		"50 more scrapes grew the heap from %d to %d bytes", first, after)
}
