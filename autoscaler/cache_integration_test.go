//go:build integration

package autoscaler_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler"
	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/builders"
)

// The autoscaler's cache holds the metadata of replica shoots only: a tenant's shoot is not
// in it, however many there are.
func TestCacheHoldsReplicaShootsOnly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	replica := builders.MakeShoot("default", "cache-replica-0").Labels(seedmanagementv1alpha1.LabelManagedSeedSet, "cache").Obj()
	tenant := builders.MakeShoot("default", "cache-tenant").Obj()
	require.NoError(t, env.Client.Create(ctx, replica))
	require.NoError(t, env.Client.Create(ctx, tenant))
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), replica)
		_ = env.Client.Delete(context.Background(), tenant)
	})

	o := &app.Options{MetricsBindAddress: "0", HealthProbeBindAddress: "0"}
	mgr, err := o.NewManager("autoscaler-cache-test", env.Config, func(opts *manager.Options) { autoscaler.CacheOptions(&opts.Cache) })
	require.NoError(t, err)
	go func() { _ = mgr.Start(ctx) }()

	meta := func(name string) *metav1.PartialObjectMetadata {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(gardencorev1beta1.GroupVersion.WithKind("Shoot"))
		m.SetNamespace("default")
		m.SetName(name)
		return m
	}
	require.Eventually(t, func() bool {
		return mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(replica), meta(replica.Name)) == nil
	}, 30*time.Second, 100*time.Millisecond, "the replica's shoot is in the cache")
	err = mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(tenant), meta(tenant.Name))
	assert.True(t, apierrors.IsNotFound(err), "a tenant's shoot is not in the cache: %v", err)
}
