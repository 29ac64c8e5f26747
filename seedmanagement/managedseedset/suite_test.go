//go:build integration

package managedseedset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/yaml"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/objectlock"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/seedmanagement/managedseed"
	"github.com/seedscaler/seedscaler/seedmanagement/seed"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// Timing of the suite: heartbeats renewed every second go stale after three, so a seed whose
// gardenlet the test stops turns NotReady quickly; no test depends on the exact lengths.
const (
	testGracePeriod   = 3 * time.Second
	heartbeatInterval = time.Second
	testMaxRetries    = 2
	lockNamespace     = "seedscaler-system"
)

var (
	env       *testenv.Environment
	gardenlet *fakeGardenlet
	hist      *history
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

// run starts a real kube-apiserver, two replicas of the set controller with the chart's RBAC
// in object-locks mode, and beside them
// the real seed controller (ManagedSeed registration and seed lifecycle) and a fake
// gardenlet that reconciles the replicas' shoots and renews the seeds' heartbeats.
func run(m *testing.M) int {
	return testenv.RunTests(testenv.Options{}, func(e *testenv.Environment) int {
		env = e
		var err error
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: seed.LeaseNamespace}}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if hist, err = startHistory(ctx); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		seedManager, err := newSeedManager(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		setManagers, err := newSetManagers(ctx, "set-controller-a", "set-controller-b")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		go gardenlet.renewHeartbeats(ctx)
		managers := []manager.Runnable{seedManager}
		for _, mgr := range setManagers {
			managers = append(managers, mgr)
		}
		return testenv.RunManagers(ctx, m.Run, managers...)
	})
}

// newSeedManager runs, as an admin, what surrounds the set controller: the real seed
// controller (ManagedSeed registration and seed lifecycle) and the fake gardenlet.
func newSeedManager(ctx context.Context) (manager.Manager, error) {
	mgr, err := manager.New(env.Config, manager.Options{
		Scheme:  env.Scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		Cache:   cache.Options{ByObject: seed.CacheByObject()},
	})
	if err != nil {
		return nil, err
	}
	seedUsage := usage.NewIndex()
	if err := (&seed.Reconciler{Usage: seedUsage, GracePeriod: testGracePeriod}).AddToManager(mgr); err != nil {
		return nil, fmt.Errorf("adding the seed lifecycle controller: %w", err)
	}
	if err := (&managedseed.Reconciler{Usage: seedUsage, DeletionRecheckInterval: time.Second}).AddToManager(ctx, mgr); err != nil {
		return nil, fmt.Errorf("adding the ManagedSeed controller: %w", err)
	}
	gardenlet = &fakeGardenlet{client: mgr.GetClient(), failing: map[string]bool{}, unhealthy: map[string]bool{}, stopped: map[string]bool{}}
	if err := builder.ControllerManagedBy(mgr).Named("fake-gardenlet").For(&gardencorev1beta1.Shoot{}).Complete(gardenlet); err != nil {
		return nil, err
	}
	return mgr, nil
}

// newSetManagers runs the set controller as it is deployed with several replicas: each
// replica as a user that has only the ClusterRole generated from the controller's RBAC
// markers (the chart's), all of them active in object-locks mode, each set reconciled under
// the Lease of one replica at a time. Every test thereby also checks that the markers cover
// everything the controller touches and that replicas working side by side keep one replica
// of a set in flight.
func newSetManagers(ctx context.Context, holders ...string) ([]manager.Manager, error) {
	const user = "seedscaler-set-controller"
	root, err := testenv.RepositoryRoot()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(root, "charts", "seedscaler", "files", "rbac", "set-controller", "role.yaml"))
	if err != nil {
		return nil, err
	}
	// The ClusterRole, and Roles whose namespace stands for one the chart decides: the
	// object locks' Role is bound in the lock namespace, as the chart binds it; the
	// ControllerRevisions' is granted cluster-wide here, since every test's set lives in a
	// namespace of its own (test/chart checks where the chart binds it).
	role := &rbacv1.ClusterRole{}
	objs := []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: lockNamespace}}}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		r := &rbacv1.Role{}
		if err := yaml.Unmarshal([]byte(doc), r); err != nil {
			return nil, fmt.Errorf("decoding the set controller's generated RBAC: %w", err)
		}
		switch {
		case r.Kind == "ClusterRole":
			role.Name = r.Name
			role.Rules = append(role.Rules, r.Rules...)
		case r.Kind == "Role" && r.Namespace == "seedscaler-lock-namespace":
			r.Namespace, r.Name = lockNamespace, r.Name+"-locks"
			objs = append(objs, r, &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Namespace: lockNamespace, Name: r.Name},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: r.Name},
				Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
			})
		case r.Kind == "Role":
			role.Rules = append(role.Rules, r.Rules...)
		}
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	objs = append(objs, role, binding)
	// A lock whose holder pod is gone may be taken over: the replicas' pods exist.
	for _, holder := range holders {
		objs = append(objs, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: lockNamespace, Name: holder},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "seedscaler", Image: "seedscaler"}}},
		})
	}
	for _, obj := range objs {
		if err := env.Client.Create(ctx, obj); err != nil {
			return nil, err
		}
	}
	var managers []manager.Manager
	for _, holder := range holders {
		cfg, err := env.AddUser(user)
		if err != nil {
			return nil, err
		}
		cfg.QPS, cfg.Burst = env.Config.QPS, env.Config.Burst
		opts := manager.Options{
			Scheme:  env.Scheme,
			Metrics: metricsserver.Options{BindAddress: "0"},
			// Replicas are processes in production; here they share controller-runtime's
			// process-wide registry of controller names.
			Controller: config.Controller{SkipNameValidation: ptr.To(true)},
		}
		CacheOptions(&opts.Cache)
		mgr, err := manager.New(cfg, opts)
		if err != nil {
			return nil, err
		}
		set := &Reconciler{
			Config: Config{MaxShootRetries: testMaxRetries, ConcurrentSyncs: 4, InFlightResync: 2 * time.Second},
			Replicas: &objectlock.Replicas{Mode: objectlock.ModeObjectLocks, Namespace: lockNamespace, Holder: holder,
				LeaseDuration: time.Minute, CollectInterval: time.Minute},
		}
		if err := set.AddToManager(ctx, mgr); err != nil {
			return nil, fmt.Errorf("adding the set controller: %w", err)
		}
		managers = append(managers, mgr)
	}
	return managers, nil
}

