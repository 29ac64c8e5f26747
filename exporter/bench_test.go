package exporter

import (
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/require"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/builders"
)

// bigLandscape loads seeds and shoots through the informers' transforms and handlers, as
// the exporter holds them: 10 sets of seeds, every shoot bound round-robin, one in fifty
// unscheduled. It returns the registry a scrape gathers from and the heap the objects took.
func bigLandscape(tb testing.TB, seeds, shoots int) (*prometheus.Registry, uint64) {
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
	after := heapAlloc()
	return reg, after - before
}

func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// scrape does what a Prometheus scrape of /metrics does: gather and encode as text.
func scrape(tb testing.TB, reg prometheus.Gatherer) {
	mfs, err := reg.Gather()
	require.NoError(tb, err)
	enc := expfmt.NewEncoder(io.Discard, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		require.NoError(tb, enc.Encode(mf))
	}
}

// BenchmarkScrape is issue 6's budget: a scrape of 1,000 seeds and 100,000 shoots. The
// heap-MiB metric is what the transformed objects and indexes hold (the bulk of the
// process's memory; see docs/performance.md for the process RSS).
func BenchmarkScrape(b *testing.B) {
	for _, size := range []struct{ seeds, shoots int }{{100, 10_000}, {1_000, 100_000}} {
		b.Run(fmt.Sprintf("seeds=%d/shoots=%d", size.seeds, size.shoots), func(b *testing.B) {
			reg, held := bigLandscape(b, size.seeds, size.shoots)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				scrape(b, reg)
			}
			b.ReportMetric(float64(held)/(1<<20), "heap-MiB")
		})
	}
}

// Scrapes must not leave memory behind: the heap after many scrapes is the heap after the
// first, within a small allowance for the runtime's own bookkeeping.
func TestScrapesDoNotGrowTheHeap(t *testing.T) {
	reg, _ := bigLandscape(t, 100, 10_000)
	scrape(t, reg)
	first := heapAlloc()
	for range 50 {
		scrape(t, reg)
	}
	after := heapAlloc()
	require.LessOrEqual(t, after, first+(1<<20),
		"50 more scrapes grew the heap from %d to %d bytes", first, after)
}
