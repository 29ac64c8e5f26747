package setcapacity

import (
	"fmt"
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
			got, err := NewReplicaShoots(tc.set, nil, DefaultShoots)
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

// A price is a plain decimal number of 0 or more, read exactly; any other form is no price,
// and said.
func TestSeedHourPrice(t *testing.T) {
	priced := func(value *string) *seedmanagementv1alpha1.ManagedSeedSet {
		s := set(nil, "", "")
		if value != nil {
			s.Annotations = map[string]string{PriceAnnotation: *value}
		}
		return s
	}
	cases := []struct {
		name  string
		value *string
		want  string // the exact price as a fraction; empty: none
		valid bool
	}{
		{name: "no annotation: no price", valid: true},
		{name: "a decimal", value: ptr("1.85"), want: "37/20", valid: true},
		{name: "a whole number", value: ptr("2"), want: "2/1", valid: true},
		{name: "free", value: ptr("0"), want: "0/1", valid: true},
		{name: "leading zeros and many places", value: ptr("0.000125"), want: "1/8000", valid: true},
		{name: "negative", value: ptr("-1.50")},
		{name: "a sign", value: ptr("+1.50")},
		{name: "an exponent", value: ptr("1e3")},
		{name: "not a number", value: ptr("NaN")},
		{name: "infinite", value: ptr("Inf")},
		{name: "a fraction", value: ptr("3/2")},
		{name: "a decimal comma", value: ptr("1,85")},
		{name: "no digits before the point", value: ptr(".5")},
		{name: "no digits after the point", value: ptr("1.")},
		{name: "a currency", value: ptr("1.85 EUR")},
		{name: "empty", value: ptr("")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SeedHourPrice(priced(tc.value))
			if !tc.valid {
				assert.Nil(t, got, "an invalid price is no price")
				var invalid *InvalidPriceError
				if assert.ErrorAs(t, err, &invalid) {
					assert.Equal(t, fmt.Sprintf(`annotation seedmanagement.gardener.cloud/seed-hour-price=%q of ManagedSeedSet garden/eu is not a price per seed-hour (a plain decimal number of 0 or more, such as "1.85"): it is ignored, and the set ranks with the sets without a price when a pending shoot fits several; correct or remove it`, *tc.value),
						err.Error())
				}
				return
			}
			assert.NoError(t, err)
			if tc.want == "" {
				assert.Nil(t, got)
				return
			}
			if assert.NotNil(t, got) {
				assert.Equal(t, tc.want, got.String())
			}
		})
	}
}

// soil is a parent seed as its gardenlet registered it: 20 shoots, 5 of them reserved.
func soil() *gardencorev1beta1.Seed {
	return &gardencorev1beta1.Seed{
		ObjectMeta: metav1.ObjectMeta{Name: "soil"},
		Status:     gardencorev1beta1.SeedStatus{Capacity: list("shoots", "20", "persistent-volumes", "100"), Allocatable: list("shoots", "15", "persistent-volumes", "100")},
	}
}

func gardenlet(merge *bool, kv ...string) *seedmanagementv1alpha1.Gardenlet {
	g := &seedmanagementv1alpha1.Gardenlet{MergeWithParent: merge, Config: &seedmanagementv1alpha1.GardenletConfiguration{}}
	if len(kv) > 0 {
		g.Config.Resources = &seedmanagementv1alpha1.ResourcesConfiguration{}
		for i := 0; i+2 < len(kv); i += 3 {
			q := resource.MustParse(kv[i+2])
			switch kv[i] {
			case "capacity":
				if g.Config.Resources.Capacity == nil {
					g.Config.Resources.Capacity = corev1.ResourceList{}
				}
				g.Config.Resources.Capacity[corev1.ResourceName(kv[i+1])] = q
			case "reserved":
				if g.Config.Resources.Reserved == nil {
					g.Config.Resources.Reserved = corev1.ResourceList{}
				}
				g.Config.Resources.Reserved[corev1.ResourceName(kv[i+1])] = q
			}
		}
	}
	return g
}