// fakeGardenlet plays what Gardener's gardenlets do for the replicas of sets: it reconciles
// their shoots (status.lastOperation Succeeded for the current generation, or Failed for
// shoots the test makes fail, taking up gardener.cloud/operation=retry like Gardener) and
// renews every seed's heartbeat Lease except for seeds whose gardenlet the test stopped.
type fakeGardenlet struct {
	client client.Client

	mu        sync.Mutex
	failing   map[string]bool // namespace/name of shoots whose reconciliation fails
	unhealthy map[string]bool // namespace/name of shoots with a False condition
	stopped   map[string]bool // seeds whose heartbeat is not renewed
}

func (g *fakeGardenlet) setUnhealthy(shoot client.ObjectKey, unhealthy bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.unhealthy[shoot.String()] = unhealthy
}

func (g *fakeGardenlet) isUnhealthy(shoot client.ObjectKey) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.unhealthy[shoot.String()]
}

func (g *fakeGardenlet) setFailing(shoot client.ObjectKey, failing bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.failing[shoot.String()] = failing
}

func (g *fakeGardenlet) isFailing(shoot client.ObjectKey) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.failing[shoot.String()]
}

func (g *fakeGardenlet) stopHeartbeat(seedName string, stop bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopped[seedName] = stop
}

func (g *fakeGardenlet) heartbeatStopped(seedName string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stopped[seedName]
}

// Reconcile reconciles a replica shoot once per generation and per retry. Shoots that are not
// a set's replicas (tenant shoots the tests place on seeds) are left alone.
func (g *fakeGardenlet) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	shoot := &gardencorev1beta1.Shoot{}
	if err := g.client.Get(ctx, req.NamespacedName, shoot); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if _, replica := shoot.Labels[seedmanagementv1alpha1.LabelManagedSeedSet]; !replica || shoot.DeletionTimestamp != nil {
		return reconcile.Result{}, nil
	}
	retry := shoot.Annotations[seedmanagementv1alpha1.AnnotationOperation] == seedmanagementv1alpha1.OperationRetry
	state := gardencorev1beta1.LastOperationStateSucceeded
	if g.isFailing(req.NamespacedName) {
		state = gardencorev1beta1.LastOperationStateFailed
	}
	health := metav1.ConditionTrue
	if g.isUnhealthy(req.NamespacedName) {
		health = metav1.ConditionFalse
	}
	op := shoot.Status.LastOperation
	if !retry && op != nil && op.State == state && shoot.Status.ObservedGeneration == shoot.Generation &&
		meta.IsStatusConditionPresentAndEqual(shoot.Status.Conditions, "APIServerAvailable", health) {
		return reconcile.Result{}, nil
	}
	if retry {
		patch := client.MergeFrom(shoot.DeepCopy())
		delete(shoot.Annotations, seedmanagementv1alpha1.AnnotationOperation)
		if err := g.client.Patch(ctx, shoot, patch); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
	}
	opType := gardencorev1beta1.LastOperationTypeReconcile
	if op == nil {
		opType = gardencorev1beta1.LastOperationTypeCreate
	}
	patch := client.MergeFrom(shoot.DeepCopy())
	shoot.Status.ObservedGeneration = shoot.Generation
	shoot.Status.LastOperation = &gardencorev1beta1.LastOperation{
		Type: opType, State: state, Progress: 100, LastUpdateTime: metav1.Now(),
		Description: "Played by the test's gardenlet.",
	}
	meta.SetStatusCondition(&shoot.Status.Conditions, metav1.Condition{Type: "APIServerAvailable", Status: health, Reason: "PlayedByTheTest"})
	return reconcile.Result{}, client.IgnoreNotFound(g.client.Status().Patch(ctx, shoot, patch))
}

// renewHeartbeats renews the heartbeat Lease of every seed whose gardenlet runs.
func (g *fakeGardenlet) renewHeartbeats(ctx context.Context) {
	ticker := time.NewTicker(heartbeatInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		seeds := &gardencorev1beta1.SeedList{}
		if err := g.client.List(ctx, seeds); err != nil {
			continue
		}
		for _, s := range seeds.Items {
			if s.DeletionTimestamp != nil || g.heartbeatStopped(s.Name) {
				continue
			}
			_ = renewLease(ctx, g.client, s.Name)
		}
	}
}

func renewLease(ctx context.Context, c client.Client, seedName string) error {
	now := metav1.NewMicroTime(time.Now())
	lease := &coordinationv1.Lease{}
	err := c.Get(ctx, client.ObjectKey{Namespace: seed.LeaseNamespace, Name: seedName}, lease)
	if apierrors.IsNotFound(err) {
		lease = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: seed.LeaseNamespace, Name: seedName},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To(seedName), RenewTime: &now, LeaseDurationSeconds: ptr.To[int32](3)},
		}
		return c.Create(ctx, lease)
	}
	if err != nil {
		return err
	}
	patch := client.MergeFrom(lease.DeepCopy())
	lease.Spec.RenewTime = &now
	return c.Patch(ctx, lease, patch)
}
