package exporter

import (
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/membership"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// fixture is a set of objects fed through the same transforms, stores and handlers the
// informers use.
type fixture struct {
	src Sources
	// shoots is the Shoot informer's store, which the collector does not read but the
	// exporter holds.
	shoots toolscache.Store
	t      testing.TB
}

func newFixture(t testing.TB) *fixture {
	return &fixture{t: t, shoots: toolscache.NewStore(toolscache.MetaNamespaceKeyFunc), src: Sources{
		Seeds:           toolscache.NewStore(toolscache.MetaNamespaceKeyFunc),
		ManagedSeeds:    toolscache.NewStore(toolscache.MetaNamespaceKeyFunc),
		ManagedSeedSets: toolscache.NewStore(toolscache.MetaNamespaceKeyFunc),
		SeedAutoscalers: toolscache.NewStore(toolscache.MetaNamespaceKeyFunc),
		Usage:           usage.NewIndex(),
		Shoots:          newShootIndex(),
	}}
}

// toUnstructured renders a typed object as the dynamic informer receives it.
func toUnstructured(t testing.TB, obj runtime.Object, gvk string) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	require.NoError(t, err)
	u := &unstructured.Unstructured{Object: m}
	gv, kind, _ := strings.Cut(gvk, ", Kind=")
	u.SetAPIVersion(gv)
	u.SetKind(kind)
	return u
}

// addSeed stores a seed; edit changes its unstructured form first (to plant bad data).
func (f *fixture) addSeed(seed *gardencorev1beta1.Seed, edit func(map[string]any)) {
	u := toUnstructured(f.t, seed, gardencorev1beta1.GroupVersion.WithKind("Seed").String())
	if edit != nil {
		edit(u.Object)
	}
	obj, err := transformSeed(u)
	require.NoError(f.t, err)
	require.NoError(f.t, f.src.Seeds.Add(obj))
}

func (f *fixture) addShoot(shoot *gardencorev1beta1.Shoot) {
	obj, err := transformShoot(toUnstructured(f.t, shoot, gardencorev1beta1.GroupVersion.WithKind("Shoot").String()))
	require.NoError(f.t, err)
	require.NoError(f.t, f.shoots.Add(obj))
	usageHandler(f.src.Usage).OnAdd(obj, true)
	f.src.Shoots.Handler().OnAdd(obj, true)
}

// updateShoot feeds the Shoot informer's update from old to updated through the handlers
// the exporter registers on it, c's binding handler included with its clock at now.
func (f *fixture) updateShoot(c *Collector, now time.Time, old, updated *gardencorev1beta1.Shoot) {
	transform := func(shoot *gardencorev1beta1.Shoot) any {
		obj, err := transformShoot(toUnstructured(f.t, shoot, gardencorev1beta1.GroupVersion.WithKind("Shoot").String()))
		require.NoError(f.t, err)
		return obj
	}
	oldObj, newObj := transform(old), transform(updated)
	require.NoError(f.t, f.shoots.Update(newObj))
	for _, h := range []toolscache.ResourceEventHandler{usageHandler(f.src.Usage), f.src.Shoots.Handler(), c.bindingHandler(clocktesting.NewFakePassiveClock(now))} {
		h.OnUpdate(oldObj, newObj)
	}
}

