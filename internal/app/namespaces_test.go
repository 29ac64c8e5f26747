package app

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestCacheInNamespacesKeepsTheSelectorAndTouchesNothingElse(t *testing.T) {
	selector := labels.SelectorFromSet(labels.Set{"a": "b"})
	opts := cache.Options{ByObject: map[client.Object]cache.ByObject{
		&appsv1.ControllerRevision{}: {Label: selector},
		&corev1.ConfigMap{}:          {Label: selector},
	}}
	CacheInNamespaces(&opts, &appsv1.ControllerRevision{}, []string{"garden", "garden-2"})
	require.Len(t, opts.ByObject, 2, "a second entry for the same kind")
	for obj, by := range opts.ByObject {
		assert.Equal(t, selector, by.Label)
		switch obj.(type) {
		case *appsv1.ControllerRevision:
			assert.Equal(t, map[string]cache.Config{"garden": {}, "garden-2": {}}, by.Namespaces)
		default:
			assert.Nil(t, by.Namespaces, "another kind was restricted")
		}
	}

	empty := cache.Options{}
	CacheInNamespaces(&empty, &appsv1.ControllerRevision{}, nil)
	assert.Nil(t, empty.ByObject, "no namespaces must leave the cache cluster-wide")
	CacheInNamespaces(&empty, &corev1.Pod{}, []string{"x"})
	assert.Len(t, empty.ByObject, 1)
}
