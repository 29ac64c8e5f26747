package app

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

func (s *blockingSink) names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.written...)
}

func testEvent(name string) *eventsv1.Event {
	return &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden-a", Name: name},
		Reason:     "SchedulingSuccessful",
		Regarding:  corev1.ObjectReference{Kind: "Shoot", Namespace: "garden-a", Name: name},
	}
}

// testSink is a boundedSink over a blockingSink, with metrics, whose writers run until the
// test ends or cancel is called. Its writes use the same context, as the broadcaster's do.
type testSink struct {
	*boundedSink
	inner   *blockingSink
	metrics *EventMetrics
	ctx     context.Context
	cancel  context.CancelFunc
}

func newTestSink(t *testing.T, writers, maxWaiting int, yield func() bool) *testSink {
	t.Helper()
	metrics, err := NewEventMetrics(prometheus.NewPedanticRegistry(), "test")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	inner := &blockingSink{release: make(chan struct{})}
	opts := EventRecorderOptions{Metrics: metrics, Yield: yield}
	return &testSink{newBoundedSink(ctx, inner, writers, maxWaiting, opts), inner, metrics, ctx, cancel}
}

// create writes an event in the background, as the broadcaster's goroutine per event does.
func (s *testSink) create(t *testing.T, wg *sync.WaitGroup, names ...string) {
	for _, name := range names {
		wg.Go(func() {
			_, err := s.Create(s.ctx, testEvent(name))
			assert.NoError(t, err)
		})
	}
}

func (s *testSink) result(result string) float64 {
	return testutil.ToFloat64(s.metrics.results.WithLabelValues(result))
}

func TestBoundedSinkWritesAtMostWritersAtOnce(t *testing.T) {
	s := newTestSink(t, 2, 100, nil)
	var wg sync.WaitGroup
	s.create(t, &wg, "a", "b", "c", "d", "e", "f", "g", "h")
	require.Eventually(t, func() bool {
		return testutil.ToFloat64(s.metrics.pending) == 8 && s.inner.running.Load() == 2
	}, 10*time.Second, time.Millisecond)
	close(s.inner.release)
	wg.Wait()

	assert.Equal(t, int32(2), s.inner.mostAtOnce.Load())
	assert.ElementsMatch(t, []string{"a", "b", "c", "d", "e", "f", "g", "h"}, s.inner.names())
	assert.Equal(t, 0.0, testutil.ToFloat64(s.metrics.pending))
	assert.Equal(t, 8.0, s.result(eventWritten))
	assert.Equal(t, 0.0, s.result(eventDropped))
}

func TestBoundedSinkWritesOneAtATimeWhileItYields(t *testing.T) {
	var binding atomic.Bool
	binding.Store(true)
	s := newTestSink(t, 3, 100, binding.Load)

	// While the controller binds, one event at a time.
	var wg sync.WaitGroup
	s.create(t, &wg, "a", "b", "c", "d", "e")
	require.Eventually(t, func() bool { return s.inner.running.Load() == 1 }, 10*time.Second, time.Millisecond)
	assert.Never(t, func() bool { return s.inner.running.Load() > 1 }, 50*time.Millisecond, time.Millisecond)

	// Once it stops, the other writers take the queue up.
	binding.Store(false)
	require.Eventually(t, func() bool { return s.inner.running.Load() == 3 }, 10*time.Second, time.Millisecond)
	close(s.inner.release)
	wg.Wait()
	assert.Equal(t, int32(3), s.inner.mostAtOnce.Load())
	assert.ElementsMatch(t, []string{"a", "b", "c", "d", "e"}, s.inner.names())
}

func TestBoundedSinkDropsWhatWouldWaitBeyondTheBound(t *testing.T) {
	s := newTestSink(t, 1, 2, nil)
	// One write holds the only writer, then two wait.
	var wg sync.WaitGroup
	s.create(t, &wg, "held")
	require.Eventually(t, func() bool { return s.inner.running.Load() == 1 }, 10*time.Second, time.Millisecond)
	s.create(t, &wg, "waiting-1", "waiting-2")
	require.Eventually(t, func() bool { return testutil.ToFloat64(s.metrics.pending) == 3 }, 10*time.Second, time.Millisecond)

	// The next one would be the third waiting: dropped at once, reported as written so that
	// the broadcaster does not retry it.
	written, err := s.Create(s.ctx, testEvent("dropped"))
	assert.NoError(t, err)
	assert.Nil(t, written)
	assert.Equal(t, 1.0, s.result(eventDropped))

	close(s.inner.release)
	wg.Wait()
	assert.ElementsMatch(t, []string{"held", "waiting-1", "waiting-2"}, s.inner.names())
	assert.Equal(t, 3.0, s.result(eventWritten))
}

