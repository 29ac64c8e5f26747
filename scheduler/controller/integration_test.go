//go:build integration

package controller

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/manifest"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// createRegionConfigs creates the region-config ConfigMaps Gardener publishes (the copies
// in examples/region-config) in namespace garden.
func createRegionConfigs(t *testing.T) {
	t.Helper()
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	createNamespace(t, config.DefaultRegionConfigNamespace)
	for _, provider := range []string{"aws", "azure", "gcp"} {
		objs, err := manifest.ReadFile(filepath.Join(root, "examples", "region-config", provider+"-region-config.yaml"))
		require.NoError(t, err)
		require.Len(t, objs, 1)
		require.NoError(t, env.Client.Create(context.Background(), objs[0]))
	}
}

func getShoot(t *testing.T, namespace, name string) *gardencorev1beta1.Shoot {
	t.Helper()
	shoot := &gardencorev1beta1.Shoot{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, shoot))
	return shoot
}

// waitForSeed waits until the shoot is bound and returns its seed.
func waitForSeed(t *testing.T, namespace, name string) string {
	t.Helper()
	var seed string
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		shoot := &gardencorev1beta1.Shoot{}
		require.NoError(c, env.Client.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, shoot))
		require.NotNil(c, shoot.Spec.SeedName, "shoot %s/%s is not bound", namespace, name)
		seed = *shoot.Spec.SeedName
	}, 20*time.Second, 50*time.Millisecond)
	return seed
}

// schedulerEvents returns the notes of the scheduler's events on a shoot, by reason.
func schedulerEvents(t require.TestingT, namespace, name string) map[string][]string {
	list := &eventsv1.EventList{}
	require.NoError(t, env.Client.List(context.Background(), list, client.InNamespace(namespace)))
	out := map[string][]string{}
	for _, e := range list.Items {
		if e.Regarding.Kind == "Shoot" && e.Regarding.Name == name && e.ReportingController == Name {
			out[e.Reason] = append(out[e.Reason], e.Note)
		}
	}
	return out
}

// pendingShoots is the exposition of the pending-fit metric of TestSchedulesALandscape
// when n shoots would fit a new replica of eu1-fresh.
func pendingShoots(n int) string {
	return fmt.Sprintf(`
# HELP seedscaler_scheduler_pending_shoots Unschedulable shoots that would fit a new replica of the ManagedSeedSet.
# TYPE seedscaler_scheduler_pending_shoots gauge
seedscaler_scheduler_pending_shoots{managedseedset="aws-fresh",namespace="landscape"} 0
seedscaler_scheduler_pending_shoots{managedseedset="eu1-fresh",namespace="landscape"} %d
seedscaler_scheduler_pending_shoots{managedseedset="eu3-fresh",namespace="landscape"} 0
`, n)
}

