//go:build integration

package autoscaler_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
	cmv1beta2 "k8s.io/metrics/pkg/apis/custom_metrics/v1beta2"
	emv1beta1 "k8s.io/metrics/pkg/apis/external_metrics/v1beta1"
	custommetrics "k8s.io/metrics/pkg/client/custom_metrics"
	externalmetrics "k8s.io/metrics/pkg/client/external_metrics"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(testenv.Options{}, func(e *testenv.Environment) int {
		env = e
		// SEEDSCALER_TEST_V=1 shows the controller's decisions.
		if v := os.Getenv("SEEDSCALER_TEST_V"); v != "" {
			fs := flag.NewFlagSet("klog", flag.ContinueOnError)
			klog.InitFlags(fs)
			_ = fs.Set("logtostderr", "true")
			_ = fs.Set("v", v)
		}
		return m.Run()
	}))
}

// fakeMetrics is an in-test custom metrics API: garden_seed_usage per resource and seed,
// and the pending-fit metric per ManagedSeedSet. It stands in for the adapter.
type fakeMetrics struct {
	mu      sync.Mutex
	clock   *clocktesting.FakeClock
	usage   map[string]map[string]float64 // resource → seed → value
	pending map[string]float64            // set name → pending shoots
	down    bool
	// forecasts are the external forecast metrics: metric → set name → value.
	forecasts map[string]map[string]float64
	// forecastSelectors are the label selectors of the forecast requests, newest last.
	forecastSelectors []string
}

func newFakeMetrics(clock *clocktesting.FakeClock) *fakeMetrics {
	return &fakeMetrics{clock: clock, usage: map[string]map[string]float64{}, pending: map[string]float64{}, forecasts: map[string]map[string]float64{}}
}

// setForecast serves the forecast metric of a set with the given value.
func (f *fakeMetrics) setForecast(metric, set string, v float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.forecasts[metric] == nil {
		f.forecasts[metric] = map[string]float64{}
	}
	f.forecasts[metric][set] = v
}

// lastForecastSelector is the label selector of the latest forecast request.
func (f *fakeMetrics) lastForecastSelector() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.forecastSelectors) == 0 {
		return ""
	}
	return f.forecastSelectors[len(f.forecastSelectors)-1]
}

// fakeExternal is the external metrics API of fakeMetrics: the forecasts, by the set a
// request's managedseedset label names.
type fakeExternal struct{ f *fakeMetrics }

func (e fakeExternal) NamespacedMetrics(ns string) externalmetrics.MetricsInterface {
	return fakeExternalScope{f: e.f, namespace: ns}
}

type fakeExternalScope struct {
	f         *fakeMetrics
	namespace string
}

func (s fakeExternalScope) List(metric string, selector labels.Selector) (*emv1beta1.ExternalMetricValueList, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.forecastSelectors = append(s.f.forecastSelectors, selector.String())
	set, _ := selector.RequiresExactMatch("managedseedset")
	v, ok := s.f.forecasts[metric][set]
	if !ok {
		return nil, fmt.Errorf("the server could not find the metric %s for %s", metric, selector)
	}
	return &emv1beta1.ExternalMetricValueList{Items: []emv1beta1.ExternalMetricValue{{
		MetricName:   metric,
		MetricLabels: map[string]string{"namespace": s.namespace, "managedseedset": set},
		Timestamp:    metav1.NewTime(s.f.clock.Now()),
		Value:        *resource.NewMilliQuantity(int64(v*1000), resource.DecimalSI),
	}}}, nil
}

func (f *fakeMetrics) setUsage(res, seed string, v float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.usage[res] == nil {
		f.usage[res] = map[string]float64{}
	}
	f.usage[res][seed] = v
}

// dropUsage removes a seed's series, as when its samples went stale.
func (f *fakeMetrics) dropUsage(res, seed string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.usage[res], seed)
}

func (f *fakeMetrics) setPending(set string, v float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending[set] = v
}

func (f *fakeMetrics) setDown(down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = down
}

func (f *fakeMetrics) RootScopedMetrics() custommetrics.MetricsInterface { return &fakeScope{f: f} }
func (f *fakeMetrics) NamespacedMetrics(ns string) custommetrics.MetricsInterface {
	return &fakeScope{f: f, namespace: ns}
}

type fakeScope struct {
	f         *fakeMetrics
	namespace string
}

var errUnavailable = fmt.Errorf("the server is currently unable to handle the request (get seeds.core.gardener.cloud *)")