// The broadcaster updates a series while it holds the lock every recording takes: that
// write must not wait behind the new events.
func TestBoundedSinkWritesSeriesUpdatesBeforeNewEvents(t *testing.T) {
	s := newTestSink(t, 1, 10, nil)
	var wg sync.WaitGroup
	s.create(t, &wg, "held")
	require.Eventually(t, func() bool { return s.inner.running.Load() == 1 }, 10*time.Second, time.Millisecond)
	for i, name := range []string{"new-1", "new-2"} {
		s.create(t, &wg, name) // one at a time: they wait in order
		require.Eventually(t, func() bool { return s.pendingNow() == float64(i+2) }, 10*time.Second, time.Millisecond)
	}
	wg.Go(func() {
		_, err := s.Patch(s.ctx, testEvent("series"), []byte("{}"))
		assert.NoError(t, err)
	})
	wg.Go(func() {
		_, err := s.Update(s.ctx, testEvent("update"))
		assert.NoError(t, err)
	})
	require.Eventually(t, func() bool { return s.pendingNow() == 5 }, 10*time.Second, time.Millisecond)

	close(s.inner.release)
	wg.Wait()
	names := s.inner.names()
	require.Len(t, names, 5)
	assert.Equal(t, "held", names[0], "the write under way finishes")
	assert.ElementsMatch(t, []string{"series", "update"}, names[1:3], "then the series updates")
	assert.Equal(t, []string{"new-1", "new-2"}, names[3:], "then the new events, in order")
}

func (s *testSink) pendingNow() float64 { return testutil.ToFloat64(s.metrics.pending) }

func TestBoundedSinkDropsWhatWaitsWhenTheRecorderStops(t *testing.T) {
	s := newTestSink(t, 1, 10, nil)
	s.inner.err = context.Canceled // what a write cut short by the recorder stopping returns
	var wg sync.WaitGroup
	s.create(t, &wg, "held")
	require.Eventually(t, func() bool { return s.inner.running.Load() == 1 }, 10*time.Second, time.Millisecond)
	s.create(t, &wg, "waiting")
	require.Eventually(t, func() bool { return testutil.ToFloat64(s.metrics.pending) == 2 }, 10*time.Second, time.Millisecond)

	s.cancel()
	close(s.inner.release)
	wg.Wait() // neither returns an error for the broadcaster to log and retry
	assert.Empty(t, s.inner.names())
	assert.Equal(t, 2.0, s.result(eventDropped))
	assert.Equal(t, 0.0, s.result(eventFailed))
	assert.Equal(t, 0.0, testutil.ToFloat64(s.metrics.pending))
}

func TestBoundedSinkCountsAndReturnsFailures(t *testing.T) {
	s := newTestSink(t, 2, 10, nil)
	s.inner.err = errors.New("connection refused")
	close(s.inner.release)

	_, err := s.Update(s.ctx, testEvent("a"))
	assert.ErrorIs(t, err, s.inner.err, "the broadcaster retries what did not reach the kube-apiserver")
	assert.Equal(t, 1.0, s.result(eventFailed))
	assert.Equal(t, 0.0, s.result(eventWritten))
	assert.Equal(t, 0.0, testutil.ToFloat64(s.metrics.pending))
}

func TestBoundedSinkWithoutMetrics(t *testing.T) {
	inner := &blockingSink{release: make(chan struct{})}
	close(inner.release)
	sink := newBoundedSink(t.Context(), inner, 1, 1, EventRecorderOptions{})
	written, err := sink.Create(t.Context(), testEvent("a"))
	assert.NoError(t, err)
	assert.Equal(t, "a", written.Name)
	assert.Equal(t, []string{"a"}, inner.names())
}
