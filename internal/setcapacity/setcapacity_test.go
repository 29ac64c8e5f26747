package setcapacity

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

func set(annotation *string, capacity, reserved string) *seedmanagementv1alpha1.ManagedSeedSet {
	s := &seedmanagementv1alpha1.ManagedSeedSet{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "eu"}}
	if annotation != nil {
		s.Annotations = map[string]string{Annotation: *annotation}
	}
	if capacity == "" {
		s.Spec.Template.Spec.SeedTemplate = &gardencorev1beta1.SeedTemplate{}
		return s
	}
	resources := &seedmanagementv1alpha1.ResourcesConfiguration{Capacity: corev1.ResourceList{gardencorev1beta1.ResourceShoots: resource.MustParse(capacity)}}
	if reserved != "" {
		resources.Reserved = corev1.ResourceList{gardencorev1beta1.ResourceShoots: resource.MustParse(reserved)}
	}
	s.Spec.Template.Spec.Gardenlet = &seedmanagementv1alpha1.Gardenlet{Config: &seedmanagementv1alpha1.GardenletConfiguration{Resources: resources}}
	return s
}

func ptr(s string) *string { return &s }

func TestNewReplicaShoots(t *testing.T) {
	cases := []struct {
		name    string
		set     *seedmanagementv1alpha1.ManagedSeedSet
		want    int64
		source  string
		wantErr string
	}{
		{name: "the annotation", set: set(ptr("40"), "", ""), want: 40, source: "annotation capacity.seedmanagement.gardener.cloud/shoots"},
		{name: "the annotation wins over the template", set: set(ptr("7"), "100", "10"), want: 7, source: "annotation capacity.seedmanagement.gardener.cloud/shoots"},
		{name: "a quantity with a suffix", set: set(ptr("1k"), "", ""), want: 1000, source: "annotation capacity.seedmanagement.gardener.cloud/shoots"},
		{name: "zero: new replicas take no shoots", set: set(ptr("0"), "", ""), want: 0, source: "annotation capacity.seedmanagement.gardener.cloud/shoots"},
		{name: "the template's capacity less reserved", set: set(nil, "100", "10"), want: 90, source: "the template's gardenlet.config.resources"},
		{name: "the template's capacity without reserved", set: set(nil, "40", ""), want: 40, source: "the template's gardenlet.config.resources"},
		{name: "nothing says: the default", set: set(nil, "", ""), want: 250, source: "the default of 250 shoots per seed"},
		{name: "not a number: as if absent, and said", set: set(ptr("abc"), "", ""), want: 250, source: "the default of 250 shoots per seed",
			wantErr: `annotation capacity.seedmanagement.gardener.cloud/shoots="abc" of ManagedSeedSet garden/eu is not a whole number of shoots (0 or more, such as "250"): it is ignored, and new replicas are sized from the default of 250 shoots per seed`},
		{name: "not a number, with a template", set: set(ptr("lots"), "100", "10"), want: 90, source: "the template's gardenlet.config.resources",
			wantErr: `annotation capacity.seedmanagement.gardener.cloud/shoots="lots" of ManagedSeedSet garden/eu is not a whole number of shoots (0 or more, such as "250"): it is ignored, and new replicas are sized from the template's gardenlet.config.resources`},
		{name: "negative", set: set(ptr("-5"), "", ""), want: 250, source: "the default of 250 shoots per seed",
			wantErr: `annotation capacity.seedmanagement.gardener.cloud/shoots="-5" of ManagedSeedSet garden/eu is not a whole number of shoots`},
		{name: "a fraction of a shoot", set: set(ptr("2.5"), "", ""), want: 250, source: "the default of 250 shoots per seed",
			wantErr: `annotation capacity.seedmanagement.gardener.cloud/shoots="2.5" of ManagedSeedSet garden/eu is not a whole number of shoots`},
		{name: "empty", set: set(ptr(""), "", ""), want: 250, source: "the default of 250 shoots per seed",
			wantErr: `annotation capacity.seedmanagement.gardener.cloud/shoots="" of ManagedSeedSet garden/eu is not a whole number of shoots`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewReplicaShoots(tc.set, DefaultShoots)
			assert.Equal(t, tc.want, got.Shoots)
			assert.Equal(t, tc.source, got.Source)
			if tc.wantErr == "" {
				assert.NoError(t, err)
			} else if assert.Error(t, err) {
				assert.Contains(t, err.Error(), tc.wantErr)
			}
		})
	}
}
