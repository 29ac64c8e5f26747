//go:build integration

package simulator

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/controller"
	"github.com/seedscaler/seedscaler/scheduler/drain"
	"github.com/seedscaler/seedscaler/seedmanagement/managedseed"
	"github.com/seedscaler/seedscaler/seedmanagement/managedseedset"
	"github.com/seedscaler/seedscaler/seedmanagement/seed"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// At speed 60 a fake-clock second is a simulated minute: creations take 1s, migrations 2s.
const drainConfig = `
speed: 60
shoots: {createDelay: 1m, deleteDelay: 1m, migrateDelay: 2m, jitter: 0}
gardenlets: {heartbeatInterval: 10s}
demand: {constant: {shoots: 0}}
`

const (
	drainNamespace  = "garden-drain"
	drainTenants    = "garden-drain-tenants"
	drainSet        = "drain"
	drainAllocation = 6 // capacity 8, 2 reserved
)

// TestDrainedSeedIsEmptiedAndRemoved runs the parts a drain involves in process, the
// scheduler with its drain, the seed controller and the set controller, against a real
// kube-apiserver, with the simulator playing gardenlets and infrastructure. A set of two
// seeds hosts six tenant shoots; its second seed is drained through its ManagedSeed:
//   - a failed migration is rolled back, the shoot stays where it runs, and is moved later;
//   - a shoot that opts out stays, and the drain reports it stuck, naming it;
//   - never more than the budget (one) migrates at once, and no seed ever holds more
//     shoots than its allocatable, counting a migrating shoot on both seeds;
//   - once the opt-out is removed the seed empties, its Drained condition turns True, and
//     a scale-in of the set removes exactly that replica.
func TestDrainedSeedIsEmptiedAndRemoved(t *testing.T) {
	h, w := newDrainHarness(t, drainSet)

	// Six tenant shoots, spread three and three (Gardener's profile: fewest shoots).
	for i := range 6 {
		sh := builders.MakeShoot(drainTenants, fmt.Sprintf("t%d", i)).Provider("gcp", "europe-west1").CloudProfile("gcp").Obj()
		require.NoError(t, env.Client.Create(h.ctx, sh))
	}
	w.until("every tenant shoot runs", func() bool { return len(w.running(drainSet+"-0"))+len(w.running(drainSet+"-1")) == 6 })
	onSecond := w.running(drainSet + "-1")
	require.Len(t, onSecond, 3, "spread over the two seeds")

	// The first shoot of the second seed opts out; the first migration fails.
	optedOut := onSecond[0]
	annotateObject(t, &gardencorev1beta1.Shoot{}, drainTenants, optedOut, gardencorev1beta1.AnnotationMigration, gardencorev1beta1.MigrationDisabled)
	h.cfg.Shoots.MigrationFailureRate = 1
	annotateObject(t, &seedmanagementv1alpha1.ManagedSeed{}, drainNamespace, drainSet+"-1", gardencorev1beta1.AnnotationDrain, "true")

	w.until("a failed migration is rolled back", func() bool { return w.event(drainTenants, "MigrationRolledBack") != nil })
	rolledBack := w.event(drainTenants, "MigrationRolledBack")
	assert.Contains(t, rolledBack.Note, "The control plane migration to seed "+drainSet+"-0 failed and was rolled back: the shoot stays on seed "+drainSet+"-1.")
	w.until("the rolled-back shoot runs on its old seed again", func() bool {
		sh := h.shoot(drainTenants, rolledBack.Regarding.Name)
		return ptr.Deref(sh.Spec.SeedName, "") == drainSet+"-1" && ptr.Deref(sh.Status.SeedName, "") == drainSet+"-1"
	})
	h.cfg.Shoots.MigrationFailureRate = 0

	w.until("the drain is stuck on the opted-out shoot", func() bool {
		c := w.drained(drainSet + "-1")
		return c != nil && c.Reason == string(drain.ReasonDrainStuck)
	})
	c := w.drained(drainSet + "-1")
	assert.Equal(t, metav1.ConditionFalse, c.Status)
	assert.Equal(t, fmt.Sprintf("The drain is stuck: 1 shoot(s) remain and none can leave. 1 cannot leave: %s/%s: opted out by annotation seedscaler.io/migration=disabled. "+
		"Remove the opt-out, add seeds that take them, or relax their constraints.", drainTenants, optedOut), c.Message)
	assert.Len(t, w.running(drainSet+"-0"), 5, "the others moved")
	assert.NotNil(t, w.event(drainTenants, "MigrationStarted"))
	assert.Equal(t, []string{optedOut}, w.running(drainSet+"-1"), "the opted-out shoot stayed")
	stuckSeed := func(state string) float64 {
		v, ok := w.metric("seedscaler_scheduler_drain_shoots", map[string]string{"seed": drainSet + "-1", "state": state})
		require.True(t, ok, "the drained seed's %s shoots are served", state)
		return v
	}
	assert.Equal(t, []float64{1, 0, 0, 1}, []float64{stuckSeed("remaining"), stuckSeed("migrating"), stuckSeed("waiting"), stuckSeed("blocked")},
		"remaining, migrating, waiting, blocked: what SeedDrainStuck alerts on")
	started, _ := w.metric("seedscaler_scheduler_migrations_total", map[string]string{"result": "started"})
	rolled, _ := w.metric("seedscaler_scheduler_migrations_total", map[string]string{"result": "rolled_back"})
	assert.GreaterOrEqual(t, started, 3.0, "two moved and at least one failed")
	assert.GreaterOrEqual(t, rolled, 1.0)
	assert.Equal(t, 2.0, started-rolled, "every migration that was not rolled back moved a shoot (started %v, rolled back %v)", started, rolled)

	// No new shoot lands on the cordoned seed.
	require.NoError(t, env.Client.Create(h.ctx, builders.MakeShoot(drainTenants, "late").Provider("gcp", "europe-west1").CloudProfile("gcp").Obj()))
	w.until("the late shoot runs", func() bool { return len(w.running(drainSet+"-0")) == 6 })

	// Without the opt-out the shoot has nowhere to go while the other seed is full.
	annotateObject(t, &gardencorev1beta1.Shoot{}, drainTenants, optedOut, gardencorev1beta1.AnnotationMigration, "")
	w.until("the drain is stuck on a full landscape", func() bool {
		c := w.drained(drainSet + "-1")
		return c != nil && c.Reason == string(drain.ReasonDrainStuck) && strings.Contains(c.Message, "no other seed takes it")
	})
	assert.Contains(t, w.drained(drainSet+"-1").Message, fmt.Sprintf("%s/%s: no other seed takes it: 0/2 seeds are available", drainTenants, optedOut))
	assert.Contains(t, w.drained(drainSet+"-1").Message, "CapacityExhausted: 1 seed(s): no capacity left for shoots (allocatable 6) ("+drainSet+"-0)")
	stuck := w.event("default", "DrainStuck")
	require.NotNil(t, stuck, "the stuck drain is reported as an event on the Seed")

	// A shoot leaves the full seed; the drain completes; scaled in, the set removes the seed.
	require.NoError(t, env.Client.Delete(h.ctx, h.shoot(drainTenants, "late")))
	w.until("the drain completes", func() bool {
		c := w.drained(drainSet + "-1")
		return c != nil && c.Status == metav1.ConditionTrue
	})
	assert.Equal(t, string(drain.ReasonDrainComplete), w.drained(drainSet+"-1").Reason)
	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(t, env.Client.Get(h.ctx, client.ObjectKey{Namespace: drainNamespace, Name: drainSet}, set))
	orig := set.DeepCopy()
	set.Spec.Replicas = ptr.To[int32](1)
	require.NoError(t, env.Client.Patch(h.ctx, set, client.MergeFrom(orig)))
	w.until("the set removes the drained replica", func() bool {
		err := env.Client.Get(h.ctx, client.ObjectKey{Namespace: drainNamespace, Name: drainSet + "-1"}, &seedmanagementv1alpha1.ManagedSeed{})
		return apierrors.IsNotFound(err)
	})
	require.NoError(t, env.Client.Get(h.ctx, client.ObjectKey{Namespace: drainNamespace, Name: drainSet + "-0"}, &seedmanagementv1alpha1.ManagedSeed{}),
		"the other replica stays")
	w.until("the removed seed's drain series are gone", func() bool {
		_, served := w.metric("seedscaler_scheduler_drain_shoots", map[string]string{"seed": drainSet + "-1"})
		return !served
	})

	assert.Empty(t, w.violations, "no seed above its allocatable, never more migrations than the budget")
	assert.LessOrEqual(t, w.maxMigrating, 1, "at most one migration in flight (the budget)")
	assert.Positive(t, w.maxMigrating, "migrations were seen in flight")
}

