//go:build integration

package autoscaler_test

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler"
	"github.com/seedscaler/seedscaler/test/framework/dashboards"
	"github.com/seedscaler/seedscaler/test/framework/promrunner"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

var autoscalerMetric = regexp.MustCompile(`\bseedscaler_autoscaler_[a-z0-9_]+`)

// TestDashboardQueriesTheAutoscalersRealSeries lets a real Prometheus scrape an autoscaler
// that watches a forecast (ForecastOnly) whose first prediction came due, and runs every
// query of dashboards/autoscaling.json that reads the autoscaler's own series against it:
// each such metric must be a series the autoscaler really serves, and each query must
// return data. (The exporter's series of the other queries are the exporter's tests'.)
func TestDashboardQueriesTheAutoscalersRealSeries(t *testing.T) {
	bin, err := testenv.Tool("prometheus")
	require.NoError(t, err)
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	all, err := dashboards.Expressions(filepath.Join(root, "dashboards"))
	require.NoError(t, err)
	exprs := map[string]string{}
	for where, expr := range all {
		if strings.HasPrefix(where, "seedscaler / Autoscaling /") && autoscalerMetric.MatchString(expr) {
			exprs[where] = expr
		}
	}
	require.NotEmpty(t, exprs, "dashboards/autoscaling.json reads none of the autoscaler's series")

	f := newFixture(t, "dashboard")
	f.aheadSet(60, 350)
	ahead := trendAhead(60)
	ahead.Mode = autoscalingv1alpha1.ForecastOnly
	f.createAheadAutoscaler(10, ahead)
	f.deleteAutoscalerAtEnd()
	registry := prometheus.NewRegistry()
	f.startWith(func(_ manager.Manager, r *autoscaler.Reconciler) {
		instruments, err := autoscaler.NewInstruments(registry)
		require.NoError(t, err)
		r.Instruments = instruments
	})
	f.waitForAhead("ForecastOnly")
	f.clock.Step(time.Minute) // the first prediction comes due
	f.waitForStatus("a judged prediction", func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		return st.ScaleAhead != nil && len(st.ScaleAhead.Forecasts) == 1 && st.ScaleAhead.Forecasts[0].LastJudged != nil
	})

	listener, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	server := &http.Server{Handler: promhttp.HandlerFor(registry, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(func() { _ = server.Close() })
	prom, err := promrunner.Start(f.ctx, promrunner.Options{Binary: bin, ScrapeInterval: 500 * time.Millisecond,
		Targets: []promrunner.Target{{Job: "autoscaler", Addresses: []string{listener.Addr().String()}}}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = prom.Stop() })

	require.EventuallyWithT(t, func(c *assert.CollectT) {
		for where, expr := range exprs {
			for _, name := range autoscalerMetric.FindAllString(expr, -1) {
				series, err := prom.Query(fmt.Sprintf(`count({__name__=%q, namespace=%q, name=%q})`, name, f.ns, f.name))
				require.NoError(c, err)
				assert.Len(c, series, 1, "%s: %s has no series of the autoscaler", where, name)
			}
			series, err := prom.Query(dashboards.Resolve(expr, ".*"))
			if assert.NoError(c, err, "%s: %s", where, expr) {
				assert.NotEmpty(c, series, "%s returns no data: %s", where, expr)
			}
		}
	}, 60*time.Second, 500*time.Millisecond)

	// What the panels show is what status says: the demand and the forecast for this
	// moment, 192% apart, and the replicas the forecast asked for.
	for query, want := range map[string]float64{
		`seedscaler_autoscaler_demand_shoots`:                            120,
		`seedscaler_autoscaler_forecast_demand_shoots{forecast="Trend"}`: 350,
		`seedscaler_autoscaler_forecast_error_ratio{forecast="Trend"}`:   1.92,
		`seedscaler_autoscaler_forecast_replicas`:                        5,
	} {
		series, err := prom.Query(query)
		require.NoError(t, err)
		if assert.Len(t, series, 1, query) {
			assert.InDelta(t, want, series[0].Value, 1e-9, query)
		}
	}
}