func (f *fixture) addManagedSeed(ms *seedmanagementv1alpha1.ManagedSeed) {
	obj, err := transformManagedSeed(toUnstructured(f.t, ms, seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeed").String()))
	require.NoError(f.t, err)
	require.NoError(f.t, f.src.ManagedSeeds.Add(obj))
}

func (f *fixture) addManagedSeedSet(set *seedmanagementv1alpha1.ManagedSeedSet) {
	obj, err := transformManagedSeedSet(toUnstructured(f.t, set, seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet").String()))
	require.NoError(f.t, err)
	require.NoError(f.t, f.src.ManagedSeedSets.Add(obj))
}

func (f *fixture) addSeedAutoscaler(sa *autoscalingv1alpha1.SeedAutoscaler) {
	obj, err := transformSeedAutoscaler(toUnstructured(f.t, sa, autoscalingv1alpha1.GroupVersion.WithKind("SeedAutoscaler").String()))
	require.NoError(f.t, err)
	require.NoError(f.t, f.src.SeedAutoscalers.Add(obj))
}

var syncTime = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// landscape is the fixed set of objects of the unit tests: two seeds of a set, one seed
// of nobody with bad data in it, shoots bound (one of them 45 s after its creation, while
// the exporter watched), migrating and unscheduled, a set and an autoscaler.
func landscape(t *testing.T) *Collector {
	f := newFixture(t)
	c := NewCollector(f.src, logr.Discard())
	f.addSeed(builders.MakeSeed("seed-a").Allocatable(100).Ready().
		Labels(seedmanagementv1alpha1.LabelManagedSeedSet, "set-1", seedmanagementv1alpha1.LabelManagedSeedSetNamespace, "garden").Obj(), nil)
	// Empty, invisible, and its allocatable shoots do not parse.
	f.addSeed(builders.MakeSeed("seed-b").Provider("aws", "eu-central-1").Invisible().Allocatable(10).
		Condition(gardencorev1beta1.SeedGardenletReady, metav1.ConditionUnknown).
		Labels(seedmanagementv1alpha1.LabelManagedSeedSet, "set-1", seedmanagementv1alpha1.LabelManagedSeedSetNamespace, "garden").Obj(),
		func(obj map[string]any) {
			require.NoError(t, unstructured.SetNestedField(obj, "lots", "status", "allocatable", "shoots"))
		})
	// No provider: no garden_seed_info, everything else.
	f.addSeed(builders.MakeSeed("seed-c").Provider("", "").Allocatable(5).Obj(), nil)

	unbound := builders.MakeShoot("garden-p", "bound").Purpose(gardencorev1beta1.ShootPurposeProduction).Obj()
	unbound.CreationTimestamp = metav1.NewTime(syncTime.Add(-45 * time.Second))
	f.addShoot(unbound)
	bound := unbound.DeepCopy()
	bound.Spec.SeedName = ptr.To("seed-a")
	f.updateShoot(c, syncTime, unbound, bound)
	// Migrating from seed-b to seed-a: counted on both.
	f.addShoot(builders.MakeShoot("garden-p", "migrating").SeedName("seed-a").StatusSeedName("seed-b").Obj())
	f.addShoot(builders.MakeShoot("garden-p", "pending-1").Obj())
	f.addShoot(builders.MakeShoot("garden-q", "pending-2").Obj())
	f.addShoot(builders.MakeShoot("garden-q", "pending-aws").Provider("aws", "eu-central-1").Purpose(gardencorev1beta1.ShootPurposeTesting).Obj())

	f.addManagedSeedSet(&seedmanagementv1alpha1.ManagedSeedSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "set-1"},
		Spec:       seedmanagementv1alpha1.ManagedSeedSetSpec{Replicas: ptr.To[int32](3)},
		Status: seedmanagementv1alpha1.ManagedSeedSetStatus{Replicas: 2, ReadyReplicas: 1, PendingReplica: &seedmanagementv1alpha1.PendingReplica{
			Name: "set-1-2", Reason: seedmanagementv1alpha1.ShootReconcileFailedReason, Retries: ptr.To[int32](2),
		}},
	})
	f.addSeedAutoscaler(&autoscalingv1alpha1.SeedAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "set-1"},
		Spec: autoscalingv1alpha1.SeedAutoscalerSpec{
			MinReplicas: ptr.To[int32](0), MaxReplicas: 10,
			Metrics: []autoscalingv1alpha1.MetricSpec{{Type: autoscalingv1alpha1.ResourceMetricSourceType, Resource: &autoscalingv1alpha1.ResourceMetricSource{
				Name: gardencorev1beta1.ResourceShoots, Target: autoscalingv1alpha1.MetricTarget{Type: autoscalingv1alpha1.UtilizationMetricType, AverageUtilization: ptr.To[int32](70)},
			}}, {Type: autoscalingv1alpha1.ResourceMetricSourceType, Resource: &autoscalingv1alpha1.ResourceMetricSource{
				Name: "persistent-volumes", Target: autoscalingv1alpha1.MetricTarget{Type: autoscalingv1alpha1.AverageValueMetricType, AverageValue: ptr.To(resource.MustParse("150"))},
			}}},
		},
		Status: autoscalingv1alpha1.SeedAutoscalerStatus{
			CurrentReplicas: 2, DesiredReplicas: 3,
			CurrentMetrics: []autoscalingv1alpha1.MetricStatus{{Type: autoscalingv1alpha1.ResourceMetricSourceType, Resource: &autoscalingv1alpha1.ResourceMetricStatus{
				Name: gardencorev1beta1.ResourceShoots, Current: autoscalingv1alpha1.MetricValueStatus{AverageUtilization: ptr.To[int32](82), AverageValue: ptr.To(resource.MustParse("82"))},
			}}, {Type: autoscalingv1alpha1.ResourceMetricSourceType, Resource: &autoscalingv1alpha1.ResourceMetricStatus{
				Name: "persistent-volumes", Current: autoscalingv1alpha1.MetricValueStatus{AverageValue: ptr.To(resource.MustParse("120500m"))},
			}}},
			Conditions: []metav1.Condition{
				{Type: autoscalingv1alpha1.SeedAutoscalerAbleToScale, Status: metav1.ConditionTrue, Reason: "ReadyForNewScale"},
				{Type: autoscalingv1alpha1.SeedAutoscalerScalingActive, Status: metav1.ConditionFalse, Reason: "IncompleteMetrics",
					Message: "scaling in is held, scaling out only on what is known: seed aws-eu1-2: garden_seed_usage is missing"},
				{Type: autoscalingv1alpha1.SeedAutoscalerScalingLimited, Status: metav1.ConditionFalse, Reason: "DesiredWithinRange"},
			},
		},
	})

	c.MarkSynced(syncTime)
	return c
}