// newDrainHarness starts the parts, the landscape with a set of the given name, and waits
// until the set's two seeds are ready.
func newDrainHarness(t *testing.T, set string) (*harness, *drainWatch) {
	t.Helper()
	cfg, err := ParseConfiguration([]byte("apiVersion: " + ConfigAPIVersion + "\nkind: " + ConfigKind + "\n" + drainConfig))
	require.NoError(t, err)
	clk := clocktesting.NewFakeClock(time.Now())
	h := &harness{t: t, ctx: t.Context(), cfg: cfg, clock: clk, sim: New(cfg, env.Client, clk, nil)}
	t.Cleanup(func() { cleanup(t) })
	t.Cleanup(func() { releaseSeedManagement(t) })
	ensureNamespace(t, drainNamespace)
	ensureNamespace(t, drainTenants)
	drainLandscape(t, set)
	w := &drainWatch{h: h, metrics: startDrainParts(t, clk)}
	w.until("the set's two seeds are ready", func() bool { return w.ready(set+"-0") && w.ready(set+"-1") })
	return h, w
}

// A drain that consolidation started moves a seed's shoots only when all of them fit on the
// other seeds, as the scheduler decides: it never leaves a seed half emptied.
func TestConsolidationDrainMovesAllShootsOrNone(t *testing.T) {
	h, w := newDrainHarness(t, "pack")
	for i := range 7 {
		sh := builders.MakeShoot(drainTenants, fmt.Sprintf("p%d", i)).Provider("gcp", "europe-west1").CloudProfile("gcp").Obj()
		require.NoError(t, env.Client.Create(h.ctx, sh))
	}
	w.until("every tenant shoot runs", func() bool { return len(w.running("pack-0"))+len(w.running("pack-1")) == 7 })
	fuller, other := "pack-0", "pack-1"
	if len(w.running(other)) > len(w.running(fuller)) {
		fuller, other = other, fuller
	}
	require.Len(t, w.running(fuller), 4)
	require.Len(t, w.running(other), 3, "two places left there: not enough for the fuller seed's 4 shoots")

	ms := &seedmanagementv1alpha1.ManagedSeed{}
	annotateObject(t, ms, drainNamespace, fuller, gardencorev1beta1.AnnotationDrainReason, gardencorev1beta1.DrainReasonConsolidation)
	annotateObject(t, ms, drainNamespace, fuller, gardencorev1beta1.AnnotationDrain, "true")
	w.until("the consolidation is stuck", func() bool {
		c := w.drained(fuller)
		return c != nil && c.Reason == string(drain.ReasonDrainStuck)
	})
	msg := w.drained(fuller).Message
	assert.Contains(t, msg, "no other seed takes it: 0/2 seeds are available")
	assert.Contains(t, msg, "waits: a consolidation moves no shoot until every shoot can leave")
	assert.Len(t, w.running(fuller), 4, "not one shoot moved")
	assert.Zero(t, w.maxMigrating)

	// One shoot of the fuller seed goes; the other three fit and all move.
	require.NoError(t, env.Client.Delete(h.ctx, h.shoot(drainTenants, w.running(fuller)[0])))
	w.until("the consolidation completes", func() bool {
		c := w.drained(fuller)
		return c != nil && c.Status == metav1.ConditionTrue
	})
	assert.Len(t, w.running(other), 6)
	assert.Empty(t, w.violations)
}

