//go:build integration

package observability

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/test/framework/dashboards"
	"github.com/seedscaler/seedscaler/test/framework/promrunner"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// The landscape's half hour of samples, one a minute, ending at queryTime.
const (
	landscapeMinutes = 30
	releaseNamespace = "seedscaler-system"
)

var (
	landscapeStart = time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
	queryTime      = landscapeStart.Add(landscapeMinutes * time.Minute)
)

// series is one series as Prometheus stored it: its labels, metric name included, and its
// value at each minute of the landscape from minute from on.
type series struct {
	labels map[string]string
	value  func(minute int) float64
	from   int
}

// landscape is what a Prometheus under prometheus-operator holds about a small garden when
// the exporter and the scheduler run a given number of replicas: each series carries the
// operator's target labels, a label the part writes itself winning (honorLabels).
type landscape struct {
	replicas int
	series   []series
}

// targetLabels are the labels prometheus-operator gives the target of one pod of a part.
func targetLabels(part string, replica int) map[string]string {
	return map[string]string{
		"job": "seedscaler-" + part, "namespace": releaseNamespace,
		"pod":      fmt.Sprintf("seedscaler-%s-6c8d9f7b5-r%d", part, replica),
		"instance": fmt.Sprintf("10.244.%d.%d:8080", replica, len(part)),
		"service":  "seedscaler-" + part + "-metrics", "endpoint": "metrics", "container": part,
	}
}

func (l *landscape) add(part string, replica int, name string, own map[string]string, value func(int) float64) {
	l.addFrom(0, part, replica, name, own, value)
}

func (l *landscape) addFrom(from int, part string, replica int, name string, own map[string]string, value func(int) float64) {
	labels := targetLabels(part, replica)
	maps.Copy(labels, own)
	labels["__name__"] = name
	l.series = append(l.series, series{labels: labels, value: value, from: from})
}

// constant is a gauge that does not change.
func constant(v float64) func(int) float64 { return func(int) float64 { return v } }

// perMinute is a counter growing by rate every minute.
func perMinute(rate float64) func(int) float64 {
	return func(m int) float64 { return rate * float64(m) }
}

// exporter adds a series that every exporter replica serves with the same values.
func (l *landscape) exporter(name string, own map[string]string, value func(int) float64) {
	for r := range l.replicas {
		l.add("exporter", r, name, own, value)
	}
}

// leader adds a series of the scheduler that only its leader moves: the other replicas
// serve it at zero, or not at all when only the leader serves it (the pending gauge). A
// leader-only series is in the middle of a failover at the end: the second replica took
// over a minute ago, and the first one's last sample is still fresh.
func (l *landscape) leader(name string, own map[string]string, value func(int) float64, leaderOnly bool) {
	l.add("scheduler", 0, name, own, value)
	for r := 1; r < l.replicas; r++ {
		switch {
		case !leaderOnly:
			l.add("scheduler", r, name, own, constant(0))
		case r == 1:
			l.addFrom(landscapeMinutes-1, "scheduler", r, name, own, value)
		}
	}
}

// shared adds a counter of a part whose replicas share the work (object locks): each
// replica counts its share.
func (l *landscape) shared(part, name string, own map[string]string, rate float64) {
	for r := range l.replicas {
		l.add(part, r, name, own, perMinute(rate/float64(l.replicas)))
	}
}