func TestCollectorExposition(t *testing.T) {
	c := landscape(t)
	expected := `
# HELP garden_exporter_last_cache_sync_timestamp_seconds Unix time at which the exporter's informer caches last finished syncing; 0 until they have.
# TYPE garden_exporter_last_cache_sync_timestamp_seconds gauge
garden_exporter_last_cache_sync_timestamp_seconds 1.7954244e+09
# HELP garden_exporter_scrape_errors_total Bad data a scrape skipped, by kind.
# TYPE garden_exporter_scrape_errors_total counter
garden_exporter_scrape_errors_total{kind="duplicate_series"} 0
garden_exporter_scrape_errors_total{kind="invalid_quantity"} 1
garden_exporter_scrape_errors_total{kind="malformed_object"} 0
garden_exporter_scrape_errors_total{kind="missing_provider"} 1
# HELP garden_managedseedset_spec_replicas Desired number of replicas of a ManagedSeedSet (spec.replicas).
# TYPE garden_managedseedset_spec_replicas gauge
garden_managedseedset_spec_replicas{name="set-1",namespace="garden"} 3
# HELP garden_managedseedset_status_pending_replica_retries Retries of the pending replica's failed shoot, 0 when no replica is pending (status.pendingReplica.retries).
# TYPE garden_managedseedset_status_pending_replica_retries gauge
garden_managedseedset_status_pending_replica_retries{name="set-1",namespace="garden"} 2
# HELP garden_managedseedset_status_ready_replicas Number of replicas of a ManagedSeedSet whose Shoot and Seed are ready (status.readyReplicas).
# TYPE garden_managedseedset_status_ready_replicas gauge
garden_managedseedset_status_ready_replicas{name="set-1",namespace="garden"} 1
# HELP garden_managedseedset_status_replicas Number of replicas a ManagedSeedSet has (status.replicas).
# TYPE garden_managedseedset_status_replicas gauge
garden_managedseedset_status_replicas{name="set-1",namespace="garden"} 2
# HELP garden_seed_allocatable Amount of a resource available to shoots on the seed (status.allocatable).
# TYPE garden_seed_allocatable gauge
garden_seed_allocatable{name="seed-a",resource="shoots"} 100
garden_seed_allocatable{name="seed-c",resource="shoots"} 5
# HELP garden_seed_capacity Total amount of a resource the seed has (status.capacity).
# TYPE garden_seed_capacity gauge
garden_seed_capacity{name="seed-a",resource="shoots"} 100
garden_seed_capacity{name="seed-b",resource="shoots"} 10
garden_seed_capacity{name="seed-c",resource="shoots"} 5
# HELP garden_seed_condition Status of a seed condition: 1 for the current status, 0 for the others.
# TYPE garden_seed_condition gauge
garden_seed_condition{condition="GardenletReady",name="seed-a",status="False"} 0
garden_seed_condition{condition="GardenletReady",name="seed-a",status="True"} 1
garden_seed_condition{condition="GardenletReady",name="seed-a",status="Unknown"} 0
garden_seed_condition{condition="GardenletReady",name="seed-b",status="False"} 0
garden_seed_condition{condition="GardenletReady",name="seed-b",status="True"} 0
garden_seed_condition{condition="GardenletReady",name="seed-b",status="Unknown"} 1
# HELP garden_seed_info Information about a seed; the value is always 1.
# TYPE garden_seed_info gauge
garden_seed_info{managedseedset="set-1",name="seed-a",namespace="garden",provider="gcp",region="europe-west1",visible="true"} 1
garden_seed_info{managedseedset="set-1",name="seed-b",namespace="garden",provider="aws",region="eu-central-1",visible="false"} 1
# HELP garden_seed_usage Amount of a resource shoots use on the seed, counting spec.seedName and a different status.seedName.
# TYPE garden_seed_usage gauge
garden_seed_usage{name="seed-a",resource="shoots"} 2
garden_seed_usage{name="seed-b",resource="shoots"} 1
garden_seed_usage{name="seed-c",resource="shoots"} 0
# HELP garden_seedautoscaler_condition Status of a SeedAutoscaler condition: 1 for the current status, 0 for the others.
# TYPE garden_seedautoscaler_condition gauge
garden_seedautoscaler_condition{condition="AbleToScale",name="set-1",namespace="garden",status="False"} 0
garden_seedautoscaler_condition{condition="AbleToScale",name="set-1",namespace="garden",status="True"} 1
garden_seedautoscaler_condition{condition="AbleToScale",name="set-1",namespace="garden",status="Unknown"} 0
garden_seedautoscaler_condition{condition="ScalingActive",name="set-1",namespace="garden",status="False"} 1
garden_seedautoscaler_condition{condition="ScalingActive",name="set-1",namespace="garden",status="True"} 0
garden_seedautoscaler_condition{condition="ScalingActive",name="set-1",namespace="garden",status="Unknown"} 0
garden_seedautoscaler_condition{condition="ScalingLimited",name="set-1",namespace="garden",status="False"} 1
garden_seedautoscaler_condition{condition="ScalingLimited",name="set-1",namespace="garden",status="True"} 0
garden_seedautoscaler_condition{condition="ScalingLimited",name="set-1",namespace="garden",status="Unknown"} 0
# HELP garden_seedautoscaler_condition_reason Reason of a SeedAutoscaler condition; the value is always 1, one series per condition with a reason.
# TYPE garden_seedautoscaler_condition_reason gauge
garden_seedautoscaler_condition_reason{condition="AbleToScale",name="set-1",namespace="garden",reason="ReadyForNewScale"} 1
garden_seedautoscaler_condition_reason{condition="ScalingActive",name="set-1",namespace="garden",reason="IncompleteMetrics"} 1
garden_seedautoscaler_condition_reason{condition="ScalingLimited",name="set-1",namespace="garden",reason="DesiredWithinRange"} 1
# HELP garden_seedautoscaler_metric_current Current value of a SeedAutoscaler metric, in its target's unit (percent for Utilization, per seed for AverageValue).
# TYPE garden_seedautoscaler_metric_current gauge
garden_seedautoscaler_metric_current{metric="persistent-volumes",name="set-1",namespace="garden"} 120.5
garden_seedautoscaler_metric_current{metric="shoots",name="set-1",namespace="garden"} 82
# HELP garden_seedautoscaler_metric_target Target value of a SeedAutoscaler metric (averageUtilization in percent, or averageValue per seed).
# TYPE garden_seedautoscaler_metric_target gauge
garden_seedautoscaler_metric_target{metric="persistent-volumes",name="set-1",namespace="garden"} 150
garden_seedautoscaler_metric_target{metric="shoots",name="set-1",namespace="garden"} 70
# HELP garden_seedautoscaler_spec_max_replicas Upper bound of replicas of a SeedAutoscaler (spec.maxReplicas).
# TYPE garden_seedautoscaler_spec_max_replicas gauge
garden_seedautoscaler_spec_max_replicas{name="set-1",namespace="garden"} 10
# HELP garden_seedautoscaler_spec_min_replicas Lower bound of replicas of a SeedAutoscaler (spec.minReplicas).
# TYPE garden_seedautoscaler_spec_min_replicas gauge
garden_seedautoscaler_spec_min_replicas{name="set-1",namespace="garden"} 0
# HELP garden_seedautoscaler_status_current_replicas Replicas of a SeedAutoscaler's target as last seen (status.currentReplicas).
# TYPE garden_seedautoscaler_status_current_replicas gauge
garden_seedautoscaler_status_current_replicas{name="set-1",namespace="garden"} 2
# HELP garden_seedautoscaler_status_desired_replicas Replicas a SeedAutoscaler last decided on (status.desiredReplicas).
# TYPE garden_seedautoscaler_status_desired_replicas gauge
garden_seedautoscaler_status_desired_replicas{name="set-1",namespace="garden"} 3
# HELP garden_shoot_info Information about a shoot; the value is always 1.
# TYPE garden_shoot_info gauge
garden_shoot_info{name="bound",namespace="garden-p",provider="gcp",purpose="production",region="europe-west1",seed="seed-a"} 1
garden_shoot_info{name="migrating",namespace="garden-p",provider="gcp",purpose="",region="europe-west1",seed="seed-a"} 1
garden_shoot_info{name="pending-1",namespace="garden-p",provider="gcp",purpose="",region="europe-west1",seed=""} 1
garden_shoot_info{name="pending-2",namespace="garden-q",provider="gcp",purpose="",region="europe-west1",seed=""} 1
garden_shoot_info{name="pending-aws",namespace="garden-q",provider="aws",purpose="testing",region="eu-central-1",seed=""} 1
# HELP garden_shoot_scheduling_wait_seconds Seconds from a shoot's creation to the update that set its spec.seedName, for shoots the exporter saw without a seed.
# TYPE garden_shoot_scheduling_wait_seconds histogram
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="1"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="2"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="5"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="10"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="15"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="20"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="30"} 0
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="45"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="60"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="90"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="120"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="180"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="300"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="600"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="900"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="1800"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="3600"} 1
garden_shoot_scheduling_wait_seconds_bucket{managedseedset="set-1",namespace="garden",region="europe-west1",le="+Inf"} 1
garden_shoot_scheduling_wait_seconds_sum{managedseedset="set-1",namespace="garden",region="europe-west1"} 45
garden_shoot_scheduling_wait_seconds_count{managedseedset="set-1",namespace="garden",region="europe-west1"} 1
# HELP garden_shoots_unscheduled Number of shoots without spec.seedName.
# TYPE garden_shoots_unscheduled gauge
garden_shoots_unscheduled{provider="aws",region="eu-central-1"} 1
garden_shoots_unscheduled{provider="gcp",region="europe-west1"} 2
`
	require.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(expected)))
}