// drainLandscape creates the demo's cloud profile, its soil and a ManagedSeedSet like the demo's
// with two replicas of 6 allocatable shoots.
func drainLandscape(t *testing.T, name string) {
	t.Helper()
	cp := &gardencorev1beta1.CloudProfile{}
	require.NoError(t, testenv.ReadExample("landscape/10-cloudprofile.yaml", cp))
	if err := env.Client.Create(t.Context(), cp); err != nil && !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	soil := &gardencorev1beta1.Seed{}
	require.NoError(t, testenv.ReadExample("demo/10-soil.yaml", soil))
	soil.Status = builders.MakeSeed("soil").Ready().Obj().Status
	createSeed(t, soil)

	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(t, testenv.ReadExample("demo/20-managedseedset.yaml", set))
	set.Namespace, set.Name, set.Spec.Replicas = drainNamespace, name, ptr.To[int32](2)
	resources := set.Spec.Template.Spec.Gardenlet.Config.Resources
	resources.Capacity[gardencorev1beta1.ResourceShoots] = resource.MustParse("8")
	resources.Reserved[gardencorev1beta1.ResourceShoots] = resource.MustParse("2")
	require.NoError(t, env.Client.Create(t.Context(), set))
}

// startDrainParts runs the scheduler with its drain, the seed controller and the set
// controller, each in a manager of its own as they are deployed, until the test ends.
func startDrainParts(t *testing.T, clk *clocktesting.FakeClock) *prometheus.Registry {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	newManager := func(configure func(*manager.Options)) manager.Manager {
		opts := manager.Options{Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
			Controller: ctrlconfig.Controller{SkipNameValidation: ptr.To(true)}}
		configure(&opts)
		mgr, err := manager.New(env.Config, opts)
		require.NoError(t, err)
		return mgr
	}
	cfg := &config.SchedulerConfiguration{Drain: &config.Drain{MaxMigrationsPerSeed: 1, MaxMigrationsPerSet: 1, FailedMigrationCooldownSeconds: 1}}
	config.Default(cfg)
	require.NoError(t, config.Validate(cfg))
	schedulerManager := newManager(controller.CacheOptions(cfg))
	scheduler := &controller.Reconciler{Config: cfg}
	schedulerMetrics := prometheus.NewRegistry()
	require.NoError(t, scheduler.AddToManager(ctx, schedulerManager, schedulerMetrics))
	require.NoError(t, (&drain.Reconciler{}).AddToManager(ctx, schedulerManager, scheduler))

	seedManager := newManager(func(o *manager.Options) { o.Cache.ByObject = seed.CacheByObject() })
	shootsPerSeed := usage.NewIndex()
	require.NoError(t, (&seed.Reconciler{Usage: shootsPerSeed, GracePeriod: time.Minute, Clock: clk}).AddToManager(seedManager))
	require.NoError(t, (&managedseed.Reconciler{Usage: shootsPerSeed, DeletionRecheckInterval: time.Second}).AddToManager(ctx, seedManager))

	setManager := newManager(func(o *manager.Options) { managedseedset.CacheOptions(&o.Cache) })
	setConfig := managedseedset.DefaultConfig()
	setConfig.InFlightResync = time.Second
	require.NoError(t, (&managedseedset.Reconciler{Config: setConfig}).AddToManager(ctx, setManager))

	var done []chan error
	for _, mgr := range []manager.Manager{schedulerManager, seedManager, setManager} {
		ch := make(chan error, 1)
		go func() { ch <- mgr.Start(ctx) }()
		done = append(done, ch)
	}
	t.Cleanup(func() {
		cancel()
		for _, ch := range done {
			require.NoError(t, <-ch)
		}
	})
	return schedulerMetrics
}

