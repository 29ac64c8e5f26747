package app

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	eventsv1 "k8s.io/api/events/v1"
	eventsv1client "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

const (
	// EventWriters is how many of a recorder's events are written at once; one while its
	// controller reports more important work under way (EventRecorderOptions.Yield).
	// client-go's events.k8s.io broadcaster writes each event from a goroutine of its own, as
	// soon as it is recorded; when the scheduler binds a burst of shoots, its events then took
	// as many of the kube-apiserver's requests as the binds did, and slowed the binds shoots
	// wait for. With one writer while binds run (what client-go's core/v1 recorder always
	// does) the binds get the kube-apiserver first, but one writer alone then took longer
	// than the binds to write the rest; four catch up at about the kube-apiserver's rate
	// (docs/performance.md).
	EventWriters = 4
	// yieldPoll is how often a writer that stepped aside asks Yield again.
	yieldPoll = 5 * time.Millisecond
	// MaxWaitingEvents is how many events may wait for a writer. Beyond it an event is
	// dropped and counted, as client-go drops them when its queue is full, so that a
	// kube-apiserver too slow for the events cannot make the recorder's memory grow without
	// bound.
	MaxWaitingEvents = 10000
)

// EventRecorderOptions are the optional parts of an event recorder.
type EventRecorderOptions struct {
	// Metrics, when set, counts the recorder's events.
	Metrics *EventMetrics
	// Yield, when set, reports whether work more important than events is under way, such
	// as binds: the recorder then writes one event at a time instead of EventWriters. It is
	// called often while it reports true, and must be cheap.
	Yield func() bool
}

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
			Help: "Events by what became of them: written, failed (an attempt the kube-apiserver refused or did not answer) or dropped (too many waiting, or the process stopping).",
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
// that writes them in protobuf, EventWriters at a time or one while opts.Yield says so. The
// manager's own recorder writes JSON; the scheduler writes an event with every bind, and on the
// same kube-apiserver events in protobuf were created about a quarter faster than in JSON
// (docs/performance.md). Recording starts now, so no event is lost before the manager starts,
// and stops when the manager stops.
func NewEventRecorder(mgr manager.Manager, name string, opts EventRecorderOptions) (events.EventRecorder, error) {
	client, err := eventsv1client.NewForConfigAndClient(Protobuf(mgr.GetConfig()), mgr.GetHTTPClient())
	if err != nil {
		return nil, fmt.Errorf("creating the events client of %s: %w", name, err)
	}
	log := mgr.GetLogger().WithName("events")
	ctx, cancel := context.WithCancel(context.Background())
	sink := newBoundedSink(logr.NewContext(ctx, log), &events.EventSinkImpl{Interface: client}, EventWriters, MaxWaitingEvents, opts)
	broadcaster := events.NewBroadcaster(sink)
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

// boundedSink writes events through an EventSink with a few writer goroutines, all but the
// first of which step aside while yield says so. The broadcaster calls it from a goroutine per
// event, which waits here for its write; an event that finds the queue full is dropped. A
// dropped event is reported to the broadcaster as written: an error would make it retry, up
// to twelve times.
//
// Updates of event series (Patch, Update) go before every new event. The broadcaster
// writes them while it holds the lock that recording any event takes (when a series ends,
// and to refresh series): behind a queue of new events that lock was held for minutes in
// a burst of binds, and every event recorded meanwhile became a goroutine waiting for it,
// twelve thousand of them (50 MB of stacks) while a thousand-seed landscape filled.
type boundedSink struct {
	sink    events.EventSink
	queue   chan *eventWrite
	urgent  chan *eventWrite
	yield   func() bool
	metrics *EventMetrics
	log     logr.Logger
}

// eventWrite is a write waiting in the queue, and what became of it once done is closed.
type eventWrite struct {
	do      func() (*eventsv1.Event, error)
	written *eventsv1.Event
	err     error
	done    chan struct{}
}

// newBoundedSink starts writers goroutines, which run until ctx ends, behind a queue of
// maxWaiting writes.
func newBoundedSink(ctx context.Context, sink events.EventSink, writers, maxWaiting int, opts EventRecorderOptions) *boundedSink {
	s := &boundedSink{sink: sink, queue: make(chan *eventWrite, maxWaiting), urgent: make(chan *eventWrite, maxWaiting),
		yield: opts.Yield, metrics: opts.Metrics, log: logr.FromContextOrDiscard(ctx)}
	for i := range writers {
		go s.writer(ctx, i > 0 && s.yield != nil)
	}
	return s
}

func (s *boundedSink) Create(ctx context.Context, event *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write(ctx, s.queue, event, func() (*eventsv1.Event, error) { return s.sink.Create(ctx, event) })
}

func (s *boundedSink) Update(ctx context.Context, event *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write(ctx, s.urgent, event, func() (*eventsv1.Event, error) { return s.sink.Update(ctx, event) })
}

func (s *boundedSink) Patch(ctx context.Context, event *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	return s.write(ctx, s.urgent, event, func() (*eventsv1.Event, error) { return s.sink.Patch(ctx, event, data) })
}

// write queues do for a writer on queue and waits for it.
func (s *boundedSink) write(ctx context.Context, queue chan *eventWrite, event *eventsv1.Event, do func() (*eventsv1.Event, error)) (*eventsv1.Event, error) {
	w := &eventWrite{do: do, done: make(chan struct{})}
	select {
	case queue <- w:
	default:
		s.dropped(event, "too many events wait to be written")
		return nil, nil
	}
	s.addPending(1)
	defer s.addPending(-1)
	select {
	case <-w.done:
	case <-ctx.Done():
		// The writers stop with the same context; what they had not taken is lost.
		s.dropped(event, "the recorder stopped")
		return nil, nil
	}
	if w.err != nil && ctx.Err() != nil {
		// Cut short by the recorder stopping, which the broadcaster would log as an error.
		s.dropped(event, "the recorder stopped")
		return nil, nil
	}
	if s.metrics != nil {
		// A retried write counts once per attempt; the broadcaster retries only what did not
		// reach the kube-apiserver.
		result := eventWritten
		if w.err != nil {
			result = eventFailed
		}
		s.metrics.results.WithLabelValues(result).Inc()
	}
	return w.written, w.err
}

// writer writes queued events until ctx ends. One that yields takes no event while yield
// says so. It may have been waiting for an event since before that, so a burst of binds can
// meet a few events written at once, for one write each.
func (s *boundedSink) writer(ctx context.Context, yields bool) {
	var pause *time.Timer
	for {
		for yields && s.yield() {
			if pause == nil {
				pause = time.NewTimer(yieldPoll)
			} else {
				pause.Reset(yieldPoll)
			}
			select {
			case <-ctx.Done():
				pause.Stop()
				return
			case <-pause.C:
			}
		}
		var w *eventWrite
		select {
		case w = <-s.urgent: // before any new event
		default:
			select {
			case <-ctx.Done():
				return
			case w = <-s.urgent:
			case w = <-s.queue:
			}
		}
		w.written, w.err = w.do()
		close(w.done)
	}
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
