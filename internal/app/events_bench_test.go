package app

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
)

// BenchmarkWaitingEvents records events through client-go's broadcaster and the recorder's
// counting sink while the kube-apiserver does not answer, as when a burst of binds outruns
// the event client's rate limit, and reports what each waiting event holds: heap and stack
// bytes, and goroutines.
func BenchmarkWaitingEvents(b *testing.B) {
	const n = MaxWaitingEvents
	idle := runtime.NumGoroutine()
	for range b.N {
		b.StopTimer()
		metrics, err := NewEventMetrics(prometheus.NewPedanticRegistry(), "bench")
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		inner := &blockingSink{release: make(chan struct{})}
		broadcaster := events.NewBroadcaster(newCountingSink(inner, MaxWaitingEvents, metrics, logr.Discard()))
		if err := broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
			b.Fatal(err)
		}
		recorder := broadcaster.NewRecorder(scheme.Scheme, "bench")
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		goroutines := runtime.NumGoroutine()
		b.StartTimer()

		// In batches the broadcaster's queue holds, as binds record them: it drops events
		// recorded faster than it hands them on.
		for i := range n {
			shoot := &corev1.ObjectReference{Kind: "Shoot", APIVersion: "core.gardener.cloud/v1beta1",
				Namespace: "garden-a", Name: fmt.Sprintf("shoot-%05d", i), UID: "0"}
			recorder.Eventf(shoot, nil, corev1.EventTypeNormal, "Scheduled", "Scheduling", "Scheduled to seed %s", "seed-1")
			if (i+1)%500 == 0 {
				waitFor(b, func() bool { return testutil.ToFloat64(metrics.pending) >= float64(i+1) })
			}
		}

		b.StopTimer()
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapInuse+after.StackInuse-before.HeapInuse-before.StackInuse)/n, "B/event")
		b.ReportMetric(float64(runtime.NumGoroutine()-goroutines)/n, "goroutines/event")
		close(inner.release)
		cancel()
		broadcaster.Shutdown()
		// The next iteration measures from a process without this one's goroutines.
		waitFor(b, func() bool { return runtime.NumGoroutine() <= idle })
	}
}

// waitFor polls cond in the benchmark's own goroutine: require.Eventually runs it in one of
// its own, which the goroutine count it waits for would see.
func waitFor(b *testing.B, cond func() bool) {
	b.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			b.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}
