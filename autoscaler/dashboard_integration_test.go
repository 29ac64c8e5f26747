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
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/dashboards"
	"github.com/seedscaler/seedscaler/test/framework/promrunner"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

var autoscalerMetric = regexp.MustCompile(`\bseedscaler_autoscaler_[a-z0-9_]+`)

// consolidationMetric matches the autoscaler's series of consolidation and its disruption
// budgets; the dashboard's other queries of the autoscaler's own series are scale-ahead's.
var consolidationMetric = regexp.MustCompile(`\bseedscaler_autoscaler_(consolidation_score|disruption_budget_allowed)\b`)

// autoscalerQueries returns the queries of dashboards/autoscaling.json that read the
// autoscaler's own series: those of consolidation, or the others. The two tests below
// together cover every one.
func autoscalerQueries(t *testing.T, consolidation bool) map[string]string {
	t.Helper()
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	all, err := dashboards.Expressions(filepath.Join(root, "dashboards"))
	require.NoError(t, err)
	exprs := map[string]string{}
	for where, expr := range all {
		if strings.HasPrefix(where, "seedscaler / Autoscaling /") && autoscalerMetric.MatchString(expr) &&
			consolidationMetric.MatchString(expr) == consolidation {
			exprs[where] = expr
		}
	}
	require.NotEmpty(t, exprs, "dashboards/autoscaling.json reads none of the autoscaler's series (consolidation: %t)", consolidation)
	return exprs
}

// startInstrumented starts the fixture's autoscaler with its instruments registered in a
// registry of its own, which it returns for scrapeAutoscaler.
func startInstrumented(t *testing.T, f *fixture) *prometheus.Registry {
	t.Helper()
	registry := prometheus.NewRegistry()
	f.startWith(func(_ manager.Manager, r *autoscaler.Reconciler) {
		instruments, err := autoscaler.NewInstruments(registry)
		require.NoError(t, err)
		r.Instruments = instruments
	})
	return registry
}

