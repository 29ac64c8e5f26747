//go:build integration

package controller

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	opts := testenv.Options{}
	if os.Getenv("SEEDSCALER_BENCH_PROFILE") != "" {
		opts.ExtraAPIServerArgs = map[string]string{"profiling": "true"}
	}
	return testenv.RunTests(opts, func(e *testenv.Environment) int {
		env = e
		return m.Run()
	})
}

// scheduler is one running scheduler: its own manager, configuration and metrics registry.
// Every test starts its own with its own schedulerName and provider type, so that tests
// sharing the apiserver never schedule each other's shoots.
type scheduler struct {
	reconciler *Reconciler
	registry   *prometheus.Registry
	manager    manager.Manager
}

// startScheduler runs a scheduler with cfg (defaulted and validated) until the test ends.
func startScheduler(tb testing.TB, cfg *config.SchedulerConfiguration) *scheduler {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := buildScheduler(tb, ctx, cfg)
	done := make(chan error, 1)
	go func() { done <- s.manager.Start(ctx) }()
	tb.Cleanup(func() {
		cancel()
		require.NoError(tb, <-done)
	})
	return s
}

// buildScheduler builds a scheduler with cfg (defaulted and validated) without starting it.
func buildScheduler(tb testing.TB, ctx context.Context, cfg *config.SchedulerConfiguration) *scheduler {
	tb.Helper()
	return buildSchedulerFor(tb, ctx, env.Config, cfg)
}

// buildSchedulerFor is buildScheduler talking to the apiserver with restConfig.
func buildSchedulerFor(tb testing.TB, ctx context.Context, restConfig *rest.Config, cfg *config.SchedulerConfiguration) *scheduler {
	tb.Helper()
	config.Default(cfg)
	require.NoError(tb, config.Validate(cfg))
	opts := manager.Options{
		Scheme:  env.Scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		// Several schedulers run one after another in this process.
		Controller: ctrlconfig.Controller{SkipNameValidation: ptr.To(true)},
	}
	CacheOptions(cfg)(&opts)
	mgr, err := manager.New(restConfig, opts)
	require.NoError(tb, err)
	s := &scheduler{reconciler: &Reconciler{Config: cfg}, registry: prometheus.NewPedanticRegistry(), manager: mgr}
	require.NoError(tb, s.reconciler.AddToManager(ctx, mgr, s.registry))
	return s
}

// metricValue is the value of the series of the metric name in reg with label=value (no
// label when label is empty), or 0 when reg has no such series.
func metricValue(tb testing.TB, reg prometheus.Gatherer, name, label, value string) float64 {
	tb.Helper()
	labels := map[string]string{}
	if label != "" {
		labels[label] = value
	}
	v, _, err := testenv.Gathered(reg, name, labels)
	require.NoError(tb, err)
	return v
}

// createSeed creates a seed and then its status (a subresource), as a gardenlet would.
func createSeed(tb testing.TB, seed *gardencorev1beta1.Seed) {
	tb.Helper()
	require.NoError(tb, putSeed(context.Background(), seed))
}

func putSeed(ctx context.Context, seed *gardencorev1beta1.Seed) error {
	status := seed.Status.DeepCopy()
	if err := env.Client.Create(ctx, seed); err != nil {
		return fmt.Errorf("creating seed %s: %w", seed.Name, err)
	}
	seed.Status = *status
	if err := env.Client.Status().Update(ctx, seed); err != nil {
		return fmt.Errorf("writing the status of seed %s: %w", seed.Name, err)
	}
	return nil
}

// inParallel calls do on every item from 8 goroutines, like 8 clients, and fails the test
// with every error.
func inParallel[T any](tb testing.TB, items []T, do func(T) error) {
	tb.Helper()
	work := make(chan T)
	errs := make(chan error, len(items))
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for item := range work {
				if err := do(item); err != nil {
					errs <- err
				}
			}
		}()
	}
	for _, item := range items {
		work <- item
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(tb, err)
	}
}

func createNamespace(tb testing.TB, name string) {
	tb.Helper()
	require.NoError(tb, env.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}))
}

// createCloudProfile creates a CloudProfile of a provider type with the given regions.
func createCloudProfile(tb testing.TB, name string, selector *gardencorev1beta1.SeedSelector, regions ...string) {
	tb.Helper()
	cp := &gardencorev1beta1.CloudProfile{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       gardencorev1beta1.CloudProfileSpec{Type: name, SeedSelector: selector},
	}
	for _, r := range regions {
		cp.Spec.Regions = append(cp.Spec.Regions, gardencorev1beta1.Region{Name: r})
	}
	require.NoError(tb, env.Client.Create(context.Background(), cp))
}
