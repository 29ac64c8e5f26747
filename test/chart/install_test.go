//go:build integration

package chart

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/autoscaler"
	"github.com/seedscaler/seedscaler/internal/objectlock"
	"github.com/seedscaler/seedscaler/seedmanagement/managedseed"
	"github.com/seedscaler/seedscaler/seedmanagement/managedseedset"
	"github.com/seedscaler/seedscaler/seedmanagement/seed"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
	"github.com/seedscaler/seedscaler/uninstall"
)

// apiServer starts a kube-apiserver without CRDs (the chart brings them), stopped when the
// test ends, and returns it with its admin kubeconfig, as bytes and as a file for helm.
func apiServer(t *testing.T) (*testenv.Environment, []byte, string) {
	t.Helper()
	env, err := testenv.Start(testenv.Options{CRDDirectory: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = env.Stop() })
	kubeconfig, err := env.KubeconfigBytes()
	require.NoError(t, err)
	kcFile := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kcFile, kubeconfig, 0o600))
	return env, kubeconfig, kcFile
}

// helm install into a real kube-apiserver: every object is accepted (CRDs, RBAC,
// APIServices, PDBs, ...); helm uninstall runs the pre-delete hook, which deletes the parts'
// Leases and no other, and then leaves nothing behind but the CRDs.
func TestInstallAndUninstallAgainstARealAPIServer(t *testing.T) {
	// No CRDs preinstalled: the chart brings them.
	env, kubeconfig, kcFile := apiServer(t)

	const namespace = "seedscaler-system"
	out, err := helm(t, "install", "seedscaler", chartDir(t), "--kubeconfig", kcFile,
		"--namespace", namespace, "--create-namespace", "--wait=false")
	require.NoError(t, err, out)
	assert.Contains(t, out, "STATUS: deployed")

	ctx := context.Background()
	rendered := render(t)
	for _, obj := range rendered {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(obj.GroupVersionKind())
		key := objectKey(obj, namespace)
		err := env.Client.Get(ctx, key, got)
		if isHook(obj) {
			assert.True(t, apierrors.IsNotFound(err), "pre-delete hook %s %s exists before uninstall (err=%v)", obj.GetKind(), key, err)
			continue
		}
		assert.NoError(t, err, "%s %s was not installed", obj.GetKind(), key)
	}

	// The Leases the parts leave: each leader-elected part's and object locks of each
	// controller that takes them; and Leases of others, in the namespace and elsewhere.
	var ours, others []*coordinationv1.Lease
	for _, part := range []string{"scheduler", "seed-controller", "set-controller", "autoscaler"} {
		ours = append(ours, createLease(t, env, namespace, uninstall.LeaderElectionID(part), nil))
	}
	for _, controller := range []string{managedseed.ControllerName, seed.ControllerName, managedseedset.ControllerName, autoscaler.ControllerName} {
		ours = append(ours, createLease(t, env, namespace, objectlock.LeaseName(controller, "0a1b"),
			map[string]string{objectlock.LabelController: controller, objectlock.LabelObjectUID: "0a1b"}))
	}
	others = append(others, createLease(t, env, namespace, "another-operator", nil))
	others = append(others, createLease(t, env, "default", uninstall.LeaderElectionID("scheduler"), nil))

	hookCtx, stopHook := context.WithCancel(ctx)
	hook := playUninstallHook(hookCtx, t, env, kubeconfig, namespace)
	out, err = helm(t, "uninstall", "seedscaler", "--kubeconfig", kcFile, "--namespace", namespace, "--timeout", "2m")
	stopHook()
	require.NoError(t, <-hook, "the pre-delete hook")
	require.NoError(t, err, out)
	for _, obj := range rendered {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(obj.GroupVersionKind())
		key := objectKey(obj, namespace)
		err := env.Client.Get(ctx, key, got)
		if obj.GetKind() == "CustomResourceDefinition" {
			assert.NoError(t, err, "CRD %s must survive uninstall: deleting it deletes every object of its kind", obj.GetName())
			continue
		}
		if obj.GetAnnotations()["helm.sh/resource-policy"] == "keep" {
			assert.NoError(t, err, "%s %s is kept: it may hold objects that are not the release's", obj.GetKind(), key)
			continue
		}
		if err == nil && got.GetDeletionTimestamp() != nil {
			continue // being deleted; garbage collection is not running in this apiserver
		}
		assert.True(t, apierrors.IsNotFound(err), "%s %s is left behind after uninstall (err=%v)", obj.GetKind(), key, err)
	}
	for _, l := range ours {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(l), &coordinationv1.Lease{})
		assert.True(t, apierrors.IsNotFound(err), "Lease %s of the release is left behind after uninstall (err=%v)", l.Name, err)
	}
	for _, l := range others {
		assert.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(l), &coordinationv1.Lease{}), "Lease %s/%s is not the release's", l.Namespace, l.Name)
	}
	for _, crd := range []string{"managedseedsets.seedmanagement.gardener.cloud", "seedautoscalers.autoscaling.seedscaler.io"} {
		got := &unstructured.Unstructured{}
		got.SetAPIVersion("apiextensions.k8s.io/v1")
		got.SetKind("CustomResourceDefinition")
		assert.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: crd}, got), "CRD %s must stay", crd)
	}
}

func isHook(obj *unstructured.Unstructured) bool {
	_, ok := obj.GetAnnotations()["helm.sh/hook"]
	return ok
}

func createLease(t *testing.T, env *testenv.Environment, namespace, name string, objLabels map[string]string) *coordinationv1.Lease {
	t.Helper()
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: objLabels}}
	require.NoError(t, env.Client.Create(context.Background(), l))
	return l
}