// newLandscape builds the same garden with every part that may run several replicas at
// replicas. It is made so that every alert that reads the parts' series fires, and every
// dashboard query shows data.
func newLandscape(replicas int) *landscape {
	l := &landscape{replicas: replicas}
	type seed struct {
		name, provider, region, visible, set string
		allocatable, usage                   float64
	}
	seeds := []seed{
		{"aws-eu1-0", "aws", "eu-west-1", "true", "aws-eu1", 100, 95},  // above 90%
		{"aws-eu1-1", "aws", "eu-west-1", "true", "aws-eu1", 100, 100}, // full
		{"aws-eu1-2", "aws", "eu-west-1", "true", "", 20, 5},
		{"gcp-ew1-0", "gcp", "europe-west1", "true", "", 50, 50},  // full, and its region too
		{"gcp-ew1-1", "gcp", "europe-west1", "false", "", 50, 10}, // invisible: no room for the region
	}
	for _, s := range seeds {
		info := map[string]string{"name": s.name, "provider": s.provider, "region": s.region, "visible": s.visible, "managedseedset": s.set}
		if s.set != "" {
			info["namespace"] = "garden"
		}
		l.exporter("garden_seed_info", info, constant(1))
		shoots := map[string]string{"name": s.name, "resource": "shoots"}
		l.exporter("garden_seed_capacity", shoots, constant(s.allocatable+10))
		l.exporter("garden_seed_allocatable", shoots, constant(s.allocatable))
		l.exporter("garden_seed_usage", shoots, constant(s.usage))
		for status, v := range map[string]float64{"True": 1, "False": 0, "Unknown": 0} {
			l.exporter("garden_seed_condition", map[string]string{"name": s.name, "condition": "GardenletReady", "status": status}, constant(v))
		}
		l.leader("seedscaler_scheduler_binds_total", map[string]string{"seed": s.name}, perMinute(s.usage/landscapeMinutes), false)
	}
	l.exporter("garden_shoots_unscheduled", map[string]string{"provider": "aws", "region": "eu-west-1"}, constant(2))
	l.exporter("garden_shoots_unscheduled", map[string]string{"provider": "gcp", "region": "europe-west1"}, constant(3))

	set := map[string]string{"namespace": "garden", "name": "aws-eu1"}
	l.exporter("garden_managedseedset_spec_replicas", set, constant(2))
	l.exporter("garden_managedseedset_status_replicas", set, constant(3)) // scale-in blocked
	l.exporter("garden_managedseedset_status_ready_replicas", set, constant(2))
	l.exporter("garden_managedseedset_status_pending_replica_retries", set, constant(1))
	l.exporter("garden_seedautoscaler_spec_min_replicas", set, constant(1))
	l.exporter("garden_seedautoscaler_spec_max_replicas", set, constant(3))
	l.exporter("garden_seedautoscaler_status_current_replicas", set, constant(3))
	l.exporter("garden_seedautoscaler_status_desired_replicas", set, func(m int) float64 {
		return float64(2 + m/(landscapeMinutes-2)) // scaled out two minutes ago
	})
	shoots := map[string]string{"namespace": "garden", "name": "aws-eu1", "metric": "shoots"}
	l.exporter("garden_seedautoscaler_metric_current", shoots, constant(97.5))
	l.exporter("garden_seedautoscaler_metric_target", shoots, constant(70))
	// The autoscaler's forecast of aws-eu1 (Trend), served by the replica that evaluated it.
	sa := map[string]string{"namespace": "garden", "name": "aws-eu1"}
	trend := map[string]string{"namespace": "garden", "name": "aws-eu1", "forecast": "Trend"}
	for r := range l.replicas {
		l.add("autoscaler", r, "seedscaler_autoscaler_forecast_replicas", sa, constant(4))
		l.add("autoscaler", r, "seedscaler_autoscaler_demand_shoots", sa, constant(120))
		l.add("autoscaler", r, "seedscaler_autoscaler_forecast_demand_shoots", trend, constant(130))
		l.add("autoscaler", r, "seedscaler_autoscaler_forecast_error_ratio", trend, constant(0.08))
	}
	// aws-eu1 consolidates under two budgets: the first lets one seed be disrupted at a
	// time, the third holds consolidation now (office hours); its best candidate, aws-eu1-0,
	// scores one seed freed for 80 weighted migrations.
	budget := func(reason, unit, index string) map[string]string {
		return map[string]string{"namespace": "garden", "name": "aws-eu1", "reason": reason, "unit": unit, "budget": index}
	}
	for r := range l.replicas {
		l.add("autoscaler", r, "seedscaler_autoscaler_disruption_budget_allowed", budget("Consolidation", "seeds", "2"), constant(0))
		l.add("autoscaler", r, "seedscaler_autoscaler_disruption_budget_allowed", budget("EmptySeedRemoval", "seeds", "0"), constant(1))
		l.add("autoscaler", r, "seedscaler_autoscaler_consolidation_score",
			map[string]string{"namespace": "garden", "name": "aws-eu1", "seed": "aws-eu1-0"}, constant(0.0125))
	}
	// aws-eu1 misses metrics; gcp-ew1's target publishes no selector.
	type condition struct{ autoscaler, condition, status, reason string }
	for _, c := range []condition{
		{"aws-eu1", "AbleToScale", "True", "ReadyForNewScale"},
		{"aws-eu1", "ScalingActive", "False", "IncompleteMetrics"},
		{"aws-eu1", "ScalingLimited", "True", "TooManyReplicas"},
		{"gcp-ew1", "AbleToScale", "True", "ReadyForNewScale"},
		{"gcp-ew1", "ScalingActive", "False", "InvalidSelector"},
	} {
		for _, s := range []string{"True", "False", "Unknown"} {
			v := 0.0
			if s == c.status {
				v = 1
			}
			l.exporter("garden_seedautoscaler_condition", map[string]string{"namespace": "garden", "name": c.autoscaler, "condition": c.condition, "status": s}, constant(v))
		}
		l.exporter("garden_seedautoscaler_condition_reason", map[string]string{"namespace": "garden", "name": c.autoscaler, "condition": c.condition, "reason": c.reason}, constant(1))
	}

	for result, rate := range map[string]float64{"scheduled": 10, "unschedulable": 2, "error": 5} {
		l.leader("seedscaler_scheduler_schedule_attempts_total", map[string]string{"result": result}, perMinute(rate), false)
	}
	for i, le := range []string{"0.001", "0.002", "0.004", "0.008", "0.016", "+Inf"} {
		l.leader("seedscaler_scheduler_scheduling_duration_seconds_bucket", map[string]string{"le": le}, perMinute(float64(2*i+2)), false)
	}
	l.leader("seedscaler_scheduler_scheduling_duration_seconds_sum", nil, perMinute(0.05), false)
	l.leader("seedscaler_scheduler_scheduling_duration_seconds_count", nil, perMinute(12), false)
	// Ten shoots bound a minute, half of them later than 60 s: the scheduling error budget
	// burns 50 times too fast, which pages. Every exporter replica observes every bind; le
	// as Prometheus 3 stores it.
	for le, rate := range map[string]float64{"30.0": 2, "60.0": 5, "600.0": 10, "+Inf": 10} {
		l.exporter("garden_shoot_scheduling_wait_seconds_bucket", map[string]string{"managedseedset": "aws-eu1", "namespace": "garden", "region": "eu-west-1", "le": le}, perMinute(rate))
	}
	l.exporter("garden_shoot_scheduling_wait_seconds_sum", map[string]string{"managedseedset": "aws-eu1", "namespace": "garden", "region": "eu-west-1"}, perMinute(900))
	l.exporter("garden_shoot_scheduling_wait_seconds_count", map[string]string{"managedseedset": "aws-eu1", "namespace": "garden", "region": "eu-west-1"}, perMinute(10))
	l.leader("seedscaler_scheduler_pending_shoots", map[string]string{"namespace": "garden", "managedseedset": "aws-eu1"}, constant(2), true)
	l.leader("seedscaler_scheduler_event_writes_pending", nil, constant(3), false)
	// A drain stuck on two shoots that cannot leave.
	for state, n := range map[string]float64{"remaining": 2, "migrating": 0, "waiting": 0, "blocked": 2} {
		l.leader("seedscaler_scheduler_drain_shoots", map[string]string{"seed": "aws-eu1-2", "state": state}, constant(n), true)
	}
	for result, rate := range map[string]float64{"started": 3, "rolled_back": 1} {
		l.leader("seedscaler_scheduler_migrations_total", map[string]string{"result": result}, perMinute(rate), false)
	}
	for result, rate := range map[string]float64{"written": 9, "failed": 1, "dropped": 0.5} {
		l.leader("seedscaler_scheduler_events_total", map[string]string{"result": result}, perMinute(rate), false)
	}

	// The set controller in object-locks mode, half of its reconciles failing.
	for _, c := range []struct {
		part, controller string
		total, errors    float64
	}{{"scheduler", "scheduler", 20, 1}, {"set-controller", "managedseedset", 6, 3}} {
		l.shared(c.part, "controller_runtime_reconcile_errors_total", map[string]string{"controller": c.controller}, c.errors)
		l.shared(c.part, "controller_runtime_reconcile_total", map[string]string{"controller": c.controller, "result": "error"}, c.errors)
		l.shared(c.part, "controller_runtime_reconcile_total", map[string]string{"controller": c.controller, "result": "success"}, c.total-c.errors)
	}
	for _, part := range []string{"exporter", "adapter", "scheduler", "seed-controller", "set-controller", "autoscaler"} {
		for r := range l.replicas {
			l.add(part, r, "up", nil, constant(1))
		}
	}
	// Two kube-apiservers, one of which cannot reach the adapter.
	for i, unavailable := range []float64{1, 0} {
		l.series = append(l.series, series{labels: map[string]string{
			"__name__": "aggregator_unavailable_apiservice", "name": "v1beta2.custom.metrics.k8s.io",
			"job": "apiserver", "namespace": "default", "service": "kubernetes", "endpoint": "https",
			"instance": fmt.Sprintf("172.18.0.%d:6443", 2+i),
		}, value: constant(unavailable)})
	}
	return l
}