// Every scrape that meets bad data counts it again: the counter says how often series
// went missing, and a rate() of it alerts while the bad object is there.
func TestBadDataIsCountedPerScrape(t *testing.T) {
	c := landscape(t)
	for range 3 {
		require.Equal(t, 5, testutil.CollectAndCount(c, "garden_seed_capacity", "garden_seed_allocatable"))
	}
	assert.Equal(t, 3.0, testutil.ToFloat64(c.scrapeErrors.WithLabelValues(errorInvalidQuantity)))
	assert.Equal(t, 3.0, testutil.ToFloat64(c.scrapeErrors.WithLabelValues(errorMissingProvider)))
}

// A condition type listed twice would make the same series twice, which fails the
// scrape's gathering: the first wins, and the second is counted.
func TestDuplicateConditionsAreSkippedAndCounted(t *testing.T) {
	f := newFixture(t)
	f.addSeed(builders.MakeSeed("seed-a").Ready().Obj(), func(obj map[string]any) {
		conditions := obj["status"].(map[string]any)["conditions"].([]any)
		again := runtime.DeepCopyJSONValue(conditions[0]).(map[string]any)
		again["status"] = "False"
		obj["status"].(map[string]any)["conditions"] = append(conditions, again)
	})
	c := NewCollector(f.src, logr.Discard())
	require.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(`
# HELP garden_seed_condition Status of a seed condition: 1 for the current status, 0 for the others.
# TYPE garden_seed_condition gauge
garden_seed_condition{condition="GardenletReady",name="seed-a",status="False"} 0
garden_seed_condition{condition="GardenletReady",name="seed-a",status="True"} 1
garden_seed_condition{condition="GardenletReady",name="seed-a",status="Unknown"} 0
`), "garden_seed_condition"))
	assert.Equal(t, 1.0, testutil.ToFloat64(c.scrapeErrors.WithLabelValues(errorDuplicateSeries)))
}

