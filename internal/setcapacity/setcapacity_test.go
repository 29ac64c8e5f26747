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
		{name: "a whole number of 19 digits", set: set(ptr("1000000000000000000"), "", ""), want: 1_000_000_000_000_000_000, source: "annotation capacity.seedmanagement.gardener.cloud/shoots"},
		{name: "a huge exponent", set: set(ptr("1E40000000"), "", ""), want: 250, source: "the default of 250 shoots per seed",
			wantErr: `annotation capacity.seedmanagement.gardener.cloud/shoots="1E40000000" of ManagedSeedSet garden/eu is not a whole number of shoots`},
		{name: "an exponent beyond int32", set: set(ptr("92E3372036854775807"), "", ""), want: 250, source: "the default of 250 shoots per seed",
			wantErr: `annotation capacity.seedmanagement.gardener.cloud/shoots="92E3372036854775807" of ManagedSeedSet garden/eu is not a whole number of shoots`},
		{name: "beyond int64", set: set(ptr("9223372036854775808"), "", ""), want: 250, source: "the default of 250 shoots per seed",
			wantErr: `annotation capacity.seedmanagement.gardener.cloud/shoots="9223372036854775808" of ManagedSeedSet garden/eu is not a whole number of shoots`},
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

func TestSeedResources(t *testing.T) {
	defaults := list("shoots", "250")
	cases := []struct {
		name                       string
		cfg                        *seedmanagementv1alpha1.ResourcesConfiguration
		defaults                   corev1.ResourceList
		wantCapacity, wantAllocate corev1.ResourceList
	}{
		{
			name:         "seedTemplate: no configuration gets the defaults",
			cfg:          nil,
			defaults:     defaults,
			wantCapacity: list("shoots", "250"), wantAllocate: list("shoots", "250"),
		},
		{
			name:         "gardenlet config without resources gets the defaults",
			cfg:          &seedmanagementv1alpha1.ResourcesConfiguration{},
			defaults:     defaults,
			wantCapacity: list("shoots", "250"), wantAllocate: list("shoots", "250"),
		},
		{
			name: "the GEP's example: capacity minus reserved per resource",
			cfg: &seedmanagementv1alpha1.ResourcesConfiguration{
				Capacity: list("shoots", "100", "persistent-volumes", "200"),
				Reserved: list("persistent-volumes", "3"),
			},
			defaults:     defaults,
			wantCapacity: list("shoots", "100", "persistent-volumes", "200"),
			wantAllocate: list("shoots", "100", "persistent-volumes", "197"),
		},
		{
			name:         "a resource only in capacity is allocatable in full",
			cfg:          &seedmanagementv1alpha1.ResourcesConfiguration{Capacity: list("shoots", "40", "load-balancers", "30"), Reserved: list("shoots", "2")},
			defaults:     defaults,
			wantCapacity: list("shoots", "40", "load-balancers", "30"),
			wantAllocate: list("shoots", "38", "load-balancers", "30"),
		},
		{
			name:         "a configuration without shoots keeps the default shoots capacity",
			cfg:          &seedmanagementv1alpha1.ResourcesConfiguration{Capacity: list("persistent-volumes", "200")},
			defaults:     defaults,
			wantCapacity: list("shoots", "250", "persistent-volumes", "200"),
			wantAllocate: list("shoots", "250", "persistent-volumes", "200"),
		},
		{
			name:         "reserved beyond capacity floors at zero",
			cfg:          &seedmanagementv1alpha1.ResourcesConfiguration{Capacity: list("shoots", "5"), Reserved: list("shoots", "8")},
			defaults:     defaults,
			wantCapacity: list("shoots", "5"),
			wantAllocate: list("shoots", "0"),
		},
		{
			name:         "reserved for a resource without capacity is ignored",
			cfg:          &seedmanagementv1alpha1.ResourcesConfiguration{Capacity: list("shoots", "10"), Reserved: list("load-balancers", "1")},
			defaults:     defaults,
			wantCapacity: list("shoots", "10"),
			wantAllocate: list("shoots", "10"),
		},
		{
			name:         "configured defaults (--default-seed-capacity) apply as given",
			cfg:          nil,
			defaults:     list("shoots", "80", "persistent-volumes", "500"),
			wantCapacity: list("shoots", "80", "persistent-volumes", "500"),
			wantAllocate: list("shoots", "80", "persistent-volumes", "500"),
		},
		{
			name:         "no defaults and no configuration: nothing to advertise",
			cfg:          nil,
			defaults:     nil,
			wantCapacity: corev1.ResourceList{}, wantAllocate: corev1.ResourceList{},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			capacity, allocatable := SeedResources(tc.cfg, tc.defaults)
			assertResources(t, tc.wantCapacity, capacity, "capacity")
			assertResources(t, tc.wantAllocate, allocatable, "allocatable")
		})
	}
}

func TestSeedResourcesLeavesItsInputsAlone(t *testing.T) {
	defaults := list("shoots", "250")
	cfg := &seedmanagementv1alpha1.ResourcesConfiguration{Capacity: list("shoots", "10"), Reserved: list("shoots", "1")}
	_, _ = SeedResources(cfg, defaults)
	assertResources(t, list("shoots", "250"), defaults, "defaults")
	assertResources(t, list("shoots", "10"), cfg.Capacity, "capacity")
}

func list(kv ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return l
}

func assertResources(t *testing.T, want, got corev1.ResourceList, what string) {
	t.Helper()
	assert.Len(t, got, len(want), "%s: %v", what, got)
	for name, q := range want {
		g, ok := got[name]
		if assert.True(t, ok, "%s lacks %s", what, name) {
			assert.Zero(t, q.Cmp(g), "%s of %s: want %s, got %s", what, name, q.String(), g.String())
		}
	}
}
