//go:build integration

package exporter

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/promrunner"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// env is the real kube-apiserver and etcd the integration tests share.
var env *testenv.Environment

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(testenv.Options{}, func(e *testenv.Environment) int {
		env = e
		return m.Run()
	}))
}

// startExporter runs an exporter against the test apiserver until the test ends, and
// returns a registry serving its collector once its caches have synced.
func startExporter(t *testing.T) *prometheus.Registry {
	t.Helper()
	ctx, cancel := context.WithCancel(logr.NewContext(context.Background(), testr.New(t)))
	exp, err := New(ctx, env.Config, clock.RealClock{})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- exp.Start(ctx) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })
	require.Eventually(t, func() bool { return exp.Ready() == nil }, 30*time.Second, 50*time.Millisecond)
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(exp.Collector()))
	return reg
}

// value returns the value of the series of a metric with the given labels, and whether
// the series exists.
func value(t *testing.T, g prometheus.Gatherer, metric string, labels map[string]string) (float64, bool) {
	t.Helper()
	v, ok, err := testenv.Gathered(g, metric, labels)
	require.NoError(t, err)
	return v, ok
}

// eventuallyValue waits until a series has the wanted value.
func eventuallyValue(t *testing.T, g prometheus.Gatherer, want float64, metric string, labels map[string]string) {
	t.Helper()
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		got, ok := value(t, g, metric, labels)
		assert.True(c, ok, "no series %s%v", metric, labels)
		assert.Equal(c, want, got, "%s%v", metric, labels)
	}, 30*time.Second, 50*time.Millisecond)
}

func createSeed(ctx context.Context, t *testing.T, seed *gardencorev1beta1.Seed) {
	t.Helper()
	status := seed.Status
	require.NoError(t, env.Client.Create(ctx, seed))
	seed.Status = status
	require.NoError(t, env.Client.Status().Update(ctx, seed))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), seed) })
}

func createNamespace(ctx context.Context, t *testing.T, name string) {
	t.Helper()
	require.NoError(t, env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}))
}

// Shoots are created, bound, migrated and deleted against a real apiserver; the usage,
// unscheduled and info series follow.
func TestSeriesFollowShootsInARealAPIServer(t *testing.T) {
	ctx := context.Background()
	createNamespace(ctx, t, "garden-follow")
	createSeed(ctx, t, builders.MakeSeed("follow-a").Provider("aws", "eu-west-1").Allocatable(3).Ready().Obj())
	createSeed(ctx, t, builders.MakeSeed("follow-b").Provider("aws", "eu-west-1").Allocatable(3).Ready().Obj())
	reg := startExporter(t)

	usageOf := func(seed string) map[string]string { return map[string]string{"name": seed, "resource": "shoots"} }
	unscheduled := map[string]string{"provider": "aws", "region": "eu-west-1"}
	eventuallyValue(t, reg, 0, "garden_seed_usage", usageOf("follow-a"))
	eventuallyValue(t, reg, 3, "garden_seed_allocatable", usageOf("follow-a"))
	eventuallyValue(t, reg, 1, "garden_seed_condition", map[string]string{"name": "follow-a", "condition": "GardenletReady", "status": "True"})

	shoot := builders.MakeShoot("garden-follow", "s1").Provider("aws", "eu-west-1").Obj()
	require.NoError(t, env.Client.Create(ctx, shoot))
	eventuallyValue(t, reg, 1, "garden_shoots_unscheduled", unscheduled)
	eventuallyValue(t, reg, 1, "garden_shoot_info", map[string]string{"name": "s1", "namespace": "garden-follow", "seed": ""})

	shoot.Spec.SeedName = ptr.To("follow-a")
	require.NoError(t, env.Client.Update(ctx, shoot))
	eventuallyValue(t, reg, 1, "garden_seed_usage", usageOf("follow-a"))
	eventuallyValue(t, reg, 1, "garden_shoot_info", map[string]string{"name": "s1", "namespace": "garden-follow", "seed": "follow-a"})
	// No shoot is unscheduled any more; the region's series stays, at 0.
	eventuallyValue(t, reg, 0, "garden_shoots_unscheduled", unscheduled)

	// The control plane still runs on follow-b: both seeds count the shoot.
	shoot.Status.SeedName = ptr.To("follow-b")
	require.NoError(t, env.Client.Status().Update(ctx, shoot))
	eventuallyValue(t, reg, 1, "garden_seed_usage", usageOf("follow-b"))
	eventuallyValue(t, reg, 1, "garden_seed_usage", usageOf("follow-a"))

	require.NoError(t, env.Client.Delete(ctx, shoot))
	eventuallyValue(t, reg, 0, "garden_seed_usage", usageOf("follow-a"))
	eventuallyValue(t, reg, 0, "garden_seed_usage", usageOf("follow-b"))
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		_, ok := value(t, reg, "garden_shoot_info", map[string]string{"name": "s1", "namespace": "garden-follow"})
		assert.False(c, ok, "a deleted shoot has no info series")
	}, 30*time.Second, 50*time.Millisecond)
}

// A real Prometheus scrapes the exporter on loopback: garden_seed_usage of each seed is
// queryable and right, an empty seed included.
func TestPrometheusScrapesSeedUsage(t *testing.T) {
	bin, err := testenv.Tool("prometheus")
	require.NoError(t, err)
	ctx := context.Background()
	createNamespace(ctx, t, "garden-prom")
	seeds := map[string]int{"prom-a": 3, "prom-b": 1, "prom-empty": 0}
	for name, shoots := range seeds {
		createSeed(ctx, t, builders.MakeSeed(name).Allocatable(10).Ready().Obj())
		for i := range shoots {
			require.NoError(t, env.Client.Create(ctx, builders.MakeShoot("garden-prom", fmt.Sprintf("%s-%d", name, i)).SeedName(name).Obj()))
		}
	}
	reg := startExporter(t)

	listener, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	server := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(func() { _ = server.Close() })

	prom, err := promrunner.Start(ctx, promrunner.Options{Binary: bin, ScrapeInterval: 500 * time.Millisecond,
		Targets: []promrunner.Target{{Job: "exporter", Addresses: []string{listener.Addr().String()}}}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = prom.Stop() })

	require.EventuallyWithT(t, func(c *assert.CollectT) {
		got, err := queryBySeed(prom, `garden_seed_usage{job="exporter",resource="shoots",name=~"prom-.*"}`)
		if !assert.NoError(c, err) {
			return
		}
		want := map[string]float64{}
		for name, n := range seeds {
			want[name] = float64(n)
		}
		assert.Equal(c, want, got)
	}, 60*time.Second, 250*time.Millisecond)
}

// queryBySeed runs an instant query and returns the value of each series by its name label.
func queryBySeed(prom *promrunner.Prometheus, query string) (map[string]float64, error) {
	series, err := prom.Query(query)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, s := range series {
		out[s.Labels["name"]] = s.Value
	}
	return out, nil
}