func (s *fakeScope) GetForObject(gk schema.GroupKind, name, metric string, _ labels.Selector) (*cmv1beta2.MetricValue, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	if s.f.down {
		return nil, errUnavailable
	}
	v, ok := s.f.pending[name]
	if gk.Kind != "ManagedSeedSet" || metric != autoscaler.MetricPendingShoots || !ok {
		return nil, fmt.Errorf("%s of %s %s/%s not found", metric, gk.Kind, s.namespace, name)
	}
	return &cmv1beta2.MetricValue{
		DescribedObject: corev1.ObjectReference{Kind: gk.Kind, Namespace: s.namespace, Name: name},
		Metric:          cmv1beta2.MetricIdentifier{Name: metric},
		Timestamp:       metav1.NewTime(s.f.clock.Now()),
		Value:           *resource.NewQuantity(int64(v), resource.DecimalSI),
	}, nil
}

func (s *fakeScope) GetForObjects(gk schema.GroupKind, _ labels.Selector, metric string, metricSelector labels.Selector) (*cmv1beta2.MetricValueList, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	if s.f.down {
		return nil, errUnavailable
	}
	if gk.Kind != "Seed" || metric != autoscaler.MetricSeedUsage {
		return nil, fmt.Errorf("no metric %s for %s", metric, gk.Kind)
	}
	out := &cmv1beta2.MetricValueList{}
	for res, seeds := range s.f.usage {
		if !metricSelector.Matches(labels.Set{"resource": res}) {
			continue
		}
		// The fake ignores the object selector; the controller keeps only its own seeds.
		for seed, v := range seeds {
			out.Items = append(out.Items, cmv1beta2.MetricValue{
				DescribedObject: corev1.ObjectReference{Kind: "Seed", Name: seed},
				Metric:          cmv1beta2.MetricIdentifier{Name: metric},
				Timestamp:       metav1.NewTime(s.f.clock.Now()),
				Value:           *resource.NewQuantity(int64(v), resource.DecimalSI),
			})
		}
	}
	return out, nil
}

// fixture is one test's namespace, set, seeds and autoscaler.
type fixture struct {
	t       *testing.T
	ctx     context.Context
	ns      string
	name    string
	clock   *clocktesting.FakeClock
	metrics *fakeMetrics
}

func newFixture(t *testing.T, name string) *fixture {
	t.Helper()
	ctx := t.Context()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	require.NoError(t, env.Client.Create(ctx, ns))
	clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
	return &fixture{t: t, ctx: ctx, ns: name, name: name, clock: clock, metrics: newFakeMetrics(clock)}
}

// createSet creates the GEP's example ManagedSeedSet under the fixture's name, selecting
// by a label unique to the test, with the given replicas and status.selector.
func (f *fixture) createSet(replicas int32, annotations map[string]string) *seedmanagementv1alpha1.ManagedSeedSet {
	f.t.Helper()
	return f.createSetWith(replicas, annotations, nil)
}

// updateAutoscaler changes the fixture's SeedAutoscaler, reading it afresh after a conflict
// with the controller's status writes.
func (f *fixture) updateAutoscaler(mutate func(*autoscalingv1alpha1.SeedAutoscaler)) {
	f.t.Helper()
	require.NoError(f.t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		sa := f.get()
		mutate(sa)
		return env.Client.Update(f.ctx, sa)
	}))
}

// createSetWith is createSet with mutate applied to the set before it is created.
func (f *fixture) createSetWith(replicas int32, annotations map[string]string, mutate func(*seedmanagementv1alpha1.ManagedSeedSet)) *seedmanagementv1alpha1.ManagedSeedSet {
	f.t.Helper()
	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(f.t, testenv.ReadExample("managedseedset.yaml", set))
	set.Name, set.Namespace, set.Annotations = f.name, f.ns, annotations
	set.Spec.Replicas = ptr.To(replicas)
	set.Spec.Selector.MatchLabels["set"] = seedmanagementv1alpha1.LabelValue(f.name)
	set.Spec.Template.Labels["set"] = f.name
	set.Spec.ShootTemplate.Labels["set"] = f.name
	set.Spec.Template.Spec.SeedTemplate.Labels["set"] = f.name
	if mutate != nil {
		mutate(set)
	}
	require.NoError(f.t, env.Client.Create(f.ctx, set))
	set.Status.Replicas = replicas
	set.Status.Selector = "foo=bar,set=" + f.name
	require.NoError(f.t, env.Client.Status().Update(f.ctx, set))
	return set
}

// addReplica creates a replica's ManagedSeed and its ready Seed with 100 allocatable shoots
// and the given usage in the metrics.
func (f *fixture) addReplica(set *seedmanagementv1alpha1.ManagedSeedSet, name string, shoots float64, protected bool) {
	f.t.Helper()
	f.addManagedSeed(set, name, protected)
	f.addSeed(name, shoots, "foo", "bar", "set", f.name)
}