func TestQuantityValue(t *testing.T) {
	for _, tc := range []struct {
		raw     any
		want    float64
		wantErr string
	}{
		{raw: int64(100), want: 100},
		{raw: 2.5, want: 2.5},
		{raw: "1.5k", want: 1500},
		{raw: "250m", want: 0.25},
		{raw: "lots", wantErr: `quantity "lots"`},
		{raw: "92E3372036854775807", wantErr: `the exponent 3372036854775807 is beyond ±308`},
		{raw: nil, wantErr: "missing"},
		{raw: true, wantErr: "a bool, neither a number nor a string"},
	} {
		got, err := quantityValue(tc.raw)
		if tc.wantErr != "" {
			assert.ErrorContains(t, err, tc.wantErr, "%v", tc.raw)
			continue
		}
		assert.NoError(t, err, "%v", tc.raw)
		assert.Equal(t, tc.want, got, "%v", tc.raw)
	}
}

// The shoot index follows a shoot through binding, migration and deletion, and a tombstone
// (a delete the informer missed) forgets it as well.
func TestShootIndexFollowsEvents(t *testing.T) {
	f := newFixture(t)
	c := NewCollector(f.src, logr.Discard())
	pending := builders.MakeShoot("garden-p", "a").Obj()
	bound := builders.MakeShoot("garden-p", "a").SeedName("seed-a").Obj()
	migrating := builders.MakeShoot("garden-p", "a").SeedName("seed-a").StatusSeedName("seed-b").Obj()
	handlers := []toolscache.ResourceEventHandler{usageHandler(f.src.Usage), f.src.Shoots.Handler()}
	transform := func(s *gardencorev1beta1.Shoot) any {
		obj, err := transformShoot(toUnstructured(t, s, gardencorev1beta1.GroupVersion.WithKind("Shoot").String()))
		require.NoError(t, err)
		return obj
	}
	unscheduled := func() int {
		f.src.Shoots.mu.Lock()
		defer f.src.Shoots.mu.Unlock()
		return f.src.Shoots.unscheduled[providerRegion{"gcp", "europe-west1"}]
	}

	for _, h := range handlers {
		h.OnAdd(transform(pending), false)
	}
	assert.Equal(t, 1, unscheduled())
	assert.Equal(t, 1, testutil.CollectAndCount(c, "garden_shoot_info"))

	for _, h := range handlers {
		h.OnUpdate(transform(pending), transform(bound))
	}
	assert.Equal(t, 0, unscheduled())
	assert.Equal(t, 1, f.src.Usage.Count("seed-a"))

	for _, h := range handlers {
		h.OnUpdate(transform(bound), transform(migrating))
	}
	assert.Equal(t, 1, f.src.Usage.Count("seed-a"))
	assert.Equal(t, 1, f.src.Usage.Count("seed-b"))

	for _, h := range handlers {
		h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "garden-p/a", Obj: transform(migrating)})
	}
	assert.Equal(t, 0, f.src.Usage.Count("seed-a"))
	assert.Equal(t, 0, f.src.Usage.Count("seed-b"))
	assert.Equal(t, 0, testutil.CollectAndCount(c, "garden_shoot_info"))
	// The region that had an unscheduled shoot keeps its series, at 0.
	assert.Equal(t, 1, testutil.CollectAndCount(c, "garden_shoots_unscheduled"))
	assert.Equal(t, 0, unscheduled())
}

