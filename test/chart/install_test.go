package chart

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/internal/testenv"
)

// helm install into a real kube-apiserver: every object is accepted (CRDs, RBAC,
// APIServices, HPAs, PDBs, ...); helm uninstall then leaves nothing behind but the CRDs.
func TestInstallAndUninstallAgainstARealAPIServer(t *testing.T) {
	// No CRDs preinstalled: the chart brings them.
	env, err := testenv.Start(testenv.Options{CRDDirectory: t.TempDir()})
	require.NoError(t, err)
	defer env.Stop()
	kubeconfig, err := env.KubeconfigBytes()
	require.NoError(t, err)
	kcFile := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kcFile, kubeconfig, 0o600))

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
		assert.NoError(t, env.Client.Get(ctx, key, got), "%s %s was not installed", obj.GetKind(), key)
	}

	out, err = helm(t, "uninstall", "seedscaler", "--kubeconfig", kcFile, "--namespace", namespace)
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
		if err == nil && got.GetDeletionTimestamp() != nil {
			continue // being deleted; garbage collection is not running in this apiserver
		}
		assert.True(t, apierrors.IsNotFound(err), "%s %s is left behind after uninstall (err=%v)", obj.GetKind(), key, err)
	}
	for _, crd := range []string{"managedseedsets.seedmanagement.gardener.cloud", "seedautoscalers.seedmanagement.gardener.cloud"} {
		got := &unstructured.Unstructured{}
		got.SetAPIVersion("apiextensions.k8s.io/v1")
		got.SetKind("CustomResourceDefinition")
		assert.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: crd}, got), "CRD %s from crds/ must stay", crd)
	}
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
	env, err := testenv.Start(testenv.Options{CRDDirectory: t.TempDir()})
	require.NoError(t, err)
	defer env.Stop()
	kubeconfig, err := env.KubeconfigBytes()
	require.NoError(t, err)
	kcFile := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kcFile, kubeconfig, 0o600))

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
