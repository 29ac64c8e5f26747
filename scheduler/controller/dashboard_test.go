//go:build integration

package controller

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/dashboards"
	"github.com/seedscaler/seedscaler/test/framework/promrunner"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// queryResults runs an instant query and returns the number of series (1 for a scalar).
func queryResults(prom *promrunner.Prometheus, query string) (int, error) {
	series, err := prom.Query(query)
	return len(series), err
}

// drainShootsMetric is the series of a seed being drained.
const drainShootsMetric = "seedscaler_scheduler_drain_shoots"

var schedulerMetric = regexp.MustCompile(`\bseedscaler_scheduler_[a-z0-9_]+`)

// TestDashboardQueriesTheSchedulersRealSeries lets a real Prometheus scrape a scheduler that
// bound one shoot and found no seed for another, and runs every query of
// dashboards/scheduler.json against it: each metric the dashboard names must be a series the
// scheduler really serves, and each query must return data.
func TestDashboardQueriesTheSchedulersRealSeries(t *testing.T) {
	bin, err := testenv.Tool("prometheus")
	require.NoError(t, err)
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	all, err := dashboards.Expressions(filepath.Join(root, "dashboards"))
	require.NoError(t, err)
	exprs := map[string]string{}
	drainPanels := 0
	for where, expr := range all {
		if !strings.HasPrefix(where, "seedscaler / Scheduler /") {
			continue
		}
		// A drained seed's series exist only while the drain controller, which this test
		// does not run, drains a seed: the simulator's drain test pins their names and
		// labels, test/observability that the panel shows them with any number of replicas.
		if strings.Contains(expr, drainShootsMetric) {
			drainPanels++
			continue
		}
		exprs[where] = expr
	}
	require.NotEmpty(t, exprs, "dashboards/scheduler.json has no queries")
	require.Equal(t, 1, drainPanels, "one panel shows the drained seeds' shoots")

	ctx := context.Background()
	const ns, provider = "dash", "dash"
	createNamespace(t, ns)
	createCloudProfile(t, provider, nil, "d1")
	seed := builders.MakeSeed("dash-1").Provider(provider, "d1").Allocatable(1).Ready().Obj()
	createSeed(t, seed)
	t.Cleanup(func() { assert.NoError(t, env.Client.Delete(ctx, seed)) })
	setSpec := builders.MakeSeed("x").Provider(provider, "d1").Obj().Spec
	set := managedSeedSet(ns, "more", setSpec, "10")
	require.NoError(t, env.Client.Create(ctx, set))
	// Other tests' schedulers report every set: leave none behind.
	t.Cleanup(func() { assert.NoError(t, env.Client.Delete(ctx, set)) })
	s := startScheduler(t, &config.SchedulerConfiguration{SchedulerName: "dash-scheduler"})
	for _, name := range []string{"first", "second"} {
		require.NoError(t, env.Client.Create(ctx, builders.MakeShoot(ns, name).CloudProfile(provider).Provider(provider, "d1").SchedulerName("dash-scheduler").Obj()))
	}

	listener, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	server := &http.Server{Handler: promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(func() { _ = server.Close() })
	prom, err := promrunner.Start(ctx, promrunner.Options{Binary: bin, ScrapeInterval: 500 * time.Millisecond,
		Targets: []promrunner.Target{{Job: "scheduler", Addresses: []string{listener.Addr().String()}}}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = prom.Stop() })

	require.EventuallyWithT(t, func(c *assert.CollectT) {
		n, err := queryResults(prom, fmt.Sprintf(`seedscaler_scheduler_pending_shoots{namespace=%q,managedseedset="more"} == 1`, ns))
		require.NoError(c, err)
		require.Equal(c, 1, n, "the unschedulable shoot fits the set")
		for where, expr := range exprs {
			for _, name := range schedulerMetric.FindAllString(expr, -1) {
				n, err := queryResults(prom, fmt.Sprintf(`count({__name__=%q})`, name))
				require.NoError(c, err)
				assert.Equal(c, 1, n, "%s: %s has no series", where, name)
			}
			n, err := queryResults(prom, dashboards.Resolve(expr, ".*"))
			if assert.NoError(c, err, "%s: %s", where, expr) {
				assert.NotZero(c, n, "%s returns no data: %s", where, expr)
			}
		}
	}, 60*time.Second, 500*time.Millisecond)
}