// A SeedAutoscaler's condition reason series follows the object: when the reason changes,
// the old reason's series is gone from the next scrape, and a condition without a reason
// has no series.
func TestSeedAutoscalerConditionReasonIsTheCurrentOne(t *testing.T) {
	f := newFixture(t)
	c := NewCollector(f.src, logr.Discard())
	withScalingActive := func(reason string) *autoscalingv1alpha1.SeedAutoscaler {
		return &autoscalingv1alpha1.SeedAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "eu"},
			Spec:       autoscalingv1alpha1.SeedAutoscalerSpec{MaxReplicas: 5},
			Status: autoscalingv1alpha1.SeedAutoscalerStatus{Conditions: []metav1.Condition{
				{Type: autoscalingv1alpha1.SeedAutoscalerScalingActive, Status: metav1.ConditionFalse, Reason: reason},
			}},
		}
	}
	f.addSeedAutoscaler(withScalingActive("FailedGetResourceMetric"))
	require.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(`
# HELP garden_seedautoscaler_condition_reason Reason of a SeedAutoscaler condition; the value is always 1, one series per condition with a reason.
# TYPE garden_seedautoscaler_condition_reason gauge
garden_seedautoscaler_condition_reason{condition="ScalingActive",name="eu",namespace="garden",reason="FailedGetResourceMetric"} 1
`), "garden_seedautoscaler_condition_reason"))

	f.addSeedAutoscaler(withScalingActive("InvalidSelector")) // the informer's update
	require.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(`
# HELP garden_seedautoscaler_condition_reason Reason of a SeedAutoscaler condition; the value is always 1, one series per condition with a reason.
# TYPE garden_seedautoscaler_condition_reason gauge
garden_seedautoscaler_condition_reason{condition="ScalingActive",name="eu",namespace="garden",reason="InvalidSelector"} 1
`), "garden_seedautoscaler_condition_reason"))

	f.addSeedAutoscaler(withScalingActive(""))
	assert.Equal(t, 0, testutil.CollectAndCount(c, "garden_seedautoscaler_condition_reason"))
	assert.Equal(t, 3, testutil.CollectAndCount(c, "garden_seedautoscaler_condition"), "the status series stay")
}

