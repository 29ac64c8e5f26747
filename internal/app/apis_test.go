package app

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clienttesting "k8s.io/client-go/testing"
)

func TestRequireKinds(t *testing.T) {
	dc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: []*metav1.APIResourceList{{
		GroupVersion: "core.gardener.cloud/v1beta1",
		APIResources: []metav1.APIResource{{Name: "shoots", Kind: "Shoot"}, {Name: "shoots/binding", Kind: "Binding"}, {Name: "seeds", Kind: "Seed"}},
	}}}}
	shoot := schema.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Shoot"}
	binding := schema.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Binding"}
	autoscaler := schema.GroupVersionKind{Group: "autoscaling.seedscaler.io", Version: "v1alpha1", Kind: "SeedAutoscaler"}

	require.NoError(t, requireKinds(dc, "scheduler", []schema.GroupVersionKind{shoot}))
	err := requireKinds(dc, "autoscaler", []schema.GroupVersionKind{shoot, autoscaler, binding})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the autoscaler needs SeedAutoscaler (autoscaling.seedscaler.io/v1alpha1), Binding (core.gardener.cloud/v1beta1), which this cluster does not serve")
}
