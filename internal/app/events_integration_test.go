//go:build integration

package app

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// userAgents remembers the User-Agent of every request by method and path.
type userAgents struct {
	mu   sync.Mutex
	seen map[string]map[string]bool
}

func (u *userAgents) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		u.mu.Lock()
		key := req.Method + " " + req.URL.Path
		if u.seen[key] == nil {
			u.seen[key] = map[string]bool{}
		}
		u.seen[key][req.Header.Get("User-Agent")] = true
		u.mu.Unlock()
		return rt.RoundTrip(req)
	})
}

// of returns the user agents seen on requests whose method and path start with prefix.
func (u *userAgents) of(prefix string) []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []string
	for key, agents := range u.seen {
		if strings.HasPrefix(key, prefix) {
			for agent := range agents {
				out = append(out, agent)
			}
		}
	}
	return out
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// The recorder's events arrive in the kube-apiserver as events.k8s.io Events, written on
// a client of their own: its user agent, not the manager's, and counted as written.
func TestEventRecorderWritesOnAClientOfItsOwn(t *testing.T) {
	env, err := testenv.Start(testenv.Options{CRDDirectory: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = env.Stop() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "regarded"}}
	require.NoError(t, env.Client.Create(ctx, cm))

	agents := &userAgents{seen: map[string]map[string]bool{}}
	cfg := rest.CopyConfig(env.Config)
	cfg.UserAgent = "seedscaler-test"
	cfg.WrapTransport = agents.wrap
	o := &Options{MetricsBindAddress: "0", HealthProbeBindAddress: "0"}
	mgr, err := o.NewManager("events-test", cfg, nil)
	require.NoError(t, err)
	metrics, err := NewEventMetrics(prometheus.NewPedanticRegistry(), "test")
	require.NoError(t, err)
	recorder, err := NewEventRecorder(mgr, "events-test", EventRecorderOptions{Metrics: metrics})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	// A request of the manager's own client, to tell its user agent from the events'.
	require.NoError(t, mgr.GetAPIReader().Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{}))

	recorder.Eventf(cm, nil, corev1.EventTypeNormal, "Tested", "Test", "Recorded by %s", "the test")

	var arrived *eventsv1.Event
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		list := &eventsv1.EventList{}
		require.NoError(c, env.Client.List(ctx, list, client.InNamespace("default")))
		for i := range list.Items {
			if list.Items[i].Regarding.Name == cm.Name {
				arrived = &list.Items[i]
			}
		}
		assert.NotNil(c, arrived)
	}, 30*time.Second, 50*time.Millisecond)
	assert.Equal(t, "events-test", arrived.ReportingController)
	assert.Equal(t, "Tested", arrived.Reason)
	assert.Equal(t, "Recorded by the test", arrived.Note)
	assert.Equal(t, corev1.EventTypeNormal, arrived.Type)

	assert.Equal(t, []string{"seedscaler-test/events"}, agents.of("POST /apis/events.k8s.io/v1/namespaces/default/events"))
	assert.Equal(t, []string{"seedscaler-test"}, agents.of("GET /api/v1/namespaces/default/configmaps/regarded"))
	require.Eventually(t, func() bool { return testutil.ToFloat64(metrics.results.WithLabelValues(eventWritten)) == 1 },
		10*time.Second, 10*time.Millisecond, "counted once the write returned")
	assert.Equal(t, 0.0, testutil.ToFloat64(metrics.pending))
	assert.Equal(t, 0.0, testutil.ToFloat64(metrics.results.WithLabelValues(eventDropped)))
}
