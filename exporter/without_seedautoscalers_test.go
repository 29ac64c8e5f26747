//go:build integration

package exporter

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/clock"

	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// A cluster that serves Seeds, Shoots, ManagedSeeds and ManagedSeedSets but no SeedAutoscaler
// kind, as one installed without the autoscaling.seedscaler.io CRD: without SeedAutoscalers
// the exporter syncs, becomes ready and exports the seeds.
func TestExporterWithoutSeedAutoscalersIsReadyWhereTheKindIsNotServed(t *testing.T) {
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	crds := t.TempDir()
	for _, f := range []string{
		"files/core-crds/core.gardener.cloud_seeds.yaml",
		"files/core-crds/core.gardener.cloud_shoots.yaml",
		"files/seedmanagement-crds/seedmanagement.gardener.cloud_managedseeds.yaml",
		"files/seedmanagement-crds/seedmanagement.gardener.cloud_managedseedsets.yaml",
	} {
		data, err := os.ReadFile(filepath.Join(root, "charts", "seedscaler", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(crds, filepath.Base(f)), data, 0o600))
	}
	garden, err := testenv.Start(testenv.Options{CRDDirectory: crds})
	require.NoError(t, err)
	t.Cleanup(func() { _ = garden.Stop() })
	ctx := context.Background()
	seed := builders.MakeSeed("beside").Provider("aws", "eu-west-1").Allocatable(3).Ready().Obj()
	status := seed.Status
	require.NoError(t, garden.Client.Create(ctx, seed))
	seed.Status = status
	require.NoError(t, garden.Client.Status().Update(ctx, seed))

	ctx, cancel := context.WithCancel(logr.NewContext(ctx, testr.New(t)))
	exp, err := New(ctx, garden.Config, clock.RealClock{}, WithoutSeedAutoscalers())
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- exp.Start(ctx) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })
	require.Eventually(t, func() bool { return exp.Ready() == nil }, 30*time.Second, 50*time.Millisecond,
		"the exporter never became ready without the SeedAutoscaler kind")

	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(exp.Collector()))
	eventuallyValue(t, reg, 3, "garden_seed_allocatable", map[string]string{"name": "beside", "resource": "shoots"})
}
