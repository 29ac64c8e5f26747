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

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/builders"
	"github.com/seedscaler/seedscaler/internal/membership"
	"github.com/seedscaler/seedscaler/internal/testing/testenv"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/controller"
	"github.com/seedscaler/seedscaler/scheduler/drain"
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
	ctx, cancel := context.WithCancel(context.Background())
	cfg := &config.SchedulerConfiguration{Drain: budget}
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
