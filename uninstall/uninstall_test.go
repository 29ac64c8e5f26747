//go:build integration

package uninstall

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/objectlock"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(testenv.Options{}, func(e *testenv.Environment) int {
		env = e
		return m.Run()
	}))
}

// release are the labels of the chart's objects of the release "seedscaler".
var release = map[string]string{"app.kubernetes.io/name": "seedscaler", "app.kubernetes.io/instance": "seedscaler"}

// The parts of the release in these tests: two leader-elected controllers, one of them
// with object locks, and the exporter, which takes no Lease.
var parts = []Part{
	{Name: "scheduler", LeaderElection: true},
	{Name: "set-controller", LeaderElection: true, LockControllers: []string{"managedseedset"}},
	{Name: "exporter"},
}

func namespace(t *testing.T) string {
	t.Helper()
	ns, err := env.Namespace(context.Background(), "uninstall")
	require.NoError(t, err)
	return ns
}

// deployment creates a Deployment of component with the given labels; replicas nil as
// when an HPA owns them.
func deployment(t *testing.T, ns, name string, objLabels map[string]string, replicas *int32) *appsv1.Deployment {
	t.Helper()
	selector := map[string]string{"app": name}
	podLabels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: objLabels},
		Spec: appsv1.DeploymentSpec{
			Replicas: replicas,
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "part", Image: "seedscaler"}}},
			},
		},
	}
	require.NoError(t, env.Client.Create(context.Background(), d))
	return d
}

func withComponent(component string) map[string]string {
	l := map[string]string{"app.kubernetes.io/component": component}
	for k, v := range release {
		l[k] = v
	}
	return l
}

// pod creates a pod of Deployment d (by its selector), as its ReplicaSet would.
func pod(t *testing.T, d *appsv1.Deployment, name string) *corev1.Pod {
	t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: name, Labels: d.Spec.Template.Labels},
		Spec:       d.Spec.Template.Spec,
	}
	require.NoError(t, env.Client.Create(context.Background(), p))
	return p
}

func lease(t *testing.T, ns, name string, objLabels map[string]string) *coordinationv1.Lease {
	t.Helper()
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: objLabels}}
	require.NoError(t, env.Client.Create(context.Background(), l))
	return l
}

func lockOf(controller, uid string) map[string]string {
	return map[string]string{objectlock.LabelController: controller, objectlock.LabelObjectUID: uid}
}

func exists(t *testing.T, obj client.Object) bool {
	t.Helper()
	err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
	if apierrors.IsNotFound(err) {
		return false
	}
	require.NoError(t, err)
	return true
}

func replicas(t *testing.T, d *appsv1.Deployment) int32 {
	t.Helper()
	got := &appsv1.Deployment{}
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKeyFromObject(d), got))
	return ptr.Deref(got.Spec.Replicas, -1)
}

func preparer(ns string) *Preparer {
	return &Preparer{
		Client: env.Client, Namespace: ns, Selector: labels.SelectorFromSet(release), LeaseNamespace: ns,
		Parts: parts, Timeout: 10 * time.Second, PollInterval: 100 * time.Millisecond,
	}
}

func TestRunScalesTheReleaseDownAndDeletesItsLeasesOnly(t *testing.T) {
	ctx := context.Background()
	ns, elsewhere := namespace(t), namespace(t)
	scheduler := deployment(t, ns, "seedscaler-scheduler", withComponent("scheduler"), ptr.To[int32](2))
	setController := deployment(t, ns, "seedscaler-set-controller", withComponent("set-controller"), nil)
	foreignLabels := map[string]string{"app.kubernetes.io/name": "seedscaler", "app.kubernetes.io/instance": "other"}
	foreign := deployment(t, ns, "other-seedscaler-scheduler", foreignLabels, ptr.To[int32](1))

	ours := []*coordinationv1.Lease{
		lease(t, ns, LeaderElectionID("scheduler"), nil),
		lease(t, ns, LeaderElectionID("set-controller"), nil),
		lease(t, ns, objectlock.LeaseName("managedseedset", "uid-1"), lockOf("managedseedset", "uid-1")),
		lease(t, ns, objectlock.LeaseName("managedseedset", "uid-2"), lockOf("managedseedset", "uid-2")),
	}
	kept := []*coordinationv1.Lease{
		lease(t, ns, "cert-manager-controller", nil),
		// Leases of parts that are not in the release: the autoscaler's leader election and
		// object locks, the exporter's name (it elects no leader).
		lease(t, ns, LeaderElectionID("autoscaler"), nil),
		lease(t, ns, objectlock.LeaseName("seedautoscaler", "uid-3"), lockOf("seedautoscaler", "uid-3")),
		lease(t, ns, LeaderElectionID("exporter"), nil),
		// The same names in another namespace.
		lease(t, elsewhere, LeaderElectionID("scheduler"), nil),
		lease(t, elsewhere, objectlock.LeaseName("managedseedset", "uid-1"), lockOf("managedseedset", "uid-1")),
	}

	require.NoError(t, preparer(ns).Run(ctx))

	assert.Equal(t, int32(0), replicas(t, scheduler))
	assert.Equal(t, int32(0), replicas(t, setController), "a Deployment without replicas (HPA) is scaled too")
	assert.Equal(t, int32(1), replicas(t, foreign), "another release's Deployment is scaled")
	for _, l := range ours {
		assert.False(t, exists(t, l), "Lease %s of the release is left", l.Name)
	}
	for _, l := range kept {
		assert.True(t, exists(t, l), "Lease %s/%s is not the release's but was deleted", l.Namespace, l.Name)
	}
}

