package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The test harness, the development commands and the report's plotting
// (cmd/seedscaler-dev) must stay out of the shipped binary: envtest
// creates a directory under /tmp when its package initializes, which panics every part on
// the chart's read-only root file system.
var devOnly = []string{
	"sigs.k8s.io/controller-runtime/pkg/envtest",
	"sigs.k8s.io/controller-runtime/pkg/internal/testing/",
	"github.com/seedscaler/seedscaler/test/",
	"github.com/seedscaler/seedscaler/dev/",
	"gonum.org/v1/plot",
}

func linked(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return strings.Fields(string(out))
}

func matching(pkgs []string, prefixes []string) []string {
	var found []string
	for _, p := range pkgs {
		for _, prefix := range prefixes {
			if p == strings.TrimSuffix(prefix, "/") || strings.HasPrefix(p, strings.TrimSuffix(prefix, "/")+"/") {
				found = append(found, p)
			}
		}
	}
	return found
}

func TestShippedBinaryLinksNoTestHarnessNorPlotting(t *testing.T) {
	assert.Empty(t, matching(linked(t), devOnly), "the shipped build links development packages")
}

// The image holds the binary and nothing else, no CA bundle: the shipped build carries
// Mozilla's roots, which Go uses only where the system has none, so that the adapter
// verifies a Prometheus, Thanos Querier or Mimir whose certificate a public CA signed.
func TestShippedBinaryCarriesCARoots(t *testing.T) {
	assert.NotEmpty(t, matching(linked(t), []string{"golang.org/x/crypto/x509roots/fallback"}), "the shipped build has no CA roots of its own")
}
