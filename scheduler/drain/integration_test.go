//go:build integration

package drain_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/membership"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/controller"
	"github.com/seedscaler/seedscaler/scheduler/drain"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(testenv.Options{}, func(e *testenv.Environment) int {
		env = e
		return m.Run()
	}))
}

// startScheduler runs the scheduler and its drain with the given drain budget until the
// test ends.
func startScheduler(t *testing.T, budget *config.Drain) {
	t.Helper()
	startSchedulerWith(t, &config.SchedulerConfiguration{Drain: budget})
}

// startSchedulerWith runs the scheduler and its drain with the given configuration until the
// test ends.
func startSchedulerWith(t *testing.T, cfg *config.SchedulerConfiguration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	config.Default(cfg)
	require.NoError(t, config.Validate(cfg))
	opts := manager.Options{Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: ctrlconfig.Controller{SkipNameValidation: ptr.To(true)}}
	controller.CacheOptions(cfg)(&opts)
	mgr, err := manager.New(env.Config, opts)
	require.NoError(t, err)
	scheduler := &controller.Reconciler{Config: cfg}
	require.NoError(t, scheduler.AddToManager(ctx, mgr, prometheus.NewRegistry()))
	require.NoError(t, (&drain.Reconciler{}).AddToManager(ctx, mgr, scheduler))
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
}

// create creates an object and then its status, as its controller would.
func create(t *testing.T, obj client.Object, status func()) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, env.Client.Create(ctx, obj))
	if status != nil {
		status()
		require.NoError(t, env.Client.Status().Update(ctx, obj))
	}
}

// Two seeds of a set of Gardener's are drained, one by its own annotation and one by its
// ManagedSeed's. Nothing labels them with the set: their ManagedSeeds (garden/<seed>)
// carry a controller reference to it. Their migrations share the set's budget of one in
// flight, where two seeds of no set would have one each.
func TestDrainBudgetIsSharedByTheSeedsOfAGardenerSet(t *testing.T) {
	ctx := context.Background()
	cp := &gardencorev1beta1.CloudProfile{ObjectMeta: metav1.ObjectMeta{Name: "gcp"},
		Spec: gardencorev1beta1.CloudProfileSpec{Type: "gcp", Regions: []gardencorev1beta1.Region{{Name: "europe-west1"}}}}
	require.NoError(t, env.Client.Create(ctx, cp))
	for _, ns := range []string{membership.GardenNamespace, "drain-tenants"} {
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}

	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(t, testenv.ReadExample("managedseedset.yaml", set))
	set.Name, set.Namespace = "soil", membership.GardenNamespace
	set.Spec.Replicas = ptr.To[int32](2)
	require.NoError(t, env.Client.Create(ctx, set))
	var seedLabels []string
	for k, v := range set.Spec.Template.Spec.SeedTemplate.Labels {
		seedLabels = append(seedLabels, k, v)
	}
	drained := []string{"soil-0", "soil-1"}
	for i, name := range drained {
		ms := &seedmanagementv1alpha1.ManagedSeed{ObjectMeta: metav1.ObjectMeta{
			Namespace: set.Namespace, Name: name, Labels: set.Spec.Template.Labels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet"))},
		}}
		ms.Spec = *set.Spec.Template.Spec.DeepCopy()
		ms.Spec.Shoot = &seedmanagementv1alpha1.Shoot{Name: name}
		seed := builders.MakeSeed(name).Labels(seedLabels...).Allocatable(10).Backup("aws").Ready()
		if i == 0 {
			seed.Annotations(gardencorev1beta1.AnnotationDrain, "true")
		} else {
			ms.Annotations = map[string]string{gardencorev1beta1.AnnotationDrain: "true"}
		}
		create(t, ms, nil)
		s := seed.Obj()
		status := s.Status
		create(t, s, func() { s.Status = status })
		for j := range 2 {
			shoot := builders.MakeShoot("drain-tenants", fmt.Sprintf("%s-t%d", name, j)).SeedName(name).StatusSeedName(name).
				LastOperation(gardencorev1beta1.LastOperationTypeReconcile, gardencorev1beta1.LastOperationStateSucceeded).Obj()
			shootStatus := shoot.Status
			create(t, shoot, func() { shoot.Status = shootStatus })
		}
	}
	target := builders.MakeSeed("elsewhere").Allocatable(10).Backup("aws").Ready().Obj()
	targetStatus := target.Status
	create(t, target, func() { target.Status = targetStatus })

	startScheduler(t, &config.Drain{MaxMigrationsPerSeed: 1, MaxMigrationsPerSet: 1, FailedMigrationCooldownSeconds: 600})

	// The control planes never arrive (no gardenlet): a migration stays in flight.
	migrating := func() []string {
		list := &gardencorev1beta1.ShootList{}
		require.NoError(t, env.Client.List(ctx, list, client.InNamespace("drain-tenants")))
		var out []string
		for _, shoot := range list.Items {
			if ptr.Deref(shoot.Spec.SeedName, "") == target.Name {
				out = append(out, shoot.Name)
			}
		}
		return out
	}
	require.Eventually(t, func() bool { return len(migrating()) > 0 }, 30*time.Second, 50*time.Millisecond, "a drain started a migration")
	assert.Never(t, func() bool { return len(migrating()) > 1 }, 3*time.Second, 50*time.Millisecond,
		"the two seeds of the set share its budget of one migration in flight")
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		for _, name := range drained {
			seed := &gardencorev1beta1.Seed{}
			require.NoError(c, env.Client.Get(ctx, client.ObjectKey{Name: name}, seed))
			assert.NotNil(c, findCondition(seed.Status.Conditions, gardencorev1beta1.SeedDrained), "seed %s reports its drain", name)
		}
	}, 30*time.Second, 50*time.Millisecond, "both seeds are drained, one of them by its ManagedSeed's annotation")
}

