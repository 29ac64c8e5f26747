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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// blockingSink is an EventSink whose writes wait until release is closed, and which
// remembers how many run at once and which events it wrote.
type blockingSink struct {
	release chan struct{}
	err     error
	running atomic.Int32
	mu      sync.Mutex
	written []string
}

func (s *blockingSink) write(event *eventsv1.Event) (*eventsv1.Event, error) {
	s.running.Add(1)
	defer s.running.Add(-1)
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

// testSink is a countingSink with metrics over a blockingSink.
type testSink struct {
	*countingSink
	inner   *blockingSink
	metrics *EventMetrics
}

func newTestSink(t *testing.T, maxWaiting int) *testSink {
	t.Helper()
	metrics, err := NewEventMetrics(prometheus.NewPedanticRegistry(), "test")
	require.NoError(t, err)
	inner := &blockingSink{release: make(chan struct{})}
	return &testSink{newCountingSink(inner, maxWaiting, metrics, logr.Discard()), inner, metrics}
}

func (s *testSink) result(result string) float64 {
	return testutil.ToFloat64(s.metrics.results.WithLabelValues(result))
}

func (s *testSink) pendingNow() float64 { return testutil.ToFloat64(s.metrics.pending) }

// write calls do from a goroutine of its own, as the broadcaster does, and returns what
// it returned once it did.
func write(do func() (*eventsv1.Event, error)) func() (*eventsv1.Event, error) {
	type result struct {
		event *eventsv1.Event
		err   error
	}
	done := make(chan result, 1)
	go func() {
		e, err := do()
		done <- result{e, err}
	}()
	return func() (*eventsv1.Event, error) {
		r := <-done
		return r.event, r.err
	}
}

func TestCountingSinkCountsEveryKindOfWrite(t *testing.T) {
	s := newTestSink(t, 10)
	ctx := t.Context()
	create := write(func() (*eventsv1.Event, error) { return s.Create(ctx, testEvent("a")) })
	update := write(func() (*eventsv1.Event, error) { return s.Update(ctx, testEvent("b")) })
	patch := write(func() (*eventsv1.Event, error) { return s.Patch(ctx, testEvent("c"), []byte("{}")) })
	require.Eventually(t, func() bool { return s.inner.running.Load() == 3 }, 10*time.Second, time.Millisecond)
	assert.Equal(t, 3.0, s.pendingNow(), "waiting for the kube-apiserver")

	close(s.inner.release)
	for _, done := range []func() (*eventsv1.Event, error){create, update, patch} {
		written, err := done()
		require.NoError(t, err)
		assert.NotNil(t, written, "the server's event, which the broadcaster keeps for a series")
	}
	assert.ElementsMatch(t, []string{"a", "b", "c"}, s.inner.names())
	assert.Equal(t, 3.0, s.result(eventWritten))
	assert.Equal(t, 0.0, s.pendingNow())
}

// A failure goes back to the broadcaster, which decides whether to retry: it retries what
// did not reach the kube-apiserver and gives up on what the kube-apiserver refused.
func TestCountingSinkCountsAndReturnsFailures(t *testing.T) {
	for _, failure := range []error{
		errors.New("connection refused"),
		apierrors.NewForbidden(schema.GroupResource{Group: "events.k8s.io", Resource: "events"}, "a", errors.New("no")),
	} {
		t.Run(failure.Error(), func(t *testing.T) {
			s := newTestSink(t, 10)
			s.inner.err = failure
			close(s.inner.release)

			_, err := s.Create(t.Context(), testEvent("a"))
			assert.ErrorIs(t, err, failure)
			assert.Equal(t, 1.0, s.result(eventFailed))
			assert.Equal(t, 0.0, s.result(eventWritten))
			assert.Equal(t, 0.0, s.pendingNow())
		})
	}
}

func TestCountingSinkDropsWhatWouldWaitBeyondTheBound(t *testing.T) {
	s := newTestSink(t, 2)
	ctx := t.Context()
	first := write(func() (*eventsv1.Event, error) { return s.Create(ctx, testEvent("waiting-1")) })
	second := write(func() (*eventsv1.Event, error) { return s.Create(ctx, testEvent("waiting-2")) })
	require.Eventually(t, func() bool { return s.inner.running.Load() == 2 }, 10*time.Second, time.Millisecond)

	// The third would wait beside two: dropped at once, without an error for the
	// broadcaster to retry it with.
	written, err := s.Create(ctx, testEvent("dropped"))
	require.NoError(t, err)
	assert.Nil(t, written)
	assert.Equal(t, 1.0, s.result(eventDropped))
	assert.Equal(t, 2.0, s.pendingNow())

	close(s.inner.release)
	for _, done := range []func() (*eventsv1.Event, error){first, second} {
		_, err := done()
		require.NoError(t, err)
	}
	assert.ElementsMatch(t, []string{"waiting-1", "waiting-2"}, s.inner.names())
	assert.Equal(t, 2.0, s.result(eventWritten))

	// Once they are written, there is room again.
	_, err = s.Create(ctx, testEvent("later"))
	require.NoError(t, err)
	assert.Equal(t, 3.0, s.result(eventWritten))
}

// A write cut short by the recorder stopping is dropped, not an error the broadcaster
// would log and retry.
func TestCountingSinkDropsWritesCutShortByTheRecorderStopping(t *testing.T) {
	s := newTestSink(t, 10)
	ctx, cancel := context.WithCancel(t.Context())
	s.inner.err = context.Canceled // what the client returns once its context ends
	pending := write(func() (*eventsv1.Event, error) { return s.Create(ctx, testEvent("a")) })
	require.Eventually(t, func() bool { return s.inner.running.Load() == 1 }, 10*time.Second, time.Millisecond)

	cancel()
	close(s.inner.release)
	written, err := pending()
	require.NoError(t, err)
	assert.Nil(t, written)
	assert.Equal(t, 1.0, s.result(eventDropped))
	assert.Equal(t, 0.0, s.result(eventFailed))
	assert.Equal(t, 0.0, s.pendingNow())
}

func TestCountingSinkWithoutMetrics(t *testing.T) {
	inner := &blockingSink{release: make(chan struct{})}
	close(inner.release)
	sink := newCountingSink(inner, 1, nil, logr.Discard())
	written, err := sink.Create(t.Context(), testEvent("a"))
	require.NoError(t, err)
	assert.NotNil(t, written)
	assert.Equal(t, []string{"a"}, inner.names())
}

func TestEventConfig(t *testing.T) {
	shared := flowcontrol.NewTokenBucketRateLimiter(5, 10)
	cases := []struct {
		name      string
		cfg       rest.Config
		opts      EventRecorderOptions
		qps       float32
		burst     int
		userAgent string
	}{
		{
			name:      "defaults",
			cfg:       rest.Config{Host: "https://garden", QPS: 500, Burst: 1000},
			qps:       DefaultEventQPS,
			burst:     DefaultEventBurst,
			userAgent: rest.DefaultKubernetesUserAgent() + "/events",
		},
		{
			name:      "options, the part's user agent and a shared limiter",
			cfg:       rest.Config{Host: "https://garden", QPS: 500, Burst: 1000, UserAgent: "seedscaler-scheduler", RateLimiter: shared},
			opts:      EventRecorderOptions{QPS: 20, Burst: 40},
			qps:       20,
			burst:     40,
			userAgent: "seedscaler-scheduler/events",
		},
		{
			name:      "no limit",
			cfg:       rest.Config{Host: "https://garden"},
			opts:      EventRecorderOptions{QPS: -1},
			qps:       -1,
			burst:     DefaultEventBurst,
			userAgent: rest.DefaultKubernetesUserAgent() + "/events",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := rest.CopyConfig(&c.cfg)
			got := EventConfig(&c.cfg, c.opts)

			assert.Equal(t, c.qps, got.QPS)
			assert.Equal(t, c.burst, got.Burst)
			assert.Nil(t, got.RateLimiter, "the event client's limiter is its own")
			assert.Equal(t, c.userAgent, got.UserAgent)
			assert.Equal(t, runtime.ContentTypeProtobuf, got.ContentType)
			assert.Equal(t, c.cfg.Host, got.Host)
			assert.Equal(t, before, &c.cfg, "the part's own config is left as it was")
		})
	}
}