// A seed of a replica Gardener's set controller made carries no set label: garden_seed_info
// names the set of its ManagedSeed (garden/<seed>, owned by the set). A seed seedscaler
// labeled keeps its labels' set; a seed of no set has empty labels.
func TestSeedInfoNamesTheSetOfTheSeedsManagedSeed(t *testing.T) {
	f := newFixture(t)
	set := &seedmanagementv1alpha1.ManagedSeedSet{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "soil", UID: "uid-soil"}}
	f.addSeed(builders.MakeSeed("soil-0").Labels("seed.gardener.cloud/pool", "soil").Ready().Obj(), nil)
	f.addManagedSeed(&seedmanagementv1alpha1.ManagedSeed{ObjectMeta: metav1.ObjectMeta{
		Namespace: "garden", Name: "soil-0", Labels: map[string]string{"seed.gardener.cloud/pool": "soil"},
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet"))},
	}})
	// A ManagedSeed of no set, elsewhere of the same name as its seed.
	f.addSeed(builders.MakeSeed("lone").Ready().Obj(), nil)
	f.addManagedSeed(&seedmanagementv1alpha1.ManagedSeed{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "lone"}})
	f.addSeed(builders.MakeSeed("old-0").Labels(seedmanagementv1alpha1.LabelManagedSeedSet, "old",
		seedmanagementv1alpha1.LabelManagedSeedSetNamespace, "garden-a", membership.LabelManagedSeedNamespace, "garden-a").Ready().Obj(), nil)

	c := NewCollector(f.src, logr.Discard())
	require.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(`
# HELP garden_seed_info Information about a seed; the value is always 1.
# TYPE garden_seed_info gauge
garden_seed_info{managedseedset="",name="lone",namespace="",provider="gcp",region="europe-west1",visible="true"} 1
garden_seed_info{managedseedset="old",name="old-0",namespace="garden-a",provider="gcp",region="europe-west1",visible="true"} 1
garden_seed_info{managedseedset="soil",name="soil-0",namespace="garden",provider="gcp",region="europe-west1",visible="true"} 1
`), "garden_seed_info"))
}

