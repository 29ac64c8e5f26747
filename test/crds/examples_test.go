//go:build integration

package crds

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/seedscaler/seedscaler/test/framework/manifest"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// Every manifest in examples/ must apply as it is, with strict field validation: the
// examples are what users copy first. examples/config holds configuration files of
// seedscaler's own parts, which are not Kubernetes objects; their parts' tests load them.
// examples/gardener holds objects of a real Gardener garden, with fields seedscaler's CRDs
// do not carry; the tests in test/garden apply them to gardener-apiserver.
func TestEveryExampleApplies(t *testing.T) {
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	files, err := manifest.Files(filepath.Join(root, "examples"))
	require.NoError(t, err)
	require.NotEmpty(t, files)

	var all []*unstructured.Unstructured
	for _, f := range files {
		if strings.HasPrefix(f, filepath.Join(root, "examples", "config")+string(filepath.Separator)) ||
			strings.HasPrefix(f, filepath.Join(root, "examples", "gardener")+string(filepath.Separator)) {
			continue
		}
		objs, err := manifest.ReadFile(f)
		require.NoError(t, err)
		require.NotEmpty(t, objs, "%s holds no object", f)
		all = append(all, objs...)
	}
	require.NoError(t, manifest.CreateOrderly(context.Background(), env.Client, all))
}