func findCondition(conditions []metav1.Condition, typ string) *metav1.Condition {
	for i := range conditions {
		if conditions[i].Type == typ {
			return &conditions[i]
		}
	}
	return nil
}

// An operator drains two seeds of a set whose SeedAutoscaler lets one seed be disrupted at
// once and, for now, no shoot migrate: the first seed by name is admitted but moves nothing,
// naming the shoots budget; the second waits, naming the seeds budget. Without the shoots
// budget the first seed's shoots move, and the second still waits.
func TestDisruptionBudgetsHoldAnOperatorsDrains(t *testing.T) {
	ctx := context.Background()
	cp := &gardencorev1beta1.CloudProfile{ObjectMeta: metav1.ObjectMeta{Name: "gcp"},
		Spec: gardencorev1beta1.CloudProfileSpec{Type: "gcp", Regions: []gardencorev1beta1.Region{{Name: "europe-west1"}}}}
	if err := env.Client.Create(ctx, cp); !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	for _, ns := range []string{membership.GardenNamespace, "budget-tenants"} {
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(t, testenv.ReadExample("managedseedset.yaml", set))
	set.Name, set.Namespace = "loam", membership.GardenNamespace
	set.Spec.Replicas = ptr.To[int32](2)
	require.NoError(t, env.Client.Create(ctx, set))
	drained := []string{"loam-0", "loam-1"}
	for _, name := range drained {
		ms := &seedmanagementv1alpha1.ManagedSeed{ObjectMeta: metav1.ObjectMeta{
			Namespace: set.Namespace, Name: name, Labels: set.Spec.Template.Labels,
			Annotations:     map[string]string{gardencorev1beta1.AnnotationDrain: "true"},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet"))},
		}}
		ms.Spec = *set.Spec.Template.Spec.DeepCopy()
		ms.Spec.Shoot = &seedmanagementv1alpha1.Shoot{Name: name}
		create(t, ms, nil)
		s := builders.MakeSeed(name).Allocatable(10).Backup("aws").Ready().Obj()
		status := s.Status
		create(t, s, func() { s.Status = status })
		for j := range 2 {
			shoot := builders.MakeShoot("budget-tenants", fmt.Sprintf("%s-t%d", name, j)).SeedName(name).StatusSeedName(name).
				LastOperation(gardencorev1beta1.LastOperationTypeReconcile, gardencorev1beta1.LastOperationStateSucceeded).Obj()
			shootStatus := shoot.Status
			create(t, shoot, func() { shoot.Status = shootStatus })
		}
	}
	target := builders.MakeSeed("loam-elsewhere").Allocatable(10).Backup("aws").Ready().Obj()
	targetStatus := target.Status
	create(t, target, func() { target.Status = targetStatus })
	sa := &autoscalingv1alpha1.SeedAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: set.Namespace, Name: "loam"},
		Spec: autoscalingv1alpha1.SeedAutoscalerSpec{
			ScaleTargetRef: autoscalingv1alpha1.CrossVersionObjectReference{APIVersion: seedmanagementv1alpha1.GroupVersion.String(), Kind: "ManagedSeedSet", Name: set.Name},
			MaxReplicas:    5,
			Metrics: []autoscalingv1alpha1.MetricSpec{{Type: autoscalingv1alpha1.ResourceMetricSourceType, Resource: &autoscalingv1alpha1.ResourceMetricSource{
				Name: "shoots", Target: autoscalingv1alpha1.MetricTarget{Type: autoscalingv1alpha1.UtilizationMetricType, AverageUtilization: ptr.To[int32](70)}}}},
			Behavior: &autoscalingv1alpha1.SeedAutoscalerBehavior{ScaleDown: &autoscalingv1alpha1.ScalingRules{Consolidation: &autoscalingv1alpha1.Consolidation{
				Budgets: []autoscalingv1alpha1.DisruptionBudget{
					{Seeds: "1", Reasons: []autoscalingv1alpha1.DisruptionReason{autoscalingv1alpha1.DisruptionOperatorDrain}},
					{Shoots: "0", Reasons: autoscalingv1alpha1.DisruptionReasons},
				},
			}}},
		},
	}
	require.NoError(t, env.Client.Create(ctx, sa))

	startScheduler(t, nil)

	migrated := func(seed string) int {
		n := 0
		for j := range 2 {
			shoot := &gardencorev1beta1.Shoot{}
			require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: "budget-tenants", Name: fmt.Sprintf("%s-t%d", seed, j)}, shoot))
			if ptr.Deref(shoot.Spec.SeedName, "") != seed {
				n++
			}
		}
		return n
	}
	drainedCondition := func(seed string) metav1.Condition {
		s := &gardencorev1beta1.Seed{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: seed}, s))
		if c := findCondition(s.Status.Conditions, gardencorev1beta1.SeedDrained); c != nil {
			return *c
		}
		return metav1.Condition{}
	}
	require.Eventually(t, func() bool {
		return drainedCondition("loam-0").Reason == string(drain.ReasonDraining) && drainedCondition("loam-1").Reason == string(drain.ReasonDrainWaiting)
	}, 30*time.Second, 50*time.Millisecond, "the first drain is admitted, the second waits")
	assert.Contains(t, drainedCondition("loam-0").Message,
		`2 waiting for the migration budget (the disruption budget budgets[1] (shoots "0") of SeedAutoscaler garden/loam lets 0 of the set's 4 shoots migrate at once)`)
	assert.Contains(t, drainedCondition("loam-1").Message,
		`the disruption budget budgets[0] (seeds "1") of SeedAutoscaler garden/loam lets 1 of the set's 2 seeds be disrupted at once, 2 are (drained or being deleted), and the drains of loam-0 go first`)
	assert.Never(t, func() bool { return migrated("loam-0")+migrated("loam-1") > 0 }, 2*time.Second, 50*time.Millisecond, "no shoot migrates")

	// Lift the shoots budget. A drain reads the budgets each time it looks, at the latest
	// every 30 seconds; touching the ManagedSeed makes it look now.
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(sa), sa))
	sa.Spec.Behavior.ScaleDown.Consolidation.Budgets = sa.Spec.Behavior.ScaleDown.Consolidation.Budgets[:1]
	require.NoError(t, env.Client.Update(ctx, sa))
	ms := &seedmanagementv1alpha1.ManagedSeed{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: set.Namespace, Name: "loam-0"}, ms))
	ms.Annotations["test.seedscaler.io/touch"] = "1"
	require.NoError(t, env.Client.Update(ctx, ms))
	require.Eventually(t, func() bool { return migrated("loam-0") == 2 }, 30*time.Second, 50*time.Millisecond, "the admitted drain moves its shoots")
	assert.Never(t, func() bool { return migrated("loam-1") > 0 }, 2*time.Second, 50*time.Millisecond,
		"the second drain still waits: the first seed is disrupted until it is removed")
	assert.Equal(t, string(drain.ReasonDrainWaiting), drainedCondition("loam-1").Reason)
}