func TestGardenletResources(t *testing.T) {
	no := false
	cases := []struct {
		name                       string
		gardenlet                  *seedmanagementv1alpha1.Gardenlet
		parent                     *gardencorev1beta1.Seed
		wantNil                    bool
		wantCapacity, wantReserved corev1.ResourceList
	}{
		{name: "no gardenlet: a seedTemplate, nothing to merge", parent: soil(), wantNil: true},
		{name: "no parent known: the configuration alone", gardenlet: gardenlet(nil, "capacity", "shoots", "60"), wantCapacity: list("shoots", "60")},
		{name: "nothing configured: the parent's capacity and reserved", gardenlet: gardenlet(nil), parent: soil(),
			wantCapacity: list("shoots", "20", "persistent-volumes", "100"), wantReserved: list("shoots", "5")},
		{name: "the configuration's capacity wins, the parent's reserved fills in", gardenlet: gardenlet(nil, "capacity", "shoots", "60"), parent: soil(),
			wantCapacity: list("shoots", "60", "persistent-volumes", "100"), wantReserved: list("shoots", "5")},
		{name: "capacity and reserved configured: the parent adds only other resources", gardenlet: gardenlet(nil, "capacity", "shoots", "60", "reserved", "shoots", "10"), parent: soil(),
			wantCapacity: list("shoots", "60", "persistent-volumes", "100"), wantReserved: list("shoots", "10")},
		{name: "mergeWithParent false: the configuration alone", gardenlet: gardenlet(&no), parent: soil(), wantNil: true},
		{name: "a parent without registered capacity adds nothing", gardenlet: gardenlet(nil, "capacity", "shoots", "60"), parent: &gardencorev1beta1.Seed{},
			wantCapacity: list("shoots", "60")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := GardenletResources(tc.gardenlet, tc.parent)
			if tc.wantNil {
				assert.Nil(t, got)
				return
			}
			if assert.NotNil(t, got) {
				assertResources(t, tc.wantCapacity, got.Capacity, "capacity")
				assertResources(t, tc.wantReserved, got.Reserved, "reserved")
			}
		})
	}
}

func TestNewReplicaShootsMergesWithTheParent(t *testing.T) {
	s := set(nil, "", "")
	s.Spec.Template.Spec.SeedTemplate = nil
	s.Spec.Template.Spec.Gardenlet = gardenlet(nil, "capacity", "shoots", "60")
	s.Spec.ShootTemplate.Spec.SeedName = ptr("soil")
	parent := soil()

	got, err := NewReplicaShoots(s, parent, DefaultShoots)
	assert.NoError(t, err)
	assert.Equal(t, int64(55), got.Shoots, "60 of the template less the parent's 5 reserved")
	assert.Equal(t, "the template's gardenlet.config.resources merged with those of parent seed soil (mergeWithParent)", got.Source)

	sizing := Sizing{DefaultShoots: DefaultShoots, Seed: func(name string) *gardencorev1beta1.Seed {
		if name == "soil" {
			return parent
		}
		return nil
	}}
	viaSizing, err := sizing.NewReplicaShoots(s)
	assert.NoError(t, err)
	assert.Equal(t, got, viaSizing, "Sizing finds the parent by the shoot template's seedName")

	s.Spec.Template.Spec.Gardenlet.Config.Resources.Reserved = list("shoots", "10")
	got, _ = NewReplicaShoots(s, parent, DefaultShoots)
	assert.Equal(t, Shoots{Shoots: 50, Source: "the template's gardenlet.config.resources"}, got, "the template says everything itself")

	s.Spec.Template.Spec.Gardenlet = gardenlet(nil)
	got, err = NewReplicaShoots(s, nil, DefaultShoots)
	assert.Equal(t, int64(DefaultShoots), got.Shoots, "no parent registered: the default")
	var unknown *UnknownParentError
	if assert.ErrorAs(t, err, &unknown, "what the template lacks cannot be known") {
		assert.Equal(t, "the replicas of ManagedSeedSet garden/eu merge their gardenlet configuration with the parent gardenlet's (template.spec.gardenlet.mergeWithParent), and the set has parent seed soil (shootTemplate.spec.seedName), which is not registered: new replicas are sized from the default of 250 shoots per seed; set template.spec.gardenlet.config.resources.capacity (and reserved) for shoots, or register the parent seed", err.Error())
	}

	s.Spec.ShootTemplate.Spec.SeedName = nil
	_, err = NewReplicaShoots(s, nil, DefaultShoots)
	assert.ErrorContains(t, err, "the set names no parent seed (shootTemplate.spec.seedName is empty)")

	no := false
	s.Spec.Template.Spec.Gardenlet.MergeWithParent = &no
	_, err = NewReplicaShoots(s, nil, DefaultShoots)
	assert.NoError(t, err, "without mergeWithParent the template says all there is")

	s.Spec.Template.Spec.Gardenlet = gardenlet(nil, "capacity", "shoots", "60")
	_, err = NewReplicaShoots(s, nil, DefaultShoots)
	assert.NoError(t, err, "a template that names a capacity needs no parent: a reserved amount not known is none")

	s.Annotations = map[string]string{Annotation: "30"}
	s.Spec.Template.Spec.Gardenlet = gardenlet(nil)
	got, err = NewReplicaShoots(s, nil, DefaultShoots)
	assert.NoError(t, err, "the annotation says it")
	assert.Equal(t, int64(30), got.Shoots)
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
