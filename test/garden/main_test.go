//go:build integration

// Package garden tests seedscaler's parts against a real Gardener garden: gardener-apiserver
// serves Seeds, Shoots and ManagedSeedSets and judges every binding with its admission
// plugins, gardener-scheduler places the shoots that do not name seedscaler's scheduler, and
// gardener-controller-manager reconciles ManagedSeedSets. Every part runs as the chart runs
// it: the seedscaler binary with a subcommand and flags.
package garden

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/internal/process"
	"github.com/seedscaler/seedscaler/internal/testing/garden"
	"github.com/seedscaler/seedscaler/internal/testing/testenv"
)

// seedscaler is the binary the parts run as; built once for the package.
var seedscaler string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "seedscaler-garden-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if seedscaler, err = testenv.BuildSeedscaler(dir, testenv.Shipped); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir) // a temporary build: what is left behind harms nothing
	os.Exit(code)
}

// startGarden starts a garden for one test, with the landscape of testdata/landscape.yaml,
// and stops it when the test ends; Gardener's logs are printed when the test failed.
func startGarden(t *testing.T, ctx context.Context) *garden.Garden {
	t.Helper()
	g, err := garden.Start(ctx, garden.Options{LogDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			printLogs(t, g.LogDir)
		}
		require.NoError(t, g.Stop())
	})
	landscape, err := os.ReadFile(filepath.Join("testdata", "landscape.yaml"))
	require.NoError(t, err)
	require.NoError(t, g.Apply(ctx, landscape))
	return g
}

// startPart runs one of seedscaler's parts against the garden, as its Deployment would, and
// stops it when the test ends.
func startPart(t *testing.T, g *garden.Garden, name string, args ...string) *process.Process {
	t.Helper()
	args = append(args, "--kubeconfig="+g.Kubeconfig, "--metrics-bind-address=0", "--health-probe-bind-address=0")
	p := process.New(name, seedscaler, g.LogDir, append([]string{name}, args...)...)
	require.NoError(t, p.Start())
	t.Cleanup(func() { p.Stop(10 * time.Second) })
	return p
}

func printLogs(t *testing.T, dir string) {
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, path := range logs {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if len(data) > 4096 {
			data = data[len(data)-4096:]
		}
		t.Logf("--- %s (end) ---\n%s", filepath.Base(path), data)
	}
}
