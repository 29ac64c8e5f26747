//go:build integration

package chart

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// Releases of the chart before its seedmanagement CRDs became templates installed them from
// crds/, which helm creates without the release's ownership metadata; helm then refuses to
// take them into a release. docs/deployment.md ("Upgrading from crds/") says how to hand
// them over: the label and annotations below, after which the release owns, upgrades and
// keeps them.
func TestSeedManagementCRDsFromCRDsFolderAreAdoptedWithTheDocumentedMetadata(t *testing.T) {
	env, _, kcFile := apiServer(t)
	ctx := context.Background()
	const namespace = "seedscaler-system"
	dir := filepath.Join(chartDir(t), "files", "seedmanagement-crds")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		crd := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal(data, &crd.Object))
		require.NoError(t, env.Client.Create(ctx, crd), "as helm installs crds/: no ownership metadata")
		names = append(names, crd.GetName())
	}
	require.Len(t, names, 2, "ManagedSeed and ManagedSeedSet")

	install := func() (string, error) {
		return helm(t, "install", "seedscaler", chartDir(t), "--kubeconfig", kcFile,
			"--namespace", namespace, "--create-namespace", "--wait=false")
	}
	out, err := install()
	require.Error(t, err, out)
	assert.Contains(t, out, "invalid ownership metadata")

	// The documented hand-over.
	for _, name := range names {
		crd := &unstructured.Unstructured{}
		crd.SetAPIVersion("apiextensions.k8s.io/v1")
		crd.SetKind("CustomResourceDefinition")
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: name}, crd))
		crd.SetLabels(map[string]string{"app.kubernetes.io/managed-by": "Helm"})
		crd.SetAnnotations(map[string]string{"meta.helm.sh/release-name": "seedscaler", "meta.helm.sh/release-namespace": namespace})
		require.NoError(t, env.Client.Update(ctx, crd))
	}
	out, err = install()
	require.NoError(t, err, out)
	for _, name := range names {
		crd := &unstructured.Unstructured{}
		crd.SetAPIVersion("apiextensions.k8s.io/v1")
		crd.SetKind("CustomResourceDefinition")
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: name}, crd))
		assert.Equal(t, "keep", crd.GetAnnotations()["helm.sh/resource-policy"], "%s is the release's now, kept on uninstall", name)
	}
}
