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
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/test/framework/garden"
	"github.com/seedscaler/seedscaler/test/framework/process"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

var (
	// seedscaler is the binary the parts run as; built once for the package.
	seedscaler string
	// buildDir holds the builds of the package's binaries.
	buildDir string
)

// developmentBuild is the seedscaler binary with the development subcommands (`simulate`),
// built on first use: only the tests that run the simulator need it.
var developmentBuild = sync.OnceValues(func() (string, error) {
	dir := filepath.Join(buildDir, "dev")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return testenv.BuildSeedscaler(dir, testenv.Development)
})

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "seedscaler-garden-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
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
	// An empty CRD directory until the chart's autoscaling-crds folder exists in this
	// branch: envtest needs one that exists.
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
	return startProcess(t, g, seedscaler, name, args...)
}

// startSimulator runs `seedscaler-dev simulate` (a development build) against the garden, as
// `seedscaler-dev local` runs it, and stops it when the test ends.
func startSimulator(t *testing.T, g *garden.Garden, args ...string) *process.Process {
	t.Helper()
	bin, err := developmentBuild()
	require.NoError(t, err)
	return startProcess(t, g, bin, "simulate", args...)
}

func startProcess(t *testing.T, g *garden.Garden, binary, name string, args ...string) *process.Process {
	t.Helper()
	args = append(args, "--kubeconfig="+g.Kubeconfig, "--metrics-bind-address=0", "--health-probe-bind-address=0")
	p := process.New(name, binary, g.LogDir, append([]string{name}, args...)...)
	require.NoError(t, p.Start())
	t.Cleanup(func() { p.Stop(10 * time.Second) })
	return p
}

func printLogs(t *testing.T, dir string) {
	t.Log(garden.LogTails(dir))
}