// openMetrics writes the landscape as OpenMetrics text with timestamps, the input of
// `promtool tsdb create-blocks-from openmetrics`; a metric's series stand together.
func (l *landscape) openMetrics() string {
	sorted := slices.Clone(l.series)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].labels["__name__"] < sorted[j].labels["__name__"] })
	var b strings.Builder
	for _, s := range sorted {
		var pairs []string
		for _, k := range slices.Sorted(maps.Keys(s.labels)) {
			if k != "__name__" {
				pairs = append(pairs, fmt.Sprintf("%s=%q", k, s.labels[k]))
			}
		}
		for m := s.from; m <= landscapeMinutes; m++ {
			ts := landscapeStart.Add(time.Duration(m) * time.Minute).Unix()
			fmt.Fprintf(&b, "%s{%s} %g %d\n", s.labels["__name__"], strings.Join(pairs, ","), s.value(m), ts)
		}
	}
	b.WriteString("# EOF\n")
	return b.String()
}

// startPrometheus writes the landscape into a fresh TSDB with promtool and starts a
// Prometheus on it that scrapes nothing.
func startPrometheus(t *testing.T, l *landscape) promv1.API {
	t.Helper()
	dir := t.TempDir()
	input := filepath.Join(dir, "landscape.om")
	require.NoError(t, os.WriteFile(input, []byte(l.openMetrics()), 0o600))
	bin, err := testenv.Tool("promtool")
	require.NoError(t, err)
	out, err := exec.Command(bin, "tsdb", "create-blocks-from", "openmetrics", input, filepath.Join(dir, "prometheus", "data")).CombinedOutput()
	require.NoError(t, err, "promtool tsdb create-blocks-from openmetrics:\n%s", out)
	promBin, err := testenv.Tool("prometheus")
	require.NoError(t, err)
	prom, err := promrunner.Start(context.Background(), promrunner.Options{Binary: promBin, Dir: filepath.Join(dir, "prometheus")})
	require.NoError(t, err)
	t.Cleanup(func() { _ = prom.Stop() })
	client, err := promapi.NewClient(promapi.Config{Address: prom.URL})
	require.NoError(t, err)
	return promv1.NewAPI(client)
}

