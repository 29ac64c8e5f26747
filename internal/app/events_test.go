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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
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

// create records new events as the broadcaster does; Create returns at once, without
// waiting for the write.
func (s *testSink) create(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		written, err := s.Create(s.ctx, testEvent(name))
		require.NoError(t, err)
		require.Nil(t, written, "a queued event is reported as written")
	}
}

func (s *testSink) result(result string) float64 {
	return testutil.ToFloat64(s.metrics.results.WithLabelValues(result))
}

func (s *testSink) pendingNow() float64 { return testutil.ToFloat64(s.metrics.pending) }

// drained waits until no event waits for a writer or is being written.
func (s *testSink) drained(t *testing.T) {
	t.Helper()
	require.Eventually(t, func() bool { return s.pendingNow() == 0 }, 10*time.Second, time.Millisecond)
}

// Create returns while the kube-apiserver does not answer: the broadcaster's goroutine per
// event ends instead of waiting, with the event, for its write.
func TestBoundedSinkCreateDoesNotWaitForTheWrite(t *testing.T) {
	s := newTestSink(t, 1, 100, nil)
	created := make(chan struct{})
	go func() {
		defer close(created)
		for _, name := range []string{"a", "b", "c"} {
			_, _ = s.Create(s.ctx, testEvent(name)) // the writer holds "a"
		}
	}()
	select {
	case <-created:
	case <-time.After(10 * time.Second):
		t.Fatal("Create waits for the write")
	}
	require.Eventually(t, func() bool { return s.pendingNow() == 3 && s.inner.running.Load() == 1 }, 10*time.Second, time.Millisecond)
	close(s.inner.release)
	s.drained(t)
	assert.Equal(t, []string{"a", "b", "c"}, s.inner.names(), "in the order recorded")
	assert.Equal(t, 3.0, s.result(eventWritten))
}

func TestBoundedSinkWritesAtMostWritersAtOnce(t *testing.T) {
	s := newTestSink(t, 2, 100, nil)
	s.create(t, "a", "b", "c", "d", "e", "f", "g", "h")
	require.Eventually(t, func() bool {
		return s.pendingNow() == 8 && s.inner.running.Load() == 2
	}, 10*time.Second, time.Millisecond)
	close(s.inner.release)
	s.drained(t)

	assert.Equal(t, int32(2), s.inner.mostAtOnce.Load())
	assert.ElementsMatch(t, []string{"a", "b", "c", "d", "e", "f", "g", "h"}, s.inner.names())
	assert.Equal(t, 8.0, s.result(eventWritten))
	assert.Equal(t, 0.0, s.result(eventDropped))
}

func TestBoundedSinkWritesOneAtATimeWhileItYields(t *testing.T) {
	var binding atomic.Bool
	binding.Store(true)
	s := newTestSink(t, 3, 100, binding.Load)

	// While the controller binds, one event at a time.
	s.create(t, "a", "b", "c", "d", "e")
	require.Eventually(t, func() bool { return s.inner.running.Load() == 1 }, 10*time.Second, time.Millisecond)
	assert.Never(t, func() bool { return s.inner.running.Load() > 1 }, 50*time.Millisecond, time.Millisecond)

	// Once it stops, the other writers take the queue up.
	binding.Store(false)
	require.Eventually(t, func() bool { return s.inner.running.Load() == 3 }, 10*time.Second, time.Millisecond)
	close(s.inner.release)
	s.drained(t)
	assert.Equal(t, int32(3), s.inner.mostAtOnce.Load())
	assert.ElementsMatch(t, []string{"a", "b", "c", "d", "e"}, s.inner.names())
}

func TestBoundedSinkDropsWhatWouldWaitBeyondTheBound(t *testing.T) {
	s := newTestSink(t, 1, 2, nil)
	// One write holds the only writer, then two wait.
	s.create(t, "held")
	require.Eventually(t, func() bool { return s.inner.running.Load() == 1 }, 10*time.Second, time.Millisecond)
	s.create(t, "waiting-1", "waiting-2")
	require.Equal(t, 3.0, s.pendingNow())

	// The next one would be the third waiting: dropped at once, reported as written so that
	// the broadcaster does not retry it.
	s.create(t, "dropped")
	assert.Equal(t, 1.0, s.result(eventDropped))
	assert.Equal(t, 3.0, s.pendingNow())

	close(s.inner.release)
	s.drained(t)
	assert.ElementsMatch(t, []string{"held", "waiting-1", "waiting-2"}, s.inner.names())
	assert.Equal(t, 3.0, s.result(eventWritten))
}

