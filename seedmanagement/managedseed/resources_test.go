package managedseed

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

func list(kv ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return l
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

func resourceMust(s string) resource.Quantity { return resource.MustParse(s) }

func TestParseDefaultCapacity(t *testing.T) {
	cases := []struct {
		value string
		want  corev1.ResourceList
	}{
		{"250", list("shoots", "250")},
		{"shoots=100", list("shoots", "100")},
		{"shoots=100, persistent-volumes=1k", list("shoots", "100", "persistent-volumes", "1k")},
		{"80,persistent-volumes=200", list("shoots", "80", "persistent-volumes", "200")},
		{"", corev1.ResourceList{}},
	}
	for _, tc := range cases {
		got, err := ParseDefaultCapacity(tc.value)
		if assert.NoError(t, err, tc.value) {
			assertResources(t, tc.want, got, tc.value)
		}
	}
	for _, bad := range []string{"many", "shoots=-1", "=3", "250,shoots=10"} {
		_, err := ParseDefaultCapacity(bad)
		assert.Error(t, err, bad)
	}
}