// scrapeAutoscaler lets a real Prometheus scrape registry every 500 ms, for the test.
func scrapeAutoscaler(t *testing.T, f *fixture, registry *prometheus.Registry) *promrunner.Prometheus {
	t.Helper()
	bin, err := testenv.Tool("prometheus")
	require.NoError(t, err)
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	server := &http.Server{Handler: promhttp.HandlerFor(registry, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(func() { _ = server.Close() })
	prom, err := promrunner.Start(f.ctx, promrunner.Options{Binary: bin, ScrapeInterval: 500 * time.Millisecond,
		Targets: []promrunner.Target{{Job: "autoscaler", Addresses: []string{listener.Addr().String()}}}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = prom.Stop() })
	return prom
}

// requireQueriesShowTheAutoscaler waits until every query returns data and each metric it
// reads is a series the fixture's autoscaler really serves.
func requireQueriesShowTheAutoscaler(t *testing.T, f *fixture, prom *promrunner.Prometheus, exprs map[string]string) {
	t.Helper()
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
}

// assertValues checks that each query returns one series of the wanted value.
func assertValues(t *testing.T, prom *promrunner.Prometheus, want map[string]float64) {
	t.Helper()
	for query, value := range want {
		series, err := prom.Query(query)
		require.NoError(t, err)
		if assert.Len(t, series, 1, query) {
			assert.InDelta(t, value, series[0].Value, 1e-9, query)
		}
	}
}

// TestDashboardQueriesTheAutoscalersRealSeries lets a real Prometheus scrape an autoscaler
// that watches a forecast (ForecastOnly) whose first prediction came due, and runs every
// query of dashboards/autoscaling.json that reads the autoscaler's own series of scale
// ahead against it: each such metric must be a series the autoscaler really serves, and
// each query must return data. (The exporter's series of the other queries are the
// exporter's tests'.)
func TestDashboardQueriesTheAutoscalersRealSeries(t *testing.T) {
	exprs := autoscalerQueries(t, false)
	f := newFixture(t, "dashboard")
	f.aheadSet(60, 350)
	ahead := trendAhead(60)
	ahead.Mode = autoscalingv1alpha1.ForecastOnly
	f.createAheadAutoscaler(10, ahead)
	f.deleteAutoscalerAtEnd()
	registry := startInstrumented(t, f)
	f.waitForAhead("ForecastOnly")
	f.clock.Step(time.Minute) // the first prediction comes due
	f.waitForStatus("a judged prediction", func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		return st.ScaleAhead != nil && len(st.ScaleAhead.Forecasts) == 1 && st.ScaleAhead.Forecasts[0].LastJudged != nil
	})

	prom := scrapeAutoscaler(t, f, registry)
	requireQueriesShowTheAutoscaler(t, f, prom, exprs)
	// What the panels show is what status says: the demand and the forecast for this
	// moment, 192% apart, and the replicas the forecast asked for.
	assertValues(t, prom, map[string]float64{
		`seedscaler_autoscaler_demand_shoots`:                            120,
		`seedscaler_autoscaler_forecast_demand_shoots{forecast="Trend"}`: 350,
		`seedscaler_autoscaler_forecast_error_ratio{forecast="Trend"}`:   1.92,
		`seedscaler_autoscaler_forecast_replicas`:                        5,
	})
}

// TestDashboardQueriesTheConsolidationSeries does the same for the consolidation panels: an
// autoscaler whose set is above its needs (54 shoots on three seeds of 100 at 70%) scores
// its seeds under two disruption budgets. The best candidate, ten highly available shoots,
// scores 0.5 and stays below the minimum score of 0.6, so nothing is drained.
func TestDashboardQueriesTheConsolidationSeries(t *testing.T) {
	exprs := autoscalerQueries(t, true)
	f := newFixture(t, "dashboard-consolidation")
	set := f.createSet(3, nil)
	f.addReplica(set, replicaName(f.name, 0), 10, false)
	f.addReplica(set, replicaName(f.name, 1), 4, false)
	f.addReplica(set, replicaName(f.name, 2), 40, false)
	for i := range 10 {
		shoot := builders.MakeShoot(f.ns, fmt.Sprintf("live-%d", i)).SeedName(replicaName(f.name, 0)).ZoneFailureTolerance().Obj()
		require.NoError(t, env.Client.Create(f.ctx, shoot))
	}
	for i := range 4 {
		shoot := builders.MakeShoot(f.ns, fmt.Sprintf("plain-%d", i)).SeedName(replicaName(f.name, 1)).Obj()
		require.NoError(t, env.Client.Create(f.ctx, shoot))
	}
	minScore := resource.MustParse("0.6")
	f.createAutoscaler(1, 5, 70, &autoscalingv1alpha1.SeedAutoscalerBehavior{
		ScaleDown: &autoscalingv1alpha1.ScalingRules{StabilizationWindowSeconds: ptr.To[int32](0), Consolidation: &autoscalingv1alpha1.Consolidation{
			WindowSeconds: 60, MinScore: &minScore,
			Budgets: []autoscalingv1alpha1.DisruptionBudget{
				{Reasons: []autoscalingv1alpha1.DisruptionReason{autoscalingv1alpha1.DisruptionConsolidation}, Seeds: "1"},
				{Reasons: []autoscalingv1alpha1.DisruptionReason{autoscalingv1alpha1.DisruptionOperatorDrain}, Shoots: "10%"},
			},
		}},
	})
	f.deleteAutoscalerAtEnd()
	f.metrics.setPending(f.name, 0)
	registry := startInstrumented(t, f)
	f.waitForStatus("the set above its needs", func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		return st.Consolidation != nil && st.Consolidation.AboveNeedsSince != nil
	})
	f.clock.Step(61 * time.Second) // the window has passed: the seeds are scored
	f.waitForStatus("a scoring", func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		return st.Consolidation != nil && len(st.Consolidation.Scores) > 0
	})
	require.Equal(t, autoscalingv1alpha1.ConsolidationRejected, f.get().Status.Consolidation.Scores[0].Decision)

	prom := scrapeAutoscaler(t, f, registry)
	requireQueriesShowTheAutoscaler(t, f, prom, exprs)
	// What the panels show is what status says: one more seed may be drained, 10% of the
	// 54 shoots (rounded up) may migrate for an operator's drain, and the best candidate's
	// score; no budget bounds a scale-in's removals, so that series does not exist.
	// The controller serves every SeedAutoscaler of the suite's garden: this test's series are
	// those of its namespace.
	ns := `namespace="` + f.ns + `", `
	assertValues(t, prom, map[string]float64{
		`seedscaler_autoscaler_disruption_budget_allowed{` + ns + `reason="Consolidation", unit="seeds", budget="0"}`:  1,
		`seedscaler_autoscaler_disruption_budget_allowed{` + ns + `reason="OperatorDrain", unit="shoots", budget="1"}`: 6,
		`seedscaler_autoscaler_consolidation_score{` + ns + `seed="` + replicaName(f.name, 0) + `"}`:                   0.5,
	})
	series, err := prom.Query(`seedscaler_autoscaler_disruption_budget_allowed{` + ns + `reason="EmptySeedRemoval"}`)
	require.NoError(t, err)
	assert.Empty(t, series)
}
