//go:build integration

package crds

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"
)

// `kubectl get sa` always means ServiceAccounts: kubectl resolves a short name to the first
// resource that claims it, and the core group comes first. SeedAutoscalers need a short name
// of their own that reaches them.
func TestSeedAutoscalerShortNameReachesIt(t *testing.T) {
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	require.NoError(t, err)
	mapper := restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)), dc, nil)

	gvr, err := mapper.ResourceFor(schema.GroupVersionResource{Resource: "seedas"})
	require.NoError(t, err)
	assert.Equal(t, schema.GroupVersionResource{Group: "autoscaling.seedscaler.io", Version: "v1alpha1", Resource: "seedautoscalers"}, gvr)

	gvr, err = mapper.ResourceFor(schema.GroupVersionResource{Resource: "sa"})
	require.NoError(t, err)
	assert.Equal(t, "serviceaccounts", gvr.Resource, "sa is ServiceAccounts' and no use to claim")

	_, resources, err := dc.ServerGroupsAndResources()
	require.NoError(t, err)
	for _, list := range resources {
		for _, r := range list.APIResources {
			if r.Name == "seedautoscalers" {
				assert.Equal(t, []string{"seedas"}, r.ShortNames)
			}
		}
	}
}
