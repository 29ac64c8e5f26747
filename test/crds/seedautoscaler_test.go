package crds

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A SeedAutoscaler that names a resource the exporter publishes no usage for would fail to
// fetch its metric for ever and hold every scale-in; the apiserver rejects it instead.
func TestSeedAutoscalerRejectsResourcesWithoutUsage(t *testing.T) {
	ensureNamespace(t, "sa-invalid")
	cases := []struct {
		name   string
		change mutation
		want   string
	}{
		{"a typo of shoots", setMetric("shots", "resource", "name"),
			`spec.metrics[0].resource.name: Unsupported value: "shots": supported values: "shoots"`},
		{"a resource the exporter publishes no usage for", setMetric("persistent-volumes", "resource", "name"),
			`spec.metrics[0].resource.name: Unsupported value: "persistent-volumes": supported values: "shoots"`},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := example(t, "seedautoscaler.yaml")
			obj.SetNamespace("sa-invalid")
			obj.SetName(fmt.Sprintf("invalid-%d", i))
			tc.change(obj.Object)
			err := env.Client.Create(context.Background(), obj, client.FieldValidation("Strict"))
			require.Error(t, err, "the apiserver accepted an invalid object")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// `kubectl get sa` always means ServiceAccounts: kubectl resolves a short name to the first
// resource that claims it, and the core group comes first. SeedAutoscalers need a short name
// of their own that reaches them.
func TestSeedAutoscalerShortNameReachesIt(t *testing.T) {
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	require.NoError(t, err)
	mapper := restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)), dc, nil)

	gvr, err := mapper.ResourceFor(schema.GroupVersionResource{Resource: "seedas"})
	require.NoError(t, err)
	assert.Equal(t, schema.GroupVersionResource{Group: "seedmanagement.gardener.cloud", Version: "v1alpha1", Resource: "seedautoscalers"}, gvr)

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