// answer runs query at queryTime and renders the result so that two equal results render
// alike: series sorted, values to nine significant digits.
func answer(api promv1.API, query string) (string, error) {
	v, _, _, err := api.Query(context.Background(), query, queryTime)
	if err != nil {
		return "", err
	}
	switch v := v.(type) {
	case model.Vector:
		lines := make([]string, 0, len(v))
		for _, s := range v {
			lines = append(lines, fmt.Sprintf("%s %.9g", s.Metric, float64(s.Value)))
		}
		sort.Strings(lines)
		return strings.Join(lines, "\n"), nil
	case *model.Scalar:
		return fmt.Sprintf("%.9g", float64(v.Value)), nil
	default:
		return "", fmt.Errorf("an answer of type %s", v.Type())
	}
}

// recordedSeries is a recording rule's name, which holds a colon (level:metric:operations),
// as a query reads it: alone, or over a range.
var recordedSeries = regexp.MustCompile(`\b([a-zA-Z_][a-zA-Z0-9_]*:[a-zA-Z0-9_:]*)(\[[0-9a-z]+\])?`)

// inlined returns query with every recorded series it reads replaced by its recording rule's
// expression, until none is left: the landscape's Prometheus evaluates no rules, so an alert
// or panel that reads a recorded series is asked what the rule would have recorded. A
// series read over a range becomes a subquery at the rules' interval.
func inlined(t *testing.T, query string, records map[string]string) string {
	t.Helper()
	for range 10 {
		replaced := recordedSeries.ReplaceAllStringFunc(query, func(m string) string {
			parts := recordedSeries.FindStringSubmatch(m)
			expr, ok := records[parts[1]]
			if !ok {
				return m
			}
			if parts[2] == "" {
				return "(" + strings.TrimSpace(expr) + ")"
			}
			return "(" + strings.TrimSpace(expr) + ")" + strings.TrimSuffix(parts[2], "]") + ":1m]"
		})
		if replaced == query {
			return query
		}
		query = replaced
	}
	require.Fail(t, "recording rules read each other in a circle", query)
	return ""
}

