package adapter

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	promapi "github.com/prometheus/client_golang/api"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/provider"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// rawSeriesPrometheus answers a value query with one sample per seed, and the timestamp
// query with perSeed raw series for each seed (the newest perSeed-1 seconds after the
// oldest), or their newest alone when the query groups them. It records the timestamp
// queries it was asked.
type rawSeriesPrometheus struct {
	newest  time.Time
	perSeed map[string]int // series name → raw series per seed

	mu                sync.Mutex
	timestampsQueries []string
}

func (f *rawSeriesPrometheus) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	query := r.FormValue("query")
	series := query[strings.LastIndex(query, "(")+1 : strings.Index(query, "{")]
	var samples []string
	sample := func(labels string, at time.Time, value float64) {
		samples = append(samples, fmt.Sprintf(`{"metric":{%s},"value":[%d,"%g"]}`, labels, at.Unix(), value))
	}
	for _, seed := range []string{"a", "b"} {
		switch {
		case !strings.Contains(query, "timestamp("):
			sample(fmt.Sprintf(`"seed":%q`, seed), f.newest, 5)
		case strings.HasPrefix(query, "max by"):
			sample(fmt.Sprintf(`"seed":%q`, seed), f.newest, float64(f.newest.Unix()))
		default:
			for pod := range f.perSeed[series] {
				at := f.newest.Add(-time.Duration(pod) * time.Second)
				sample(fmt.Sprintf(`"seed":%q,"pod":"p%d"`, seed, pod), f.newest, float64(at.Unix()))
			}
		}
	}
	if strings.Contains(query, "timestamp(") {
		f.mu.Lock()
		f.timestampsQueries = append(f.timestampsQueries, query)
		f.mu.Unlock()
	}
	_, _ = fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":[%s]}}`, strings.Join(samples, ","))
}

func (f *rawSeriesPrometheus) lastTimestampsQuery() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.timestampsQueries[len(f.timestampsQueries)-1]
}

// A rule that sums many raw series into each value has Prometheus group its timestamps
// once it has seen that, so that the answer is as small as the values; a few raw series
// per value, as exporter replicas give, stay ungrouped. The values and their timestamps
// are the same either way.
func TestTimestampsAreGroupedInPrometheusForManyRawSeriesPerValue(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	prom := &rawSeriesPrometheus{newest: now.Add(-10 * time.Second), perSeed: map[string]int{"pod_requests": rawSeriesPerValue + 2, "seed_usage": 2}}
	server := httptest.NewServer(prom)
	t.Cleanup(server.Close)
	cfg, err := ParseConfig([]byte(`
values: {cacheTTL: 0s}
rules:
- name: summed
  seriesQuery: '{__name__=~"pod_requests|seed_usage",seed!=""}'
  resource: {group: core.gardener.cloud, resource: seeds}
  objectLabel: seed
  metricName: {matches: 'pod_requests|seed_usage'}
  metricsQuery: 'sum by ({{.GroupBy}}) ({{.Series}}{ {{.LabelMatchers}} })'
`))
	require.NoError(t, err)
	client, err := promapi.NewClient(promapi.Config{Address: server.URL})
	require.NoError(t, err)
	metrics, err := NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	seeds := seedsResource.GroupResource()
	p := NewProvider(cfg, client, server.Client(), clocktesting.NewFakeClock(now), metrics,
		map[schema.GroupResource]schema.GroupVersionKind{seeds: gardencorev1beta1.GroupVersion.WithKind("Seed")}, nil, nil)

	for _, tc := range []struct {
		series      string
		thenGrouped bool
	}{
		{"pod_requests", true},
		{"seed_usage", false},
	} {
		t.Run(tc.series, func(t *testing.T) {
			info := provider.CustomMetricInfo{GroupResource: seeds, Metric: tc.series}
			for request := range 3 {
				v, err := p.GetMetricByName(context.Background(), types.NamespacedName{Name: "a"}, info, labels.Everything())
				require.NoError(t, err)
				assert.Equal(t, int64(5), v.Value.Value())
				assert.Equal(t, prom.newest, v.Timestamp.Time.UTC(), "the newest raw sample's time")
				grouped := strings.HasPrefix(prom.lastTimestampsQuery(), "max by (seed) (timestamp(")
				assert.Equal(t, tc.thenGrouped && request > 0, grouped, "request %d: %s", request, prom.lastTimestampsQuery())
			}
		})
	}
}
