package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	eventsv1client "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/rest"
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
// first of which step aside while yield says so.
//
// A new event (Create) is queued and Create returns at once: the broadcaster calls it from a
// goroutine of its own per event, and when that goroutine waited for the write, every event
// waiting in a burst of binds held a goroutine and its stack besides the event, 6.3 KB
// instead of 1 KB (BenchmarkWaitingEvents). The writer retries a new event that did not reach
// the kube-apiserver, as the broadcaster would have, newEventAttempts times in all. An event
// that finds the queue full is dropped. Create reports a queued or dropped event as written:
// an error would make the broadcaster retry it, up to twelve times.
//
// Updates of event series (Patch, Update) go before every new event, and their callers wait
// for the result, which the broadcaster keeps in its series cache. It writes them while it
// holds the lock that recording any event takes (when a series ends, and to refresh series):
// behind a queue of new events that lock was held for minutes in a burst of binds, and every
// event recorded meanwhile became a goroutine waiting for it, twelve thousand of them (50 MB
// of stacks) while a thousand-seed landscape filled.
type boundedSink struct {
	sink    events.EventSink
	queue   chan *eventWrite
	urgent  chan *eventWrite
	yield   func() bool
	metrics *EventMetrics
	log     logr.Logger
}

const (
	// newEventAttempts is how often a writer tries a new event whose write did not reach
	// the kube-apiserver, and newEventRetryPause the pause between two tries.
	newEventAttempts   = 3
	newEventRetryPause = time.Second
)

// eventWrite is a write waiting in the queue. done is closed once it is written, for a
// caller that waits (series updates), with its outcome in written and err; nil for a new
// event, whose caller does not wait.
type eventWrite struct {
	do      func() (*eventsv1.Event, error)
	event   *eventsv1.Event
	done    chan struct{}
	written *eventsv1.Event
	err     error
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
	w := &eventWrite{event: event, do: func() (*eventsv1.Event, error) { return s.sink.Create(ctx, event) }}
	if s.enqueue(s.queue, w) {
		s.addPending(1)
	}
	return nil, nil
}

func (s *boundedSink) Update(ctx context.Context, event *eventsv1.Event) (*eventsv1.Event, error) {
	return s.writeAndWait(ctx, event, func() (*eventsv1.Event, error) { return s.sink.Update(ctx, event) })
}

func (s *boundedSink) Patch(ctx context.Context, event *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	return s.writeAndWait(ctx, event, func() (*eventsv1.Event, error) { return s.sink.Patch(ctx, event, data) })
}

// enqueue puts w on queue, or drops its event when the queue is full.
func (s *boundedSink) enqueue(queue chan *eventWrite, w *eventWrite) bool {
	select {
	case queue <- w:
		return true
	default:
		s.dropped(w.event, "too many events wait to be written")
		return false
	}
}

// writeAndWait queues do before the new events and waits for it.
func (s *boundedSink) writeAndWait(ctx context.Context, event *eventsv1.Event, do func() (*eventsv1.Event, error)) (*eventsv1.Event, error) {
	w := &eventWrite{do: do, event: event, done: make(chan struct{})}
	if !s.enqueue(s.urgent, w) {
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
	s.count(w.err)
	return w.written, w.err
}

// count counts one attempt to write an event. A retried write counts once per attempt.
func (s *boundedSink) count(err error) {
	if s.metrics == nil {
		return
	}
	result := eventWritten
	if err != nil {
		result = eventFailed
	}
	s.metrics.results.WithLabelValues(result).Inc()
}

// writer writes queued events until ctx ends, then drops the new events still queued. One
// that yields takes no event while yield says so. It may have been waiting for an event since
// before that, so a burst of binds can meet a few events written at once, for one write each.
func (s *boundedSink) writer(ctx context.Context, yields bool) {
	defer s.dropQueued()
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
		if w.done != nil {
			w.written, w.err = w.do()
			close(w.done)
			continue
		}
		s.writeNew(ctx, w)
	}
}

// writeNew writes a new event, and tries again, newEventAttempts times in all, while its
// write does not reach the kube-apiserver (the broadcaster's rule: a refusal is final).
func (s *boundedSink) writeNew(ctx context.Context, w *eventWrite) {
	defer s.addPending(-1)
	for attempt := 1; ; attempt++ {
		_, err := w.do()
		if err != nil && ctx.Err() != nil {
			s.dropped(w.event, "the recorder stopped")
			return
		}
		s.count(err)
		if err == nil {
			return
		}
		var status apierrors.APIStatus
		var construction *rest.RequestConstructionError
		if errors.As(err, &status) || errors.As(err, &construction) || attempt == newEventAttempts {
			s.log.Error(err, "Unable to write an event", "attempts", attempt, "reason", w.event.Reason,
				"regarding", klog.KRef(w.event.Regarding.Namespace, w.event.Regarding.Name))
			return
		}
		select {
		case <-ctx.Done():
			s.dropped(w.event, "the recorder stopped")
			return
		case <-time.After(wait.Jitter(newEventRetryPause, 0.25)):
		}
	}
}

// dropQueued drops the new events still queued once the recorder stops.
func (s *boundedSink) dropQueued() {
	for {
		select {
		case w := <-s.queue:
			s.dropped(w.event, "the recorder stopped")
			s.addPending(-1)
		default:
			return
		}
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