// TestSchedulesALandscape runs the scheduler with MinimalDistance over the real GCP region
// config against a landscape of seeds, creates shoots one at a time (so that every
// decision sees the one before) and checks placements, events, lastOperation, the
// pending-fit metric, and the retry once a fitting seed appears.
func TestSchedulesALandscape(t *testing.T) {
	ctx := context.Background()
	const ns = "landscape"
	createNamespace(t, ns)
	createRegionConfigs(t)
	createCloudProfile(t, "gcp", &gardencorev1beta1.SeedSelector{LabelSelector: metav1.LabelSelector{
		MatchLabels: map[string]string{labelShootsAllowed: "allowed"},
	}}, "europe-west1", "europe-west3", "us-central1", "asia-east1")

	threeZones := []string{"z1", "z2", "z3"}
	for _, s := range []*builders.SeedBuilder{
		builders.MakeSeed("ls-eu1-a").Zones(threeZones...).Allocatable(3).Labels(labelShootsAllowed, "allowed").Ready(),
		builders.MakeSeed("ls-eu1-b").Zones(threeZones...).Allocatable(3).Labels(labelShootsAllowed, "allowed").Taint(taintProtected, "").Ready(),
		builders.MakeSeed("ls-eu3").Provider("gcp", "europe-west3").Zones("z1").Allocatable(10).Labels(labelShootsAllowed, "allowed").Ready(),
		builders.MakeSeed("ls-us").Provider("gcp", "us-central1").Zones(threeZones...).Allocatable(10).Labels(labelShootsAllowed, "allowed").Ready(),
		builders.MakeSeed("ls-eu1-notready").Labels(labelShootsAllowed, "allowed"),
		builders.MakeSeed("ls-eu1-unlabelled").Ready(),
		builders.MakeSeed("ls-aws").Provider("aws", "eu-west-1").Labels(labelShootsAllowed, "allowed").Ready(),
	} {
		createSeed(t, s.Obj())
	}
	setSpec := func(region, nodes string) gardencorev1beta1.SeedSpec {
		return builders.MakeSeed("x").Provider("gcp", region).Zones(threeZones...).Networks(nodes, "100.96.0.0/11", "100.64.0.0/13").
			AccessRestrictions(euAccessOnly).Obj().Spec
	}
	awsSpec := builders.MakeSeed("x").Provider("aws", "eu-west-1").Networks("10.251.0.0/16", "100.96.0.0/11", "100.64.0.0/13").Obj().Spec
	for _, set := range []*seedmanagementv1alpha1.ManagedSeedSet{
		managedSeedSet(ns, "eu1-fresh", setSpec("europe-west1", "10.251.0.0/16"), "5"),
		// Fits too, but is farther than eu1-fresh: MinimalDistance leaves it out.
		managedSeedSet(ns, "eu3-fresh", setSpec("europe-west3", "10.252.0.0/16"), "5"),
		managedSeedSet(ns, "aws-fresh", awsSpec, "5"),
	} {
		require.NoError(t, env.Client.Create(ctx, set))
	}

	// Present before the scheduler starts: a shoot with a preset seed, and one that belongs
	// to another scheduler.
	require.NoError(t, env.Client.Create(ctx, builders.MakeShoot(ns, "preset").SeedName("ls-eu3").Obj()))
	require.NoError(t, env.Client.Create(ctx, builders.MakeShoot(ns, "foreign").SchedulerName("other-scheduler").Obj()))

	s := startScheduler(t, &config.SchedulerConfiguration{
		Strategy: config.MinimalDistance,
		Backoff:  &config.Backoff{BaseSeconds: 1, MaxSeconds: 2},
	})
	// Nothing is pending yet, and every set says so: a scheduler that just started (or took
	// over) answers 0 for each set, so that the autoscaler may scale in.
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		assert.NoError(c, testutil.GatherAndCompare(s.registry, strings.NewReader(pendingShoots(0)), "seedscaler_scheduler_pending_shoots"))
	}, 10*time.Second, 50*time.Millisecond, "before any shoot is pending")

	placements := []struct {
		shoot *gardencorev1beta1.Shoot
		want  string
		why   string
	}{
		{builders.MakeShoot(ns, "web").Obj(), "ls-eu1-a", "the only untainted usable seed in its region"},
		{builders.MakeShoot(ns, "ops").Toleration(taintProtected, "").Obj(), "ls-eu1-b", "tolerates the taint; the emptier of the two seeds in its region"},
		{builders.MakeShoot(ns, "payments").ZoneFailureTolerance().Obj(), "ls-eu1-a", "three zones, room left"},
		{builders.MakeShoot(ns, "web2").Obj(), "ls-eu1-a", "its last free place"},
		{builders.MakeShoot(ns, "web3").Obj(), "ls-eu3", "its region is full; europe-west3 is 8 away, us-central1 103"},
		{builders.MakeShoot(ns, "ha").ZoneFailureTolerance().Obj(), "ls-us", "europe-west3 has one zone only"},
		{builders.MakeShoot(ns, "ci").Provider("gcp", "asia-east1").Purpose(gardencorev1beta1.ShootPurposeTesting).Obj(), "ls-us", "testing: any region of its provider; ls-us has the fewest shoots (1, ls-eu3 has 2)"},
	}
	for _, p := range placements {
		require.NoError(t, env.Client.Create(ctx, p.shoot))
		assert.Equal(t, p.want, waitForSeed(t, ns, p.shoot.Name), "shoot %s: %s", p.shoot.Name, p.why)
		assert.EventuallyWithT(t, func(c *assert.CollectT) {
			assert.Equal(c, []string{"Scheduled to seed " + p.want}, schedulerEvents(c, ns, p.shoot.Name)[string(EventSchedulingSuccessful)])
		}, 10*time.Second, 50*time.Millisecond)
	}

	// It asks for an access restriction no seed supports: no seed fits, but a new replica of
	// eu1-fresh would. Its node network overlaps every seed's, which Gardener allows for IPv4.
	require.NoError(t, env.Client.Create(ctx, builders.MakeShoot(ns, "stuck").Networks("10.250.1.0/24", "", "").AccessRestrictions(euAccessOnly).Obj()))
	wantReasons := `Failed to schedule shoot: 0/7 seeds are available:
SeedNotUsable: 1 seed(s): no status.lastOperation yet (ls-eu1-notready)
CloudProfileSeedSelectorMismatch: 1 seed(s): labels do not match the seed selector of CloudProfile gcp (seed.gardener.cloud/shoots=allowed) (ls-eu1-unlabelled)
ProviderMismatch: 1 seed(s): provider "aws" is not the shoot's "gcp" (ls-aws)
AccessRestrictionsNotSupported: 4 seed(s): does not support the shoot's access restriction(s) eu-access-only (the seed's spec.accessRestrictions: none) (ls-eu1-a, ls-eu1-b, ls-eu3, ls-us)
Would fit a new replica of ManagedSeedSet(s): landscape/eu1-fresh`
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		shoot := &gardencorev1beta1.Shoot{}
		require.NoError(c, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "stuck"}, shoot))
		require.NotNil(c, shoot.Status.LastOperation)
		assert.Equal(c, gardencorev1beta1.LastOperationTypeCreate, shoot.Status.LastOperation.Type)
		assert.Equal(c, gardencorev1beta1.LastOperationStatePending, shoot.Status.LastOperation.State)
		assert.Equal(c, wantReasons, shoot.Status.LastOperation.Description)
		assert.Nil(c, shoot.Spec.SeedName)
		assert.Contains(c, schedulerEvents(c, ns, "stuck")[string(EventSchedulingFailed)], wantReasons)
	}, 20*time.Second, 50*time.Millisecond)
	assert.NoError(t, testutil.GatherAndCompare(s.registry, strings.NewReader(pendingShoots(1)), "seedscaler_scheduler_pending_shoots"))

	// The set's new replica registers its seed: the next retry binds the shoot there.
	createSeed(t, builders.MakeSeed("ls-eu1-fresh").Zones(threeZones...).Networks("10.251.0.0/16", "100.96.0.0/11", "100.64.0.0/13").
		AccessRestrictions(euAccessOnly).Allocatable(5).Labels(labelShootsAllowed, "allowed").Ready().Obj())
	assert.Equal(t, "ls-eu1-fresh", waitForSeed(t, ns, "stuck"))
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		assert.Equal(c, []string{"Scheduled to seed ls-eu1-fresh"}, schedulerEvents(c, ns, "stuck")[string(EventSchedulingSuccessful)])
		assert.NoError(c, testutil.GatherAndCompare(s.registry, strings.NewReader(pendingShoots(0)), "seedscaler_scheduler_pending_shoots"),
			"the bound shoot no longer counts as pending")
	}, 10*time.Second, 50*time.Millisecond)

	// Untouched: the preset seedName and the other scheduler's shoot.
	preset := getShoot(t, ns, "preset")
	assert.Equal(t, ptr.To("ls-eu3"), preset.Spec.SeedName)
	assert.Nil(t, preset.Status.LastOperation)
	assert.Empty(t, schedulerEvents(t, ns, "preset"))
	foreign := getShoot(t, ns, "foreign")
	assert.Nil(t, foreign.Spec.SeedName)
	assert.Nil(t, foreign.Status.LastOperation)
	assert.Empty(t, schedulerEvents(t, ns, "foreign"))

	// Metrics: every bind counted on its seed, every attempt by result and in the histogram.
	binds := map[string]float64{}
	for _, seed := range []string{"ls-eu1-a", "ls-eu1-b", "ls-eu3", "ls-us", "ls-eu1-fresh"} {
		binds[seed] = testutil.ToFloat64(s.reconciler.metrics.binds.WithLabelValues(seed))
	}
	assert.Equal(t, map[string]float64{"ls-eu1-a": 3, "ls-eu1-b": 1, "ls-eu3": 1, "ls-us": 2, "ls-eu1-fresh": 1}, binds)
	scheduled := testutil.ToFloat64(s.reconciler.metrics.attempts.WithLabelValues(resultScheduled))
	unschedulable := testutil.ToFloat64(s.reconciler.metrics.attempts.WithLabelValues(resultUnschedulable))
	assert.Equal(t, 8.0, scheduled)
	assert.GreaterOrEqual(t, unschedulable, 1.0)
	families, err := s.registry.Gather()
	require.NoError(t, err)
	names := []string{}
	for _, f := range families {
		names = append(names, f.GetName())
		if f.GetName() == "seedscaler_scheduler_scheduling_duration_seconds" {
			assert.Equal(t, uint64(scheduled+unschedulable), f.GetMetric()[0].GetHistogram().GetSampleCount())
		}
	}
	sort.Strings(names)
	// The events asserted above went through the recorder's counting sink: at least one
	// SchedulingSuccessful per bind, none dropped.
	assert.GreaterOrEqual(t, metricValue(t, s.registry, "seedscaler_scheduler_events_total", "result", "written"), scheduled)
	assert.Zero(t, metricValue(t, s.registry, "seedscaler_scheduler_events_total", "result", "dropped"))
	assert.Equal(t, []string{
		"seedscaler_scheduler_binds_total",
		"seedscaler_scheduler_event_writes_pending",
		"seedscaler_scheduler_events_total",
		"seedscaler_scheduler_migrations_total", // 0 started, 0 rolled back
		"seedscaler_scheduler_pending_shoots",
		"seedscaler_scheduler_schedule_attempts_total",
		"seedscaler_scheduler_scheduling_duration_seconds",
	}, names)
}