// playUninstallHook does what a kubelet and the Job controller would do for the chart's
// pre-delete hook, since this apiserver has neither: when helm has created the Job, it runs
// the Job's container with the real binary, as the Job's ServiceAccount (so the hook's
// RBAC must be enough), checks that it scaled every Deployment to 0, and marks the Job
// complete. The channel gets the first error, or nil.
func playUninstallHook(ctx context.Context, t *testing.T, env *testenv.Environment, adminKubeconfig []byte, namespace string) <-chan error {
	t.Helper()
	bin, err := testenv.BuildSeedscaler(t.TempDir(), testenv.Shipped)
	require.NoError(t, err)
	dir := t.TempDir()
	result := make(chan error, 1)
	go func() {
		result <- func() error {
			var job batchv1.Job
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for {
				err := env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "seedscaler-uninstall"}, &job)
				if err == nil {
					break
				}
				if !apierrors.IsNotFound(err) {
					return err
				}
				select {
				case <-ctx.Done():
					return errors.New("helm never created the Job seedscaler-uninstall")
				case <-tick.C:
				}
			}

			// The pod's credentials: its ServiceAccount's.
			cfg, err := clientcmd.Load(adminKubeconfig)
			if err != nil {
				return err
			}
			for _, auth := range cfg.AuthInfos {
				auth.Impersonate = fmt.Sprintf("system:serviceaccount:%s:%s", namespace, job.Spec.Template.Spec.ServiceAccountName)
			}
			kcFile := filepath.Join(dir, "kubeconfig")
			if err := clientcmd.WriteToFile(*cfg, kcFile); err != nil {
				return err
			}
			args := append(append([]string{}, job.Spec.Template.Spec.Containers[0].Args...), "--kubeconfig="+kcFile)
			now := metav1.Now()
			job.Status.StartTime = &now
			if out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput(); err != nil {
				// Fail the Job, so that helm stops waiting for it.
				job.Status.Failed = 1
				job.Status.Conditions = []batchv1.JobCondition{
					{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now},
					{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now},
				}
				return errors.Join(fmt.Errorf("seedscaler %s: %w\n%s", strings.Join(args, " "), err, out),
					env.Client.Status().Update(ctx, &job))
			}

			var deployments appsv1.DeploymentList
			if err := env.Client.List(ctx, &deployments, client.InNamespace(namespace)); err != nil {
				return err
			}
			if len(deployments.Items) == 0 {
				return errors.New("no Deployment left when the hook ran: helm deleted them before its pre-delete hook")
			}
			for _, d := range deployments.Items {
				if ptr.Deref(d.Spec.Replicas, -1) != 0 {
					return fmt.Errorf("the hook left Deployment %s at %d replicas", d.Name, ptr.Deref(d.Spec.Replicas, -1))
				}
			}

			job.Status.CompletionTime, job.Status.Succeeded = &now, 1
			job.Status.Conditions = []batchv1.JobCondition{
				{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now},
				{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now},
			}
			return env.Client.Status().Update(ctx, &job)
		}()
	}()
	return result
}

// objectKey is where a rendered object lives: its own namespace, the release namespace for
// namespaced objects that name none, no namespace for cluster-scoped kinds.
func objectKey(obj *unstructured.Unstructured, releaseNamespace string) client.ObjectKey {
	key := client.ObjectKey{Name: obj.GetName(), Namespace: obj.GetNamespace()}
	if !isNamespaced(obj.GetKind()) {
		key.Namespace = ""
	} else if key.Namespace == "" {
		key.Namespace = releaseNamespace
	}
	return key
}

func isNamespaced(kind string) bool {
	switch kind {
	case "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "APIService", "Namespace":
		return false
	}
	return true
}

// A cluster that already runs another metrics server (here KEDA for external metrics):
// the install must say who owns the APIService and which value leaves it alone, rather
// than take it over; with that value set, it installs.
func TestInstallRefusesToTakeOverAnAPIServiceOfAnotherOwner(t *testing.T) {
	env, _, kcFile := apiServer(t)

	keda := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1",
		"kind":       "APIService",
		"metadata":   map[string]any{"name": "v1beta1.external.metrics.k8s.io"},
		"spec": map[string]any{
			"group": "external.metrics.k8s.io", "version": "v1beta1",
			"groupPriorityMinimum": int64(100), "versionPriority": int64(100),
			"insecureSkipTLSVerify": true,
			"service":               map[string]any{"name": "keda-operator-metrics-apiserver", "namespace": "keda", "port": int64(443)},
		},
	}}
	require.NoError(t, env.Client.Create(context.Background(), keda))

	out, err := helm(t, "install", "seedscaler", chartDir(t), "--kubeconfig", kcFile,
		"--namespace", "seedscaler-system", "--create-namespace")
	require.Error(t, err, "the chart took over KEDA's APIService:\n%s", out)
	assert.Contains(t, out, "APIService v1beta1.external.metrics.k8s.io is already registered (served by service keda/keda-operator-metrics-apiserver)")
	assert.Contains(t, out, "set adapter.apiServices.external.enabled=false")

	out, err = helm(t, "install", "seedscaler", chartDir(t), "--kubeconfig", kcFile,
		"--namespace", "seedscaler-system", "--create-namespace", "--set", "adapter.apiServices.external.enabled=false")
	require.NoError(t, err, out)
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(keda.GroupVersionKind())
	require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Name: "v1beta1.external.metrics.k8s.io"}, got))
	svc, _, _ := unstructured.NestedString(got.Object, "spec", "service", "name")
	assert.Equal(t, "keda-operator-metrics-apiserver", svc, "KEDA's APIService must be left as it was")
}
