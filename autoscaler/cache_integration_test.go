//go:build integration

package autoscaler_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler"
	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/membership"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// The autoscaler's cache holds the metadata of replica shoots and few others: every shoot
// of the garden namespace, where Gardener's sets keep their replicas (told by an owner
// reference, no label), and elsewhere the shoots labeled with their set; a tenant's shoot
// is not in it, however many there are.
func TestCacheHoldsReplicaShootsOnly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: membership.GardenNamespace}}); !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	set := &seedmanagementv1alpha1.ManagedSeedSet{ObjectMeta: metav1.ObjectMeta{Namespace: membership.GardenNamespace, Name: "cache", UID: "uid-cache"}}
	gardenerReplica := builders.MakeShoot(membership.GardenNamespace, "cache-0").Labels("pool", "cache").Obj()
	gardenerReplica.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(set, seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet"))}
	labeledReplica := builders.MakeShoot("default", "cache-replica-0").Labels(seedmanagementv1alpha1.LabelManagedSeedSet, "cache").Obj()
	tenant := builders.MakeShoot("default", "cache-tenant").Obj()
	for _, shoot := range []*gardencorev1beta1.Shoot{gardenerReplica, labeledReplica, tenant} {
		require.NoError(t, env.Client.Create(ctx, shoot))
		t.Cleanup(func() { _ = env.Client.Delete(context.Background(), shoot) })
	}

	o := &app.Options{MetricsBindAddress: "0", HealthProbeBindAddress: "0"}
	mgr, err := o.NewManager("autoscaler-cache-test", env.Config, func(opts *manager.Options) { autoscaler.CacheOptions(&opts.Cache) })
	require.NoError(t, err)
	go func() { _ = mgr.Start(ctx) }()

	meta := func(shoot *gardencorev1beta1.Shoot) *metav1.PartialObjectMetadata {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(gardencorev1beta1.GroupVersion.WithKind("Shoot"))
		m.SetNamespace(shoot.Namespace)
		m.SetName(shoot.Name)
		return m
	}
	for _, replica := range []*gardencorev1beta1.Shoot{gardenerReplica, labeledReplica} {
		require.Eventually(t, func() bool {
			return mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(replica), meta(replica)) == nil
		}, 30*time.Second, 100*time.Millisecond, "the replica's shoot %s is in the cache", client.ObjectKeyFromObject(replica))
	}
	err = mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(tenant), meta(tenant))
	assert.True(t, apierrors.IsNotFound(err), "a tenant's shoot is not in the cache: %v", err)
}