// The broadcaster updates a series while it holds the lock every recording takes: that
// write must not wait behind the new events.
func TestBoundedSinkWritesSeriesUpdatesBeforeNewEvents(t *testing.T) {
	s := newTestSink(t, 1, 10, nil)
	s.create(t, "held")
	require.Eventually(t, func() bool { return s.inner.running.Load() == 1 }, 10*time.Second, time.Millisecond)
	s.create(t, "new-1", "new-2")
	var wg sync.WaitGroup
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
	s.drained(t)
	names := s.inner.names()
	require.Len(t, names, 5)
	assert.Equal(t, "held", names[0], "the write under way finishes")
	assert.ElementsMatch(t, []string{"series", "update"}, names[1:3], "then the series updates")
	assert.Equal(t, []string{"new-1", "new-2"}, names[3:], "then the new events, in order")
}

func TestBoundedSinkDropsWhatWaitsWhenTheRecorderStops(t *testing.T) {
	s := newTestSink(t, 1, 10, nil)
	s.inner.err = context.Canceled // what a write cut short by the recorder stopping returns
	s.create(t, "held")
	require.Eventually(t, func() bool { return s.inner.running.Load() == 1 }, 10*time.Second, time.Millisecond)
	s.create(t, "waiting")
	var wg sync.WaitGroup
	wg.Go(func() {
		_, err := s.Update(s.ctx, testEvent("series"))
		assert.NoError(t, err, "no error for the broadcaster to log and retry")
	})
	require.Eventually(t, func() bool { return s.pendingNow() == 3 }, 10*time.Second, time.Millisecond)

	s.cancel()
	close(s.inner.release)
	wg.Wait()
	s.drained(t)
	assert.Empty(t, s.inner.names())
	assert.Equal(t, 3.0, s.result(eventDropped))
	assert.Equal(t, 0.0, s.result(eventFailed))
}

func TestBoundedSinkCountsAndReturnsFailures(t *testing.T) {
	s := newTestSink(t, 2, 10, nil)
	s.inner.err = errors.New("connection refused")
	close(s.inner.release)

	_, err := s.Update(s.ctx, testEvent("a"))
	assert.ErrorIs(t, err, s.inner.err, "the broadcaster retries what did not reach the kube-apiserver")
	assert.Equal(t, 1.0, s.result(eventFailed))
	assert.Equal(t, 0.0, s.result(eventWritten))
	assert.Equal(t, 0.0, s.pendingNow())
}

// A new event whose write did not reach the kube-apiserver is tried again, as the
// broadcaster would; one the kube-apiserver refused is not.
func TestBoundedSinkRetriesNewEventsOnlyWhenTheyDidNotArrive(t *testing.T) {
	cases := []struct {
		name     string
		err      error
		attempts float64
	}{
		{"unreachable", errors.New("connection refused"), newEventAttempts},
		{"refused", apierrors.NewForbidden(schema.GroupResource{Group: "events.k8s.io", Resource: "events"}, "a", errors.New("no")), 1},
		{"malformed", &rest.RequestConstructionError{Err: errors.New("bad")}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTestSink(t, 1, 10, nil)
			s.inner.err = c.err
			close(s.inner.release)
			s.create(t, "a")
			require.Eventually(t, func() bool { return s.pendingNow() == 0 }, 3*newEventAttempts*newEventRetryPause, 10*time.Millisecond)
			assert.Equal(t, c.attempts, s.result(eventFailed))
			assert.Equal(t, 0.0, s.result(eventWritten))
		})
	}
}

func TestBoundedSinkWithoutMetrics(t *testing.T) {
	inner := &blockingSink{release: make(chan struct{})}
	close(inner.release)
	sink := newBoundedSink(t.Context(), inner, 1, 1, EventRecorderOptions{})
	written, err := sink.Create(t.Context(), testEvent("a"))
	assert.NoError(t, err)
	assert.Nil(t, written)
	require.Eventually(t, func() bool { return len(inner.names()) == 1 }, 10*time.Second, time.Millisecond)
	assert.Equal(t, []string{"a"}, inner.names())
}