// A drain moves a control plane no farther than the region config's threshold: with the
// AWS distances Gardener publishes, Singapore is 216 ms from Cape Town, beyond the 180 of
// Gardener's live migrations, so the shoot has nowhere to go until a seed in Stockholm
// (180) appears, and then goes there.
func TestDrainMovesNoFartherThanTheRegionConfigAllows(t *testing.T) {
	ctx := context.Background()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "distance-tenants"}}); !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: membership.GardenNamespace}}); !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	cp := &gardencorev1beta1.CloudProfile{ObjectMeta: metav1.ObjectMeta{Name: "aws-distance"}, Spec: gardencorev1beta1.CloudProfileSpec{Type: "aws",
		Regions: []gardencorev1beta1.Region{{Name: "af-south-1"}, {Name: "ap-southeast-1"}, {Name: "eu-north-1"}}}}
	require.NoError(t, env.Client.Create(ctx, cp))
	regions := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: membership.GardenNamespace, Name: "aws-distance-regions",
		Labels:      map[string]string{"scheduling.gardener.cloud/purpose": "region-config"},
		Annotations: map[string]string{"scheduling.gardener.cloud/cloudprofiles": "aws-distance"}},
		Data: map[string]string{"af-south-1": "eu-north-1: 180\nap-southeast-1: 216\n"}}
	require.NoError(t, env.Client.Create(ctx, regions))
	seed := func(name, region string) *gardencorev1beta1.Seed {
		s := builders.MakeSeed(name).Provider("aws", region).Allocatable(10).Backup("aws").Ready().Obj()
		status := s.Status
		create(t, s, func() { s.Status = status })
		return s
	}
	cape := seed("distance-cape", "af-south-1")
	seed("distance-singapore", "ap-southeast-1")
	shoot := builders.MakeShoot("distance-tenants", "web").Provider("aws", "af-south-1").CloudProfile("aws-distance").
		SeedName(cape.Name).StatusSeedName(cape.Name).LastOperation(gardencorev1beta1.LastOperationTypeReconcile, gardencorev1beta1.LastOperationStateSucceeded).Obj()
	shootStatus := shoot.Status
	create(t, shoot, func() { shoot.Status = shootStatus })
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cape), cape))
	cape.Annotations = map[string]string{gardencorev1beta1.AnnotationDrain: "true"}
	require.NoError(t, env.Client.Update(ctx, cape))

	cfg := &config.Drain{MaxMigrationsPerSeed: 2, MaxMigrationsPerSet: 4, FailedMigrationCooldownSeconds: 600}
	startSchedulerWith(t, &config.SchedulerConfiguration{Strategy: config.MinimalDistance, Drain: cfg})

	seedOf := func() string {
		s := &gardencorev1beta1.Shoot{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(shoot), s))
		return ptr.Deref(s.Spec.SeedName, "")
	}
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		s := &gardencorev1beta1.Seed{}
		require.NoError(c, env.Client.Get(ctx, client.ObjectKeyFromObject(cape), s))
		cond := findCondition(s.Status.Conditions, gardencorev1beta1.SeedDrained)
		require.NotNil(c, cond)
		assert.Equal(c, string(drain.ReasonDrainStuck), cond.Reason)
		assert.Contains(c, cond.Message, "region ap-southeast-1 is at distance 216 from region af-south-1 of seed distance-cape, which the control plane leaves: farther than the threshold 180")
	}, 30*time.Second, 50*time.Millisecond, "the shoot has nowhere near enough to go")
	assert.Equal(t, cape.Name, seedOf())

	seed("distance-stockholm", "eu-north-1")
	// The drain looks again at the latest after 30 seconds; a touch of the Seed makes it look now.
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cape), cape))
	cape.Annotations["test.seedscaler.io/touch"] = "1"
	require.NoError(t, env.Client.Update(ctx, cape))
	require.Eventually(t, func() bool { return seedOf() == "distance-stockholm" }, 30*time.Second, 50*time.Millisecond,
		"the control plane moves to the seed within the threshold")
}
