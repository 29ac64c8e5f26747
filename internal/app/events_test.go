package app

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// blockingSink is an EventSink whose writes wait until release is closed, and which
// remembers how many ran at once and which events it wrote.
type blockingSink struct {
	release    chan struct{}
	err        error
	running    atomic.Int32
	mostAtOnce atomic.Int32
	mu         sync.Mutex
	written    []string
}

func (s *blockingSink) write(event *eventsv1.Event) (*eventsv1.Event, error) {
	n := s.running.Add(1)
	defer s.running.Add(-1)
	for {
		most := s.mostAtOnce.Load()
		if n <= most || s.mostAtOnce.CompareAndSwap(most, n) {
			break
		}
	}
	<-s.release
	if s.err != nil {
		return nil, s.err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.written = append(s.written, event.Name)
	return event, nil
}

func (s *blockingSink) Create(_ context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write(e)
}

func (s *blockingSink) Update(_ context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write(e)
}

func (s *blockingSink) Patch(_ context.Context, e *eventsv1.Event, _ []byte) (*eventsv1.Event, error) {
	return s.write(e)
}

func testEvent(name string) *eventsv1.Event {
	return &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden-a", Name: name},
		Reason:     "SchedulingSuccessful",
		Regarding:  corev1.ObjectReference{Kind: "Shoot", Namespace: "garden-a", Name: name},
	}
}

func newTestSink(t *testing.T, writers, maxWaiting int) (*boundedSink, *blockingSink, *EventMetrics) {
	t.Helper()
	metrics, err := NewEventMetrics(prometheus.NewPedanticRegistry(), "test")
	require.NoError(t, err)
	inner := &blockingSink{release: make(chan struct{})}
	return newBoundedSink(inner, writers, maxWaiting, metrics, logr.Discard()), inner, metrics
}

func TestBoundedSinkWritesAtMostWritersAtOnce(t *testing.T) {
	sink, inner, metrics := newTestSink(t, 2, 100)
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		wg.Go(func() {
			_, err := sink.Create(context.Background(), testEvent(name))
			assert.NoError(t, err)
		})
	}
	require.Eventually(t, func() bool {
		return testutil.ToFloat64(metrics.pending) == 8 && inner.running.Load() == 2
	}, 10*time.Second, time.Millisecond)
	close(inner.release)
	wg.Wait()

	assert.Equal(t, int32(2), inner.mostAtOnce.Load())
	assert.ElementsMatch(t, []string{"a", "b", "c", "d", "e", "f", "g", "h"}, inner.written)
	assert.Equal(t, 0.0, testutil.ToFloat64(metrics.pending))
	assert.Equal(t, 8.0, testutil.ToFloat64(metrics.results.WithLabelValues(eventWritten)))
	assert.Equal(t, 0.0, testutil.ToFloat64(metrics.results.WithLabelValues(eventDropped)))
}

func TestBoundedSinkDropsWhatWouldWaitBeyondTheBound(t *testing.T) {
	sink, inner, metrics := newTestSink(t, 1, 2)
	var wg sync.WaitGroup
	// One write holds the only writer, two wait.
	for _, name := range []string{"held", "waiting-1", "waiting-2"} {
		wg.Go(func() {
			_, err := sink.Patch(context.Background(), testEvent(name), []byte("{}"))
			assert.NoError(t, err)
		})
	}
	require.Eventually(t, func() bool { return testutil.ToFloat64(metrics.pending) == 3 }, 10*time.Second, time.Millisecond)

	// The next one would be the third waiting: dropped at once, reported as written so that
	// the broadcaster does not retry it.
	written, err := sink.Create(context.Background(), testEvent("dropped"))
	assert.NoError(t, err)
	assert.Nil(t, written)
	assert.Equal(t, 1.0, testutil.ToFloat64(metrics.results.WithLabelValues(eventDropped)))

	close(inner.release)
	wg.Wait()
	assert.ElementsMatch(t, []string{"held", "waiting-1", "waiting-2"}, inner.written)
	assert.Equal(t, 3.0, testutil.ToFloat64(metrics.results.WithLabelValues(eventWritten)))
}

func TestBoundedSinkDropsWhatWaitsWhenTheRecorderStops(t *testing.T) {
	sink, inner, metrics := newTestSink(t, 1, 10)
	held := make(chan struct{})
	go func() {
		defer close(held)
		_, _ = sink.Update(context.Background(), testEvent("held"))
	}()
	require.Eventually(t, func() bool { return inner.running.Load() == 1 }, 10*time.Second, time.Millisecond)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	written, err := sink.Create(ctx, testEvent("late"))
	assert.NoError(t, err)
	assert.Nil(t, written)
	assert.Equal(t, 1.0, testutil.ToFloat64(metrics.results.WithLabelValues(eventDropped)))
	assert.Equal(t, 1.0, testutil.ToFloat64(metrics.pending), "only the held write is pending")

	close(inner.release)
	<-held
	assert.Equal(t, []string{"held"}, inner.written)
}

func TestBoundedSinkCountsAndReturnsFailures(t *testing.T) {
	sink, inner, metrics := newTestSink(t, 2, 10)
	inner.err = errors.New("connection refused")
	close(inner.release)

	_, err := sink.Create(context.Background(), testEvent("a"))
	assert.ErrorIs(t, err, inner.err, "the broadcaster retries what did not reach the kube-apiserver")
	assert.Equal(t, 1.0, testutil.ToFloat64(metrics.results.WithLabelValues(eventFailed)))
	assert.Equal(t, 0.0, testutil.ToFloat64(metrics.results.WithLabelValues(eventWritten)))
	assert.Equal(t, 0.0, testutil.ToFloat64(metrics.pending))
}

func TestBoundedSinkWithoutMetrics(t *testing.T) {
	inner := &blockingSink{release: make(chan struct{})}
	close(inner.release)
	sink := newBoundedSink(inner, 1, 0, nil, logr.Discard())
	// No room to wait at all: every write is dropped, and nothing panics without metrics.
	written, err := sink.Create(context.Background(), testEvent("a"))
	assert.NoError(t, err)
	assert.Nil(t, written)
	assert.Empty(t, inner.written)
}

func TestBoundedSinkDropsAWriteCutShortByTheRecorderStopping(t *testing.T) {
	sink, inner, metrics := newTestSink(t, 1, 10)
	inner.err = context.Canceled
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := sink.Create(ctx, testEvent("in-flight"))
		done <- err
	}()
	require.Eventually(t, func() bool { return inner.running.Load() == 1 }, 10*time.Second, time.Millisecond)
	cancel()
	close(inner.release)

	assert.NoError(t, <-done, "not an error for the broadcaster to log and retry")
	assert.Equal(t, 1.0, testutil.ToFloat64(metrics.results.WithLabelValues(eventDropped)))
	assert.Equal(t, 0.0, testutil.ToFloat64(metrics.results.WithLabelValues(eventFailed)))
}
