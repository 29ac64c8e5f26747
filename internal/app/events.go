package app

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	eventsv1 "k8s.io/api/events/v1"
	eventsv1client "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

const (
	// DefaultEventQPS bounds the requests per second of a recorder's event client when its
	// options leave it unset. The scheduler records an event with every bind; at the
	// default --kube-api-qps its events keep up with its binds, and in a faster burst of
	// binds they take no more than this of the kube-apiserver's requests from them.
	DefaultEventQPS = 50
	// DefaultEventBurst is the burst of a recorder's event client when its options leave it
	// unset.
	DefaultEventBurst = 100
	// MaxWaitingEvents is how many of a recorder's writes may wait for its event client (its
	// rate limiter or the kube-apiserver) at once. client-go's broadcaster writes every event
	// from a goroutine of its own; beyond the bound a new event is dropped and counted, so
	// that a kube-apiserver too slow for the events cannot make those goroutines, and the
	// recorder's memory, grow without bound.
	MaxWaitingEvents = 10000
	// eventUserAgentSuffix ends the user agent of every event client, so that the
	// kube-apiserver's audit log and metrics tell events from the part's other requests.
	eventUserAgentSuffix = "/events"
)

// EventRecorderOptions are the optional parts of an event recorder.
type EventRecorderOptions struct {
	// QPS and Burst bound the event client's requests to the kube-apiserver: DefaultEventQPS
	// when QPS is 0 and DefaultEventBurst when Burst is 0 or less. A negative QPS turns the
	// client's rate limit off.
	QPS   float32
	Burst int
	// Metrics, when set, counts the recorder's events.
	Metrics *EventMetrics
}

// Event write results, the result label of <prefix>_events_total.
const (
	eventWritten = "written"
	eventFailed  = "failed"
	eventDropped = "dropped"
)

// EventMetrics are a recorder's metrics: how many of its writes wait for the event client
// or are under way, and how many were written, failed or dropped.
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
			Help: "Event writes under way: waiting for the event client's rate limit or for the kube-apiserver's answer.",
		}),
		results: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: prefix + "_events_total",
			Help: "Event writes by result: written, failed (an attempt the kube-apiserver refused or did not answer) or dropped (too many waiting, or the process stopping).",
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

// EventConfig returns the rest config of an event client: a copy of cfg with a rate limit
// and a user agent of its own, in protobuf. A client's rate limit is its own, so the events
// never wait for the tokens of the part's other requests, such as the scheduler's binds, nor
// take theirs. Protobuf costs the kube-apiserver less than JSON, which counts where every
// bind writes an event.
func EventConfig(cfg *rest.Config, opts EventRecorderOptions) *rest.Config {
	out := Protobuf(cfg)
	out.RateLimiter = nil // a limiter set on cfg would be shared with cfg's clients
	out.QPS, out.Burst = opts.QPS, opts.Burst
	if out.QPS == 0 {
		out.QPS = DefaultEventQPS
	}
	if out.Burst <= 0 {
		out.Burst = DefaultEventBurst
	}
	userAgent := cfg.UserAgent
	if userAgent == "" {
		userAgent = rest.DefaultKubernetesUserAgent()
	}
	out.UserAgent = userAgent + eventUserAgentSuffix
	return out
}

// NewEventRecorder returns a recorder of events.k8s.io Events for the controller name,
// written by client-go's event broadcaster on a client of their own (EventConfig).
// Recording starts now, so no event is lost before the manager starts, and stops when the
// manager stops.
func NewEventRecorder(mgr manager.Manager, name string, opts EventRecorderOptions) (events.EventRecorder, error) {
	cfg := EventConfig(mgr.GetConfig(), opts)
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the HTTP client of the events of %s: %w", name, err)
	}
	client, err := eventsv1client.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("creating the events client of %s: %w", name, err)
	}
	log := mgr.GetLogger().WithName("events")
	ctx, cancel := context.WithCancel(logr.NewContext(context.Background(), log))
	sink := newCountingSink(&events.EventSinkImpl{Interface: client}, MaxWaitingEvents, opts.Metrics, log)
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

// countingSink passes the broadcaster's writes on to an EventSink, counts what becomes of
// them, and drops a write while maxWaiting others are under way.
//
// The broadcaster calls it from a goroutine per event and retries what did not reach the
// kube-apiserver; a dropped write returns no error, since an error would make the
// broadcaster retry it. A write cut short by the recorder stopping is dropped too, rather
// than returned as an error the broadcaster would log and retry.
type countingSink struct {
	sink       events.EventSink
	maxWaiting int64
	waiting    atomic.Int64
	metrics    *EventMetrics
	log        logr.Logger
}

func newCountingSink(sink events.EventSink, maxWaiting int, metrics *EventMetrics, log logr.Logger) *countingSink {
	return &countingSink{sink: sink, maxWaiting: int64(maxWaiting), metrics: metrics, log: log}
}

func (s *countingSink) Create(ctx context.Context, event *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write(ctx, event, func() (*eventsv1.Event, error) { return s.sink.Create(ctx, event) })
}

func (s *countingSink) Update(ctx context.Context, event *eventsv1.Event) (*eventsv1.Event, error) {
	return s.write(ctx, event, func() (*eventsv1.Event, error) { return s.sink.Update(ctx, event) })
}

func (s *countingSink) Patch(ctx context.Context, event *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	return s.write(ctx, event, func() (*eventsv1.Event, error) { return s.sink.Patch(ctx, event, data) })
}

// write runs do unless maxWaiting writes are under way, and counts its result.
func (s *countingSink) write(ctx context.Context, event *eventsv1.Event, do func() (*eventsv1.Event, error)) (*eventsv1.Event, error) {
	if s.waiting.Add(1) > s.maxWaiting {
		s.waiting.Add(-1)
		s.dropped(event, "too many events wait to be written")
		return nil, nil
	}
	s.addPending(1)
	written, err := do()
	s.addPending(-1)
	s.waiting.Add(-1)
	switch {
	case err == nil:
		s.count(eventWritten)
	case ctx.Err() != nil:
		s.dropped(event, "the recorder stopped")
		return nil, nil
	default:
		s.count(eventFailed)
	}
	return written, err
}

func (s *countingSink) count(result string) {
	if s.metrics != nil {
		s.metrics.results.WithLabelValues(result).Inc()
	}
}

func (s *countingSink) addPending(n float64) {
	if s.metrics != nil {
		s.metrics.pending.Add(n)
	}
}

func (s *countingSink) dropped(event *eventsv1.Event, why string) {
	s.count(eventDropped)
	s.log.V(1).Info("Dropped an event", "why", why, "reason", event.Reason,
		"regarding", klog.KRef(event.Regarding.Namespace, event.Regarding.Name))
}

// runEverywhere is a runnable that runs on every replica, leader or not.
type runEverywhere func(ctx context.Context) error

func (r runEverywhere) Start(ctx context.Context) error { return r(ctx) }

func (runEverywhere) NeedLeaderElection() bool { return false }