// metric returns the value of the scheduler's series of name with labels, and whether it
// is served.
func (w *drainWatch) metric(name string, labels map[string]string) (float64, bool) {
	w.h.t.Helper()
	v, ok, err := testenv.Gathered(w.metrics, name, labels)
	require.NoError(w.h.t, err)
	return v, ok
}

// releaseSeedManagement lets the set and its replicas go once the controllers are stopped:
// their finalizers would hold them, and the simulator's cleanup, for ever.
func releaseSeedManagement(t *testing.T) {
	ctx := context.Background()
	release := func(list client.ObjectList, items func() []client.Object) {
		require.NoError(t, env.Client.List(ctx, list, client.InNamespace(drainNamespace)))
		for _, obj := range items() {
			if len(obj.GetFinalizers()) > 0 {
				obj.SetFinalizers(nil)
				require.NoError(t, client.IgnoreNotFound(env.Client.Update(ctx, obj)))
			}
			require.NoError(t, client.IgnoreNotFound(env.Client.Delete(ctx, obj)))
		}
	}
	sets := &seedmanagementv1alpha1.ManagedSeedSetList{}
	release(sets, func() []client.Object {
		out := make([]client.Object, len(sets.Items))
		for i := range sets.Items {
			out[i] = &sets.Items[i]
		}
		return out
	})
	managed := &seedmanagementv1alpha1.ManagedSeedList{}
	release(managed, func() []client.Object {
		out := make([]client.Object, len(managed.Items))
		for i := range managed.Items {
			out[i] = &managed.Items[i]
		}
		return out
	})
}

