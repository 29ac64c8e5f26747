package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/seedscaler/seedscaler/scheduler/region"
)

func regionConfigMap(namespace, name, cloudProfiles string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   namespace,
			Name:        name,
			Labels:      map[string]string{region.LabelPurpose: region.PurposeRegionConfig},
			Annotations: map[string]string{region.AnnotationCloudProfiles: cloudProfiles},
		},
	}
}

func TestRegionConfigsFollowTheInformer(t *testing.T) {
	rc := newRegionConfigs("garden")
	h := rc.Handler()
	assert.Nil(t, rc.get("gcp"))

	h.OnAdd(regionConfigMap("garden", "b", "gcp, aws"), true)
	h.OnAdd(regionConfigMap("garden", "a", "gcp"), true)
	h.OnAdd(regionConfigMap("other", "0", "gcp,azure"), false)
	gcp := rc.get("gcp")
	require.NotNil(t, gcp)
	assert.Equal(t, "garden/a", gcp.Source, "the first by namespace/name wins")
	assert.Equal(t, "garden/b", rc.get("aws").Source)
	assert.Nil(t, rc.get("azure"), "only region configs of the configured namespace count")
	assert.Same(t, gcp, rc.get("gcp"), "unchanged region configs are not parsed again")

	h.OnDelete(regionConfigMap("garden", "a", "gcp"))
	assert.Equal(t, "garden/b", rc.get("gcp").Source)
	h.OnUpdate(regionConfigMap("garden", "b", "gcp, aws"), regionConfigMap("garden", "b", "aws"))
	assert.Nil(t, rc.get("gcp"))
	h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "garden/b"})
	assert.Nil(t, rc.get("aws"))
}
