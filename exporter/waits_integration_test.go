//go:build integration

package exporter

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/promrunner"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// waitHistogram returns the garden_shoot_scheduling_wait_seconds series with the given
// labels, nil while there is none.
func waitHistogram(t *testing.T, g prometheus.Gatherer, labels map[string]string) *dto.Histogram {
	t.Helper()
	families, err := g.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != "garden_shoot_scheduling_wait_seconds" {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if want, ok := labels[l.GetName()]; ok && want != l.GetValue() {
					continue series
				}
			}
			return m.GetHistogram()
		}
	}
	return nil
}

// Shoots created without a seed and bound while the exporter watches are timed, labeled with
// the set of their seed, and the chart's rules make the service level of them in a real
// Prometheus, which stores the threshold's bucket as le="60.0".
func TestBindsReachTheServiceLevelRules(t *testing.T) {
	ctx := context.Background()
	createNamespace(ctx, t, "garden-wait")
	createSeed(ctx, t, builders.MakeSeed("wait-a").Provider("aws", "eu-west-1").Allocatable(5).Ready().
		Labels(seedmanagementv1alpha1.LabelManagedSeedSet, "wait", seedmanagementv1alpha1.LabelManagedSeedSetNamespace, "garden-wait").Obj())
	shoots := []*gardencorev1beta1.Shoot{
		builders.MakeShoot("garden-wait", "first").Provider("aws", "eu-west-1").Obj(),
		builders.MakeShoot("garden-wait", "second").Provider("aws", "eu-west-1").Obj(),
	}
	for _, s := range shoots {
		require.NoError(t, env.Client.Create(ctx, s))
	}
	// Created with a seed: it waited for nothing.
	require.NoError(t, env.Client.Create(ctx, builders.MakeShoot("garden-wait", "placed").Provider("aws", "eu-west-1").SeedName("wait-a").Obj()))
	reg := startExporter(t)

	bind := func(s *gardencorev1beta1.Shoot) {
		t.Helper()
		s.Spec.SeedName = ptr.To("wait-a")
		require.NoError(t, env.Client.Update(ctx, s))
	}
	labels := map[string]string{"managedseedset": "wait", "namespace": "garden-wait", "region": "eu-west-1"}
	bind(shoots[0])
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		h := waitHistogram(t, reg, labels)
		if !assert.NotNil(c, h, "no wait observed") {
			return
		}
		assert.Equal(c, uint64(1), h.GetSampleCount(), "the bind, and not the shoot created with a seed")
		for _, b := range h.GetBucket() {
			if b.GetUpperBound() == 60 {
				assert.Equal(c, uint64(1), b.GetCumulativeCount(), "a shoot bound within seconds of its creation waited less than 60 s")
			}
		}
	}, 30*time.Second, 50*time.Millisecond)

	bin, err := testenv.Tool("prometheus")
	require.NoError(t, err)
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	server := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(func() { _ = server.Close() })
	prom, err := promrunner.Start(ctx, promrunner.Options{Binary: bin, ScrapeInterval: 500 * time.Millisecond,
		RuleFiles: []string{filepath.Join(root, "charts", "seedscaler", "files", "alerts", "seedscaler.rules.yaml")},
		Targets:   []promrunner.Target{{Job: "seedscaler-exporter", Addresses: []string{listener.Addr().String()}}}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = prom.Stop() })

	// A series' first sample is no increase to rate(): the second bind is what the rules see.
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		series, err := prom.Query(`garden_shoot_scheduling_wait_seconds_bucket{job="seedscaler-exporter", managedseedset="wait", le="60.0"}`)
		assert.NoError(c, err)
		assert.Len(c, series, 1)
	}, 30*time.Second, 250*time.Millisecond)
	bind(shoots[1])
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		for query, want := range map[string]float64{
			"seedscaler:shoot_scheduling_sli:ratio_rate5m":                     1,
			"seedscaler:shoot_scheduling_burn_rate:ratio_rate5m":               0,
			"seedscaler:shoot_scheduling_error_budget_remaining:ratio_rate28d": 1,
		} {
			series, err := prom.Query(query)
			if assert.NoError(c, err, query) && assert.Len(c, series, 1, query) {
				assert.InDelta(c, want, series[0].Value, 1e-9, query)
			}
		}
	}, 60*time.Second, 250*time.Millisecond)
}
