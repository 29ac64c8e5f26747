package app

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	eventsv1 "k8s.io/api/events/v1"
	eventsv1client "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

const (
	// EventWriters is how many of a recorder's events are written at once. client-go's
	// broadcaster writes each event from a goroutine of its own, as soon as it is recorded;
	// when the scheduler binds a burst of shoots, its events then took as many of the
	// kube-apiserver's requests as the binds did, and slowed the binds shoots wait for by a
	// third (docs/performance.md). Two writers keep events a fraction of the load during a
	// burst; they catch up after it.
	EventWriters = 2
	// MaxWaitingEvents is how many events may wait for a writer. Beyond it an event is
	// dropped and counted, as client-go drops them when its queue is full, so that a
	// kube-apiserver too slow for the events cannot make the recorder's memory grow without
	// bound.
	MaxWaitingEvents = 10000
)

// Event write results, the result label of <prefix>_events_total.
const (
	eventWritten = "written"
	eventFailed  = "failed"
	eventDropped = "dropped"
)

// EventMetrics are a recorder's metrics: how many events wait for a writer or are being
// written, and how many were written, failed or dropped.
type EventMetrics struct {
	pending prometheus.Gauge
	results *prometheus.CounterVec
}

// NewEventMetrics registers with reg the metrics of an event recorder, named
// <prefix>_event_writes_pending and <prefix>_events_total.
func NewEventMetrics(reg prometheus.Registerer, prefix string) (*EventMetrics, error) {
	m := &EventMetrics{
		pending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: prefix + "_event_writes_pending",
			Help: "Events recorded and not yet written: waiting for a writer or being written.",
		}),
		results: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: prefix + "_events_total",
			Help: "Events by what became of them: written, failed (the kube-apiserver refused them) or dropped (too many waiting, or the process stopping).",
		}, []string{"result"}),
	}
	for _, r := range []string{eventWritten, eventFailed, eventDropped} {
		m.results.WithLabelValues(r)
	}
	for _, c := range []prometheus.Collector{m.pending, m.results} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("registering the event metrics %s_*: %w", prefix, err)
		}
	}
	return m, nil
}

// NewEventRecorder returns a recorder of events.k8s.io Events for the controller name
// that writes them in protobuf, EventWriters at a time. The manager's own recorder writes
// JSON; the scheduler writes an event with every bind, and on the same kube-apiserver events
// in protobuf were created about a quarter faster than in JSON (docs/performance.md).
// Recording starts now, so no event is lost before the manager starts, and stops when the
// manager stops. metrics may be nil.
func NewEventRecorder(mgr manager.Manager, name string, metrics *EventMetrics) (events.EventRecorder, error) {
	client, err := eventsv1client.NewForConfigAndClient(Protobuf(mgr.GetConfig()), mgr.GetHTTPClient())
	if err != nil {
		return nil, fmt.Errorf("creating the events client of %s: %w", name, err)
	}
	log := mgr.GetLogger().WithName("events")
	sink := newBoundedSink(&events.EventSinkImpl{Interface: client}, EventWriters, MaxWaitingEvents, metrics, log)
	broadcaster := events.NewBroadcaster(sink)
	ctx, cancel := context.WithCancel(context.Background())
	if err := broadcaster.StartRecordingToSinkWithContext(ctx); err != nil {
		cancel()
		return nil, fmt.Errorf("starting to record the events of %s: %w", name, err)
	}
	stopLogging, err := broadcaster.StartLogging(log.V(1))
	if err != nil {
		cancel()
		broadcaster.Shutdown()
		return nil, fmt.Errorf("starting to log the events of %s: %w", name, err)
	}
	shutdown := func() {
		stopLogging()
		cancel()
		broadcaster.Shutdown()
	}
	if err := mgr.Add(runEverywhere(func(ctx context.Context) error {
		<-ctx.Done()
		shutdown()
		return nil
	})); err != nil {
		shutdown()
		return nil, err
	}
	return broadcaster.NewRecorder(mgr.GetScheme(), name), nil
}

// boundedSink writes events through an EventSink at most writers at a time, and drops
// those that would wait behind maxWaiting others. The broadcaster calls it from a
// goroutine per event, so waiting here holds up nothing but that event. A dropped event is
// reported to the broadcaster as written: an error would make it retry, up to twelve times.
type boundedSink struct {
	sink       events.EventSink
	slots      chan struct{}
	waiting    atomic.Int64
	maxWaiting int64
	metrics    *EventMetrics
	log        logr.Logger
}

func newBoundedSink(sink events.EventSink, writers, maxWaiting int, metrics *EventMetrics, log logr.Logger) *boundedSink {
	return &boundedSink{sink: sink, slots: make(chan struct{}, writers), maxWaiting: int64(maxWaiting), metrics: metrics, log: log}
}

func (s *boundedSink) Create(ctx context.Context, event *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write(ctx, event, func() (*eventsv1.Event, error) { return s.sink.Create(ctx, event) })
}

func (s *boundedSink) Update(ctx context.Context, event *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write(ctx, event, func() (*eventsv1.Event, error) { return s.sink.Update(ctx, event) })
}

func (s *boundedSink) Patch(ctx context.Context, event *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	return s.write(ctx, event, func() (*eventsv1.Event, error) { return s.sink.Patch(ctx, event, data) })
}

// write waits for a writer's slot and runs do in it.
func (s *boundedSink) write(ctx context.Context, event *eventsv1.Event, do func() (*eventsv1.Event, error)) (*eventsv1.Event, error) {
	if s.waiting.Add(1) > s.maxWaiting {
		s.waiting.Add(-1)
		s.dropped(event, "too many events wait to be written")
		return nil, nil
	}
	s.addPending(1)
	defer s.addPending(-1)
	select {
	case s.slots <- struct{}{}:
		s.waiting.Add(-1)
	case <-ctx.Done():
		s.waiting.Add(-1)
		s.dropped(event, "the recorder stopped")
		return nil, nil
	}
	defer func() { <-s.slots }()
	written, err := do()
	if err != nil && ctx.Err() != nil {
		// Cut short by the recorder stopping, which the broadcaster would log as an error.
		s.dropped(event, "the recorder stopped")
		return nil, nil
	}
	if s.metrics != nil {
		// A retried write counts once per attempt; the broadcaster retries only what did not
		// reach the kube-apiserver.
		result := eventWritten
		if err != nil {
			result = eventFailed
		}
		s.metrics.results.WithLabelValues(result).Inc()
	}
	return written, err
}

func (s *boundedSink) addPending(n float64) {
	if s.metrics != nil {
		s.metrics.pending.Add(n)
	}
}

func (s *boundedSink) dropped(event *eventsv1.Event, why string) {
	if s.metrics != nil {
		s.metrics.results.WithLabelValues(eventDropped).Inc()
	}
	s.log.V(1).Info("Dropped an event", "why", why, "reason", event.Reason,
		"regarding", klog.KRef(event.Regarding.Namespace, event.Regarding.Name))
}

// runEverywhere is a runnable that runs on every replica, leader or not.
type runEverywhere func(ctx context.Context) error

func (r runEverywhere) Start(ctx context.Context) error { return r(ctx) }

func (runEverywhere) NeedLeaderElection() bool { return false }