// With prometheus-operator every replica of the exporter is a target of its own, each
// serving the same series, and the scheduler's pending gauge comes from its leader. Every
// dashboard query and every alert must give the same answer with one, two or five
// replicas: no join that fails on duplicate series, no sum that counts a series once per
// replica, no alert once per pod.
func TestEveryQueryGivesTheSameAnswerWithAnyNumberOfReplicas(t *testing.T) {
	queries := map[string]string{}
	records := map[string]string{}
	for where, expr := range dashboardExprs(t) {
		queries["dashboard "+where] = dashboards.Resolve(expr, ".*")
	}
	// Alerts that read only `up` stay silent here: every part is up. Their cases with two
	// replicas are promtool's.
	quiet := map[string]bool{}
	for _, g := range readRules(t).Groups {
		for _, r := range g.Rules {
			where := "alert " + r.Alert
			if r.Record != "" {
				where = "recording rule " + r.Record
				records[r.Record] = r.Expr
			}
			queries[where] = r.Expr
			quiet[where] = strings.HasPrefix(strings.TrimSpace(r.Expr), `max without (instance, pod) (up{`)
		}
	}
	for where, query := range queries {
		queries[where] = inlined(t, query, records)
	}
	answers := map[int]map[string]string{}
	for _, replicas := range []int{1, 2, 5} {
		api := startPrometheus(t, newLandscape(replicas))
		answers[replicas] = map[string]string{}
		for where, query := range queries {
			a, err := answer(api, query)
			if !assert.NoError(t, err, "%s with %d replicas: %s", where, replicas, query) {
				continue
			}
			answers[replicas][where] = a
		}
	}
	for _, where := range slices.Sorted(maps.Keys(queries)) {
		one, ok := answers[1][where]
		if !ok {
			continue
		}
		if quiet[where] {
			assert.Empty(t, one, "%s fires although every part is up", where)
		} else {
			assert.NotEmpty(t, one, "%s answers nothing in the landscape: its answer would be the same with any number of replicas for nothing", where)
		}
		for _, replicas := range []int{2, 5} {
			if got, ok := answers[replicas][where]; ok {
				assert.Equal(t, one, got, "%s answers differently with %d replicas than with one:\n%s", where, replicas, queries[where])
			}
		}
	}
}