// annotateObject sets (or, with an empty value, removes) an annotation.
func annotateObject(t *testing.T, obj client.Object, namespace, name, key, value string) {
	t.Helper()
	require.NoError(t, env.Client.Get(t.Context(), client.ObjectKey{Namespace: namespace, Name: name}, obj))
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	if value == "" {
		delete(annotations, key)
	} else {
		annotations[key] = value
	}
	obj.SetAnnotations(annotations)
	require.NoError(t, env.Client.Patch(t.Context(), obj, patch))
}

// drainWatch steps the simulator while waiting, and checks on every step that no seed holds
// more shoots than its allocatable and that no more migrations are in flight than the budget.
type drainWatch struct {
	h *harness
	// metrics holds the scheduler's metrics, the drain's among them.
	metrics      *prometheus.Registry
	violations   []string
	maxMigrating int
}

// until steps the simulator (a simulated 30 seconds a step) until cond holds, and fails
// the test after a minute of wall-clock time.
func (w *drainWatch) until(what string, cond func() bool) {
	w.h.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		w.h.step(500 * time.Millisecond)
		w.check()
		if cond() {
			w.h.t.Logf("%s after %s", what, time.Until(deadline.Add(-time.Minute)).Abs().Round(time.Millisecond))
			return
		}
		if time.Now().After(deadline) {
			w.h.t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (w *drainWatch) check() {
	shoots := &gardencorev1beta1.ShootList{}
	require.NoError(w.h.t, env.Client.List(w.h.ctx, shoots))
	counts := map[string]int{}
	migrating := 0
	for i := range shoots.Items {
		sh := &shoots.Items[i]
		for _, s := range usage.SeedNames(sh) {
			counts[s]++
		}
		if len(usage.SeedNames(sh)) == 2 {
			migrating++
		}
	}
	w.maxMigrating = max(w.maxMigrating, migrating)
	seeds := &gardencorev1beta1.SeedList{}
	require.NoError(w.h.t, env.Client.List(w.h.ctx, seeds))
	for _, s := range seeds.Items {
		if q, ok := s.Status.Allocatable[gardencorev1beta1.ResourceShoots]; ok && int64(counts[s.Name]) > q.Value() {
			w.violations = append(w.violations, fmt.Sprintf("seed %s holds %d shoots, above its allocatable %d", s.Name, counts[s.Name], q.Value()))
		}
	}
	if migrating > 1 {
		w.violations = append(w.violations, fmt.Sprintf("%d migrations in flight, above the budget of 1", migrating))
	}
}

func (w *drainWatch) ready(name string) bool {
	s := &gardencorev1beta1.Seed{}
	if err := env.Client.Get(w.h.ctx, client.ObjectKey{Name: name}, s); err != nil {
		return false
	}
	return meta.IsStatusConditionTrue(s.Status.Conditions, gardencorev1beta1.SeedGardenletReady) && s.Status.Allocatable != nil
}

func (w *drainWatch) drained(name string) *metav1.Condition {
	s := &gardencorev1beta1.Seed{}
	if err := env.Client.Get(w.h.ctx, client.ObjectKey{Name: name}, s); err != nil {
		return nil
	}
	return meta.FindStatusCondition(s.Status.Conditions, gardencorev1beta1.SeedDrained)
}

// running returns the tenant shoots whose control plane runs on a seed and has settled
// there (spec and status agree, the last operation succeeded), sorted by name.
func (w *drainWatch) running(seed string) []string {
	list := &gardencorev1beta1.ShootList{}
	require.NoError(w.h.t, env.Client.List(w.h.ctx, list, client.InNamespace(drainTenants)))
	var out []string
	for _, sh := range list.Items {
		op := sh.Status.LastOperation
		if ptr.Deref(sh.Spec.SeedName, "") == seed && ptr.Deref(sh.Status.SeedName, "") == seed &&
			op != nil && op.State == gardencorev1beta1.LastOperationStateSucceeded {
			out = append(out, sh.Name)
		}
	}
	return out
}

// event returns the first event of a reason in a namespace, nil when there is none.
func (w *drainWatch) event(namespace, reason string) *eventsv1.Event {
	list := &eventsv1.EventList{}
	require.NoError(w.h.t, env.Client.List(w.h.ctx, list, client.InNamespace(namespace)))
	for i := range list.Items {
		if list.Items[i].Reason == reason && strings.TrimSpace(list.Items[i].Note) != "" {
			return &list.Items[i]
		}
	}
	return nil
}