// A pending shoot that two sets would take asks a new seed of one of them (least waste: the
// smaller seed), so that one shoot does not grow every set it fits; the event names the
// choice.
func TestPendingShootCountsForTheChosenSetOnly(t *testing.T) {
	ctx := context.Background()
	const ns = "expander"
	createNamespace(t, ns)
	createCloudProfile(t, "openstack", nil, "eu-de-1")
	spec := builders.MakeSeed("x").Provider("openstack", "eu-de-1").Zones("z1").Networks("10.251.0.0/16", "100.96.0.0/11", "100.64.0.0/13").Obj().Spec
	require.NoError(t, env.Client.Create(ctx, managedSeedSet(ns, "large", spec, "100")))
	require.NoError(t, env.Client.Create(ctx, managedSeedSet(ns, "small", spec, "50")))
	s := startScheduler(t, &config.SchedulerConfiguration{Backoff: &config.Backoff{BaseSeconds: 1, MaxSeconds: 2}})

	require.NoError(t, env.Client.Create(ctx, builders.MakeShoot(ns, "waiting").CloudProfile("openstack").Provider("openstack", "eu-de-1").Obj()))
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		small, found, err := testenv.Gathered(s.registry, "seedscaler_scheduler_pending_shoots", map[string]string{"namespace": ns, "managedseedset": "small"})
		assert.NoError(c, err)
		assert.True(c, found)
		assert.Equal(c, 1.0, small)
		large, found, err := testenv.Gathered(s.registry, "seedscaler_scheduler_pending_shoots", map[string]string{"namespace": ns, "managedseedset": "large"})
		assert.NoError(c, err)
		assert.True(c, found)
		assert.Equal(c, 0.0, large, "the shoot counts for one set only")
		notes := schedulerEvents(c, ns, "waiting")[string(EventSchedulingFailed)]
		if assert.NotEmpty(c, notes) {
			assert.Contains(c, notes[len(notes)-1], "Would fit a new replica of ManagedSeedSet(s): expander/large, expander/small; "+
				"a new seed is asked of expander/small (least waste: 50 shoots per new seed)")
		}
	}, 15*time.Second, 100*time.Millisecond)
}