// addManagedSeed creates a replica's ManagedSeed from the set's template.
func (f *fixture) addManagedSeed(set *seedmanagementv1alpha1.ManagedSeedSet, name string, protected bool) {
	f.t.Helper()
	ms := &seedmanagementv1alpha1.ManagedSeed{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: f.ns, Labels: set.Spec.Template.Labels,
	}}
	if protected {
		ms.Annotations = map[string]string{seedmanagementv1alpha1.AnnotationProtectFromDeletion: "true"}
	}
	ms.Spec = *set.Spec.Template.Spec.DeepCopy()
	ms.Spec.Shoot = &seedmanagementv1alpha1.Shoot{Name: name}
	require.NoError(f.t, env.Client.Create(f.ctx, ms))
}

// addSeed creates a Seed ready for an hour of the test's clock, long past bootstrapping,
// with the given labels and 100 allocatable shoots, and the given usage in the metrics.
func (f *fixture) addSeed(name string, shoots float64, labels ...string) {
	f.t.Helper()
	f.metrics.setUsage(gardencorev1beta1.ResourceShoots, name, shoots)
	f.createSeed(name, f.clock.Now().Add(-time.Hour), labels...)
}

// createSeed creates a Seed ready since readySince, with the given labels and 100
// allocatable shoots.
func (f *fixture) createSeed(name string, readySince time.Time, labels ...string) {
	f.t.Helper()
	seed := builders.MakeSeed(name).Labels(labels...).Allocatable(100).Ready().Obj()
	for i := range seed.Status.Conditions {
		seed.Status.Conditions[i].LastTransitionTime = metav1.NewTime(readySince)
	}
	status := seed.Status
	require.NoError(f.t, env.Client.Create(f.ctx, seed))
	seed.Status = status
	require.NoError(f.t, env.Client.Status().Update(f.ctx, seed))
}

// createAutoscaler creates a SeedAutoscaler for the set on shoots utilization.
func (f *fixture) createAutoscaler(minR, maxR, utilization int32, behavior *autoscalingv1alpha1.SeedAutoscalerBehavior) *autoscalingv1alpha1.SeedAutoscaler {
	f.t.Helper()
	sa := &autoscalingv1alpha1.SeedAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: f.name, Namespace: f.ns},
		Spec: autoscalingv1alpha1.SeedAutoscalerSpec{
			ScaleTargetRef: autoscalingv1alpha1.CrossVersionObjectReference{
				APIVersion: seedmanagementv1alpha1.GroupVersion.String(), Kind: "ManagedSeedSet", Name: f.name,
			},
			MinReplicas: ptr.To(minR),
			MaxReplicas: maxR,
			Metrics: []autoscalingv1alpha1.MetricSpec{{
				Type: autoscalingv1alpha1.ResourceMetricSourceType,
				Resource: &autoscalingv1alpha1.ResourceMetricSource{Name: "shoots", Target: autoscalingv1alpha1.MetricTarget{
					Type: autoscalingv1alpha1.UtilizationMetricType, AverageUtilization: ptr.To(utilization),
				}},
			}},
			Behavior: behavior,
		},
	}
	require.NoError(f.t, env.Client.Create(f.ctx, sa))
	return sa
}

// start runs a new controller instance until the returned stop is called; a real manager
// with a fresh Reconciler, so two starts are a restart.
func (f *fixture) start(dryRun bool) (stop func()) {
	f.t.Helper()
	return f.startWith(func(_ manager.Manager, r *autoscaler.Reconciler) { r.DryRun = dryRun })
}

// startWith is start with the Reconciler changed by customize before it is added to the
// manager.
func (f *fixture) startWith(customize func(manager.Manager, *autoscaler.Reconciler)) (stop func()) {
	f.t.Helper()
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             ctrlConfig(),
	})
	require.NoError(f.t, err)
	instruments, err := autoscaler.NewInstruments(prometheus.NewRegistry())
	require.NoError(f.t, err)
	r := &autoscaler.Reconciler{
		Metrics: f.metrics, ExternalMetrics: fakeExternal{f.metrics}, Clock: f.clock, SyncPeriod: 100 * time.Millisecond, Instruments: instruments,
	}
	customize(mgr, r)
	ctx, cancel := context.WithCancel(f.ctx)
	require.NoError(f.t, r.AddToManager(ctx, mgr))
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
				f.t.Errorf("the manager stopped with an error: %v", err)
			}
		}
	}
	f.t.Cleanup(stop)
	return stop
}

func (f *fixture) get() *autoscalingv1alpha1.SeedAutoscaler {
	sa := &autoscalingv1alpha1.SeedAutoscaler{}
	require.NoError(f.t, env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: f.name}, sa))
	return sa
}

func (f *fixture) specReplicas() int32 {
	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(f.t, env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: f.name}, set))
	return ptr.Deref(set.Spec.Replicas, -1)
}
