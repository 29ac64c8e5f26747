//go:build integration

package exporter

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/membership"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/promrunner"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// createGardenerSet creates, in the garden namespace, a ManagedSeedSet from the GEP's
// example as Gardener keeps it: no status.selector.
func createGardenerSet(ctx context.Context, t *testing.T, name string) *seedmanagementv1alpha1.ManagedSeedSet {
	t.Helper()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: membership.GardenNamespace}}); !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(t, testenv.ReadExample("managedseedset.yaml", set))
	set.Name, set.Namespace = name, membership.GardenNamespace
	set.Spec.Replicas = ptr.To[int32](1)
	require.NoError(t, env.Client.Create(ctx, set))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), set) })
	require.Empty(t, set.Status.Selector)
	return set
}

// createGardenerManagedSeed creates the ManagedSeed of a set's replica as Gardener's set
// controller makes it: the template's labels, a controller reference to the set, no set
// label.
func createGardenerManagedSeed(ctx context.Context, t *testing.T, set *seedmanagementv1alpha1.ManagedSeedSet, name string) {
	t.Helper()
	ms := &seedmanagementv1alpha1.ManagedSeed{ObjectMeta: metav1.ObjectMeta{
		Namespace: set.Namespace, Name: name, Labels: set.Spec.Template.Labels,
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet"))},
	}}
	ms.Spec = *set.Spec.Template.Spec.DeepCopy()
	ms.Spec.Shoot = &seedmanagementv1alpha1.Shoot{Name: name}
	require.NoError(t, env.Client.Create(ctx, ms))
	require.NotContains(t, ms.Labels, seedmanagementv1alpha1.LabelManagedSeedSet)
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), ms) })
}

// A seed of a set of Gardener's carries the seed template's labels only: garden_seed_info
// names its set from the moment its ManagedSeed (garden/<seed>, owned by the set) is
// there, and the demand recording rule of the chart's Prometheus rules, which joins the
// seeds' usage to their set through it, counts the set's shoots.
func TestGardenerReplicaSeedIsJoinedToItsSet(t *testing.T) {
	ctx := context.Background()
	set := createGardenerSet(ctx, t, "soil")
	seedLabels := []string{}
	for k, v := range set.Spec.Template.Spec.SeedTemplate.Labels {
		seedLabels = append(seedLabels, k, v)
	}
	seed := builders.MakeSeed("soil-0").Provider("gcp", "europe-west1").Labels(seedLabels...).Allocatable(10).Ready().Obj()
	createSeed(ctx, t, seed)
	createNamespace(ctx, t, "garden-soil-tenants")
	for i := range 2 {
		require.NoError(t, env.Client.Create(ctx, builders.MakeShoot("garden-soil-tenants", fmt.Sprintf("t-%d", i)).SeedName(seed.Name).Obj()))
	}
	reg := startExporter(t)
	info := func(set, namespace string) map[string]string {
		return map[string]string{"name": seed.Name, "managedseedset": set, "namespace": namespace}
	}
	eventuallyValue(t, reg, 1, "garden_seed_info", info("", ""))

	createGardenerManagedSeed(ctx, t, set, seed.Name)
	eventuallyValue(t, reg, 1, "garden_seed_info", info("soil", membership.GardenNamespace))
	_, stale := value(t, reg, "garden_seed_info", info("", ""))
	assert.False(t, stale, "one info series per seed")

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

	require.EventuallyWithT(t, func(c *assert.CollectT) {
		series, err := prom.Query(`managedseedset:seedscaler_demand_shoots:sum{managedseedset="soil"}`)
		if !assert.NoError(c, err) || !assert.Len(c, series, 1) {
			return
		}
		assert.Equal(c, membership.GardenNamespace, series[0].Labels["namespace"])
		assert.Equal(c, 2.0, series[0].Value, "the shoots on the set's seed")
	}, 60*time.Second, 250*time.Millisecond)
}