// The transforms keep what a scrape reads and nothing else.
func TestTransformsKeepOnlyWhatIsExported(t *testing.T) {
	seed := builders.MakeSeed("seed-a").Allocatable(100).Ready().Taint("a", "b").Labels("team", "x", seedmanagementv1alpha1.LabelManagedSeedSet, "set-1").Obj()
	seed.Annotations = map[string]string{"big": strings.Repeat("x", 1000)}
	seed.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	obj, err := transformSeed(toUnstructured(t, seed, gardencorev1beta1.GroupVersion.WithKind("Seed").String()))
	require.NoError(t, err)
	u := obj.(*unstructured.Unstructured)
	assert.Equal(t, map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Seed", strippedMarker: true,
		"metadata": map[string]any{"name": "seed-a", "labels": map[string]any{seedmanagementv1alpha1.LabelManagedSeedSet: "set-1"}},
		"spec": map[string]any{
			"provider": map[string]any{"type": "gcp", "region": "europe-west1"},
			"settings": map[string]any{"scheduling": map[string]any{"visible": true}},
		},
		"status": map[string]any{
			"capacity":    map[string]any{"shoots": "100"},
			"allocatable": map[string]any{"shoots": "100"},
			"conditions":  []any{map[string]any{"type": "GardenletReady", "status": "True"}},
		},
	}, u.Object)
	again, err := transformSeed(u)
	require.NoError(t, err)
	assert.Same(t, u, again, "a stored object passes a second transform unchanged")

	// A replica's ManagedSeed keeps its set's name, as a controller reference.
	set := &seedmanagementv1alpha1.ManagedSeedSet{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "soil", UID: "uid-soil"}}
	ms := &seedmanagementv1alpha1.ManagedSeed{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "soil-0", Labels: map[string]string{"team": "x"},
			Annotations:     map[string]string{"big": strings.Repeat("x", 1000)},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet"))}},
		Spec: seedmanagementv1alpha1.ManagedSeedSpec{Shoot: &seedmanagementv1alpha1.Shoot{Name: "soil-0"}},
	}
	obj, err = transformManagedSeed(toUnstructured(t, ms, seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeed").String()))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"apiVersion": "seedmanagement.gardener.cloud/v1alpha1", "kind": "ManagedSeed", strippedMarker: true,
		"metadata": map[string]any{"namespace": "garden", "name": "soil-0", "ownerReferences": []any{map[string]any{
			"apiVersion": "seedmanagement.gardener.cloud/v1alpha1", "kind": "ManagedSeedSet", "name": "soil", "uid": "", "controller": true,
		}}},
	}, obj.(*unstructured.Unstructured).Object)

	// A SeedAutoscaler's conditions keep their reason, not their message or times.
	sa := &autoscalingv1alpha1.SeedAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "eu", Annotations: map[string]string{"big": strings.Repeat("x", 1000)}},
		Spec:       autoscalingv1alpha1.SeedAutoscalerSpec{MaxReplicas: 5},
		Status: autoscalingv1alpha1.SeedAutoscalerStatus{CurrentReplicas: 2, Conditions: []metav1.Condition{{
			Type: autoscalingv1alpha1.SeedAutoscalerScalingActive, Status: metav1.ConditionFalse, Reason: "InvalidSelector",
			Message: strings.Repeat("m", 500), LastTransitionTime: metav1.NewTime(syncTime), ObservedGeneration: 3,
		}}},
	}
	obj, err = transformSeedAutoscaler(toUnstructured(t, sa, autoscalingv1alpha1.GroupVersion.WithKind("SeedAutoscaler").String()))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"apiVersion": "autoscaling.seedscaler.io/v1alpha1", "kind": "SeedAutoscaler", strippedMarker: true,
		"metadata": map[string]any{"namespace": "garden", "name": "eu"},
		"spec":     map[string]any{"maxReplicas": int64(5)},
		"status": map[string]any{
			"currentReplicas": int64(2), "desiredReplicas": int64(0),
			"conditions": []any{map[string]any{"type": "ScalingActive", "status": "False", "reason": "InvalidSelector"}},
		},
	}, obj.(*unstructured.Unstructured).Object)

	shoot := builders.MakeShoot("garden-p", "a").SeedName("seed-a").StatusSeedName("seed-b").Purpose(gardencorev1beta1.ShootPurposeTesting).
		Toleration("a", "").Labels("x", "y").Obj()
	shoot.Annotations = map[string]string{"big": strings.Repeat("x", 1000)}
	shoot.ResourceVersion = "42"
	shoot.CreationTimestamp = metav1.NewTime(syncTime)
	obj, err = transformShoot(toUnstructured(t, shoot, gardencorev1beta1.GroupVersion.WithKind("Shoot").String()))
	require.NoError(t, err)
	info := obj.(*shootInfo)
	assert.Equal(t, &shootInfo{
		key: "garden-p/a", name: "a", namespace: "garden-p", resourceVersion: "42", created: syncTime.Unix(),
		seed: "seed-a", statusSeed: "seed-b", provider: "gcp", region: "europe-west1", purpose: "testing",
		line: []byte(`garden_shoot_info{name="a",namespace="garden-p",provider="gcp",purpose="testing",region="europe-west1",seed="seed-a"} 1` + "\n"),
	}, info)
	// The informer's store keys the record as it keys a Shoot, and tells an update from a
	// resync by its resource version.
	key, err := toolscache.MetaNamespaceKeyFunc(info)
	require.NoError(t, err)
	assert.Equal(t, "garden-p/a", key)
	accessor, err := meta.Accessor(info)
	require.NoError(t, err)
	assert.Equal(t, "42", accessor.GetResourceVersion())
	again, err2 := transformShoot(info)
	require.NoError(t, err2)
	assert.Same(t, info, again, "a record is not transformed twice")
}