// The control planes of a provider's shoots may run on seeds of other providers (the cloud
// profile's seed selector allows aws, azure and gcp), and each has a set whose new seed
// would take a pending shoot, at the same priority. The shoot asks a new seed of the set
// whose new seed costs less per shoot place: gcp at 2.40 per seed-hour for 80 shoots (0.03
// per shoot-hour) rather than aws at 2.10 for 60 (0.035), though the aws seed costs less
// and would leave fewer places empty. azure's price is invalid: it ranks after both,
// although its seed is the smallest, and the shoot's status names the annotation to fix.
func TestPendingShootAsksTheCheaperSetPerShoot(t *testing.T) {
	ctx := context.Background()
	const ns = "price"
	createNamespace(t, ns)
	providers := []string{"aws", "azure", "gcp"}
	require.NoError(t, env.Client.Create(ctx, &gardencorev1beta1.CloudProfile{
		ObjectMeta: metav1.ObjectMeta{Name: "price-openstack"},
		Spec: gardencorev1beta1.CloudProfileSpec{
			Type:    "openstack",
			Regions: []gardencorev1beta1.Region{{Name: "eu-de-1"}},
			SeedSelector: &gardencorev1beta1.SeedSelector{
				// Only this test's sets: the seeds other tests leave behind are no candidates.
				LabelSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "set", Operator: metav1.LabelSelectorOpIn, Values: providers},
				}},
				ProviderTypes: providers,
			},
		},
	}))
	for _, s := range []struct{ provider, shoots, price string }{{"aws", "60", "2.10"}, {"azure", "40", "-1"}, {"gcp", "80", "2.40"}} {
		// All in a region of the shoot's name, so MinimalDistance keeps all (each 2 away:
		// another provider).
		spec := builders.MakeSeed("x").Provider(s.provider, "eu-de-1").Zones("z1").Networks("10.251.0.0/16", "100.96.0.0/11", "100.64.0.0/13").Obj().Spec
		set := managedSeedSet(ns, s.provider, spec, s.shoots)
		set.Annotations[seedmanagementv1alpha1.AnnotationSeedHourPrice] = s.price
		require.NoError(t, env.Client.Create(ctx, set))
		// Other tests' schedulers report every set: leave none behind.
		t.Cleanup(func() { assert.NoError(t, client.IgnoreNotFound(env.Client.Delete(ctx, set))) })
	}
	s := startScheduler(t, &config.SchedulerConfiguration{Strategy: config.MinimalDistance, Backoff: &config.Backoff{BaseSeconds: 1, MaxSeconds: 2}})

	shoot := builders.MakeShoot(ns, "waiting").CloudProfile("price-openstack").Provider("openstack", "eu-de-1").Obj()
	require.NoError(t, env.Client.Create(ctx, shoot))
	t.Cleanup(func() { assert.NoError(t, client.IgnoreNotFound(env.Client.Delete(ctx, shoot))) })
	pending := func(c assert.TestingT, set string) float64 {
		v, found, err := testenv.Gathered(s.registry, "seedscaler_scheduler_pending_shoots", map[string]string{"namespace": ns, "managedseedset": set})
		assert.NoError(c, err)
		assert.True(c, found, "a series for set %s", set)
		return v
	}
	const choice = "Would fit a new replica of ManagedSeedSet(s): price/aws, price/azure, price/gcp; " +
		"a new seed is asked of price/gcp (cheapest per shoot: 0.03/shoot-hour (2.40/seed-hour for 80 shoots))"
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		assert.Equal(c, 1.0, pending(c, "gcp"), "0.03 per shoot-hour")
		assert.Equal(c, 0.0, pending(c, "aws"), "0.035 per shoot-hour")
		assert.Equal(c, 0.0, pending(c, "azure"), "no valid price")
		notes := schedulerEvents(c, ns, "waiting")[string(EventSchedulingFailed)]
		if assert.NotEmpty(c, notes) {
			assert.Contains(c, notes[len(notes)-1], choice)
		}
		// The event's note is bounded; lastOperation has the whole text.
		got := &gardencorev1beta1.Shoot{}
		require.NoError(c, env.Client.Get(ctx, client.ObjectKeyFromObject(shoot), got))
		require.NotNil(c, got.Status.LastOperation)
		assert.Contains(c, got.Status.LastOperation.Description, choice+"; "+
			`annotation seedmanagement.gardener.cloud/seed-hour-price="-1" of ManagedSeedSet price/azure is not a price per seed-hour`)
	}, 15*time.Second, 100*time.Millisecond)
}
