//go:build integration

package app

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// A manager's cache keeps objects without their managedFields, which the kube-apiserver
// has; an update from the cached object leaves them on the server.
func TestManagerCacheStripsManagedFields(t *testing.T) {
	env, err := testenv.Start(testenv.Options{CRDDirectory: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = env.Stop() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cached"}, Data: map[string]string{"a": "1"}}
	require.NoError(t, env.Client.Create(ctx, cm, client.FieldOwner("creator")))
	require.NotEmpty(t, cm.ManagedFields, "the kube-apiserver records who wrote what")

	o := &Options{MetricsBindAddress: "0", HealthProbeBindAddress: "0"}
	mgr, err := o.NewManager("cache-test", env.Config, nil)
	require.NoError(t, err)
	go func() { _ = mgr.Start(ctx) }()
	require.True(t, mgr.GetCache().WaitForCacheSync(ctx))

	cached := &corev1.ConfigMap{}
	require.Eventually(t, func() bool {
		return mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(cm), cached) == nil
	}, 30*time.Second, 100*time.Millisecond)
	assert.Empty(t, cached.ManagedFields, "the cache keeps no managedFields")
	assert.Equal(t, "1", cached.Data["a"])

	cached.Data["a"] = "2"
	require.NoError(t, mgr.GetClient().Update(ctx, cached, client.FieldOwner("updater")))
	live := &corev1.ConfigMap{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(cm), live))
	managers := map[string]bool{}
	for _, f := range live.ManagedFields {
		managers[f.Manager] = true
	}
	assert.True(t, managers["creator"], "the creator's entry survives an update from the cache: %v", live.ManagedFields)
	assert.Equal(t, "2", live.Data["a"])
}