// A part releases its Leases as it stops: while one of its pods exists, Run waits, and
// after the timeout it fails naming the pod and deletes no Lease.
func TestRunWaitsForThePodsAndKeepsTheLeasesWhileOneRuns(t *testing.T) {
	ctx := context.Background()
	ns := namespace(t)
	scheduler := deployment(t, ns, "seedscaler-scheduler", withComponent("scheduler"), ptr.To[int32](1))
	running := pod(t, scheduler, "seedscaler-scheduler-abc12")
	// A pod of no Deployment of the release, e.g. the Job that runs this: not waited for.
	require.NoError(t, env.Client.Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "seedscaler-uninstall-x", Labels: withComponent("uninstall")},
		Spec:       scheduler.Spec.Template.Spec,
	}))
	leader := lease(t, ns, LeaderElectionID("scheduler"), nil)

	p := preparer(ns)
	p.Timeout = time.Second
	err := p.Run(ctx)
	require.Error(t, err)
	assert.Equal(t, "1 pods of the release still exist after 1s, so their Leases were left in place: seedscaler-scheduler-abc12", err.Error())
	assert.Equal(t, int32(0), replicas(t, scheduler))
	assert.True(t, exists(t, leader), "the Lease of a running part was deleted")

	// The pod stops while Run waits; the Job's pod is still there.
	p.Timeout = time.Minute
	result := make(chan error, 1)
	go func() { result <- p.Run(ctx) }()
	require.NoError(t, env.Client.Delete(ctx, running, client.GracePeriodSeconds(0)))
	select {
	case err := <-result:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("Run still waits after the last pod of the release is gone")
	}
	assert.False(t, exists(t, leader))
}

func TestRunRefusesAnEmptySelector(t *testing.T) {
	ns := namespace(t)
	d := deployment(t, ns, "unrelated", map[string]string{"app": "unrelated"}, ptr.To[int32](1))
	p := preparer(ns)
	p.Selector = labels.Everything()
	err := p.Run(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "an empty one would scale every Deployment of the namespace")
	assert.Equal(t, int32(1), replicas(t, d))
}

// LeaderElectionID names the Lease a part's manager really elects its leader with: a
// manager built as the parts build theirs leads, stops (releasing the Lease, which stays)
// and DeleteLeases deletes that Lease.
func TestLeaderElectionIDIsTheLeaseOfThePartsManager(t *testing.T) {
	ns := namespace(t)
	opts := app.Options{MetricsBindAddress: "0", HealthProbeBindAddress: "0", LeaderElect: true, LeaderElectionNamespace: ns}
	mgr, err := opts.NewManager("set-controller", env.Config, nil)
	require.NoError(t, err)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	select {
	case <-mgr.Elected():
	case <-time.After(30 * time.Second):
		t.Fatal("the manager was not elected")
	}
	stop()
	require.NoError(t, <-done)

	leader := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: LeaderElectionID("set-controller")}}
	require.True(t, exists(t, leader), "the manager's Lease is not named %s", leader.Name)
	deleted, err := preparer(ns).DeleteLeases(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, deleted)
	assert.False(t, exists(t, leader))
}
