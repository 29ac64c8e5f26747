package controller

import (
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/setcapacity"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/scheduler/plugins"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

func TestPendingShootsCountEveryExistingSetOnceTheSchedulerCanAnswer(t *testing.T) {
	a := types.NamespacedName{Namespace: "garden", Name: "a"}
	b := types.NamespacedName{Namespace: "garden", Name: "b"}
	gone := types.NamespacedName{Namespace: "garden", Name: "gone"}
	sets, canAnswer := []types.NamespacedName{a, b}, false
	p := newPendingFits(func() ([]types.NamespacedName, bool) { return sets, canAnswer })

	counts, ok := p.counts()
	assert.False(t, ok, "not leading or not synced: no answer, not a 0 nobody checked")
	assert.Empty(t, counts)

	canAnswer = true
	counts, ok = p.counts()
	assert.True(t, ok)
	assert.Equal(t, map[types.NamespacedName]int{a: 0, b: 0}, counts, "no shoot pending: every set says 0")

	p.set("tenant/one", []types.NamespacedName{a})
	p.set("tenant/two", []types.NamespacedName{a, b, gone})
	counts, _ = p.counts()
	assert.Equal(t, map[types.NamespacedName]int{a: 2, b: 1}, counts, "a set that no longer exists has no series")

	p.forget("tenant/one")
	sets = []types.NamespacedName{a}
	counts, _ = p.counts()
	assert.Equal(t, map[types.NamespacedName]int{a: 1}, counts)
}

// annotatedSet is a ManagedSeedSet in namespace garden with the annotations given as keys
// and values.
func annotatedSet(name string, annotations ...string) *seedmanagementv1alpha1.ManagedSeedSet {
	s := &seedmanagementv1alpha1.ManagedSeedSet{}
	s.Namespace, s.Name = "garden", name
	s.Annotations = map[string]string{}
	for i := 0; i+1 < len(annotations); i += 2 {
		s.Annotations[annotations[i]] = annotations[i+1]
	}
	return s
}

func TestChooseSetAsksOneSetForANewSeed(t *testing.T) {
	set := annotatedSet
	const shoots = seedmanagementv1alpha1.AnnotationCapacityPrefix + "shoots"
	const priority = seedmanagementv1alpha1.AnnotationScaleOutPriority
	cases := []struct {
		name string
		fits []*seedmanagementv1alpha1.ManagedSeedSet
		want string
		why  string
	}{
		{"least waste: the smallest new seed", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("large", shoots, "100"), set("small", shoots, "50"), set("default")},
			"small", "least waste: 50 shoots per new seed"},
		{"a priority wins over waste", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("large", shoots, "100", priority, "5"), set("small", shoots, "50")},
			"large", "scale-out priority 5"},
		{"the higher priority wins; equals by waste", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("a", shoots, "100", priority, "5"), set("b", shoots, "80", priority, "10"), set("c", shoots, "60", priority, "10")},
			"c", "scale-out priority 10, then least waste: 60 shoots per new seed"},
		{"an invalid priority counts as none", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("typo", shoots, "10", priority, "high"), set("ranked", shoots, "100", priority, "-1")},
			"ranked", "scale-out priority -1"},
		{"equal sets by name", []*seedmanagementv1alpha1.ManagedSeedSet{set("b", shoots, "50"), set("a", shoots, "50")},
			"a", "least waste: 50 shoots per new seed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ChooseSet(tc.fits, setcapacity.Sizing{DefaultShoots: 250})
			assert.True(t, ok)
			assert.Equal(t, types.NamespacedName{Namespace: "garden", Name: tc.want}, got.Set)
			assert.Equal(t, tc.why, got.Why)
			assert.Empty(t, got.Ignored)
		})
	}
	_, ok := ChooseSet(nil, setcapacity.Sizing{DefaultShoots: 250})
	assert.False(t, ok, "no set fits: none is chosen")
	only, ok := ChooseSet([]*seedmanagementv1alpha1.ManagedSeedSet{set("alone", shoots, "50", priority, "5")}, setcapacity.Sizing{DefaultShoots: 250})
	require.True(t, ok)
	assert.Equal(t, Chosen{Set: types.NamespacedName{Namespace: "garden", Name: "alone"}, Why: "the only set that fits"}, only)
}

// Among sets of equal priority the lowest price per shoot place of a new seed wins, before
// waste; a set without a valid price ranks after every set with one.
func TestChooseSetByPricePerShoot(t *testing.T) {
	set := annotatedSet
	const shoots = seedmanagementv1alpha1.AnnotationCapacityPrefix + "shoots"
	const priority = seedmanagementv1alpha1.AnnotationScaleOutPriority
	const price = seedmanagementv1alpha1.AnnotationSeedHourPrice
	cases := []struct {
		name    string
		fits    []*seedmanagementv1alpha1.ManagedSeedSet
		want    string
		why     string
		ignored []string
	}{
		{"two providers: the cheaper per shoot", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("aws", shoots, "60", price, "2.10"), set("gcp", shoots, "50", price, "1.50")},
			"gcp", "cheapest per shoot: 0.03/shoot-hour (1.50/seed-hour for 50 shoots)", nil},
		{"two providers: the dearer and larger seed, cheaper per shoot", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("aws", shoots, "60", price, "2.10"), set("gcp", shoots, "80", price, "2.40")},
			"gcp", "cheapest per shoot: 0.03/shoot-hour (2.40/seed-hour for 80 shoots)", nil},
		{"per shoot, not per seed: the dearer seed takes more shoots", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("small", shoots, "50", price, "2.00"), set("large", shoots, "100", price, "3.00")},
			"large", "cheapest per shoot: 0.03/shoot-hour (3.00/seed-hour for 100 shoots)", nil},
		{"price beats waste", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("small", shoots, "50", price, "1.85"), set("large", shoots, "250", price, "1.85")},
			"large", "cheapest per shoot: 0.0074/shoot-hour (1.85/seed-hour for 250 shoots)", nil},
		{"priority beats price", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("cheap", shoots, "50", price, "0.50"), set("preferred", shoots, "50", price, "5", priority, "1")},
			"preferred", "scale-out priority 1", nil},
		{"equal priorities by price", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("dear", shoots, "50", price, "5", priority, "1"), set("cheap", shoots, "50", price, "0.50", priority, "1"), set("low", shoots, "50", price, "0.10", priority, "0")},
			"cheap", "scale-out priority 1, then cheapest per shoot: 0.01/shoot-hour (0.50/seed-hour for 50 shoots)", nil},
		{"a priced set before an unpriced one, even a smaller", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("unpriced", shoots, "10"), set("priced", shoots, "100", price, "9.99")},
			"priced", "cheapest per shoot: 0.0999/shoot-hour (9.99/seed-hour for 100 shoots)", nil},
		{"free is cheapest", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("paid", shoots, "50", price, "0.01"), set("owned", shoots, "250", price, "0")},
			"owned", "cheapest per shoot: 0/shoot-hour (0/seed-hour for 250 shoots)", nil},
		{"unpriced sets among themselves by waste", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("large", shoots, "100"), set("small", shoots, "50")},
			"small", "least waste: 50 shoots per new seed", nil},
		{"equal prices per shoot by waste", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("large", shoots, "100", price, "3"), set("small", shoots, "50", price, "1.5")},
			"small", "cheapest per shoot: 0.03/shoot-hour (1.5/seed-hour for 50 shoots), then least waste: 50 shoots per new seed", nil},
		{"equal in every step: by name", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("b", shoots, "50", price, "1.50"), set("a", shoots, "50", price, "1.5")},
			"a", "cheapest per shoot: 0.03/shoot-hour (1.5/seed-hour for 50 shoots), then least waste: 50 shoots per new seed", nil},
		{"an invalid price is no price, and said", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("typo", shoots, "50", price, "-0.10"), set("priced", shoots, "100", price, "2")},
			"priced", "cheapest per shoot: 0.02/shoot-hour (2/seed-hour for 100 shoots)",
			[]string{`annotation seedmanagement.gardener.cloud/seed-hour-price="-0.10" of ManagedSeedSet garden/typo is not a price per seed-hour (a plain decimal number of 0 or more, such as "1.85"): it is ignored, and the set ranks with the sets without a price when a pending shoot fits several; correct or remove it`}},
		{"invalid prices only: by waste", []*seedmanagementv1alpha1.ManagedSeedSet{
			set("large", shoots, "100", price, "1e1"), set("small", shoots, "50", price, "NaN")},
			"small", "least waste: 50 shoots per new seed",
			[]string{`annotation seedmanagement.gardener.cloud/seed-hour-price="1e1" of ManagedSeedSet garden/large is not a price per seed-hour`,
				`annotation seedmanagement.gardener.cloud/seed-hour-price="NaN" of ManagedSeedSet garden/small is not a price per seed-hour`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, fits := range [][]*seedmanagementv1alpha1.ManagedSeedSet{tc.fits, reversed(tc.fits)} {
				got, ok := ChooseSet(fits, setcapacity.Sizing{DefaultShoots: 250})
				require.True(t, ok)
				assert.Equal(t, types.NamespacedName{Namespace: "garden", Name: tc.want}, got.Set, "whatever the order of the sets")
				assert.Equal(t, tc.why, got.Why)
				if assert.Len(t, got.Ignored, len(tc.ignored)) {
					for _, want := range tc.ignored {
						assert.True(t, slices.ContainsFunc(got.Ignored, func(m string) bool { return strings.HasPrefix(m, want) }), "%q among %q", want, got.Ignored)
					}
				}
			}
		})
	}
}

func reversed[T any](s []T) []T {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

func TestFormatPrice(t *testing.T) {
	for _, tc := range []struct {
		num, den int64
		want     string
	}{
		{0, 1, "0"},
		{3, 100, "0.03"},
		{185, 6000, "0.0308"},
		{7, 200, "0.035"},
		{1, 25000, "0.00004"},
		{25, 2, "12.5"},
		{1234, 1, "1234"},
		{19999, 200000, "0.1"},
	} {
		assert.Equal(t, tc.want, formatPrice(big.NewRat(tc.num, tc.den)), "%d/%d", tc.num, tc.den)
	}
}

// A shoot counts for the sets whose new seed the scheduler would choose: the template seeds
// pass the filters, then the preferences, then the strategy.
func TestPendingFitPrefersAsTheSchedulerDoes(t *testing.T) {
	prefer := gardencorev1beta1.ZoneSelectionModePrefer
	near := builders.MakeSeed("x").Zones("z1").ZoneSelection(prefer).Obj().Spec
	away := builders.MakeSeed("x").Zones("z2").ZoneSelection(prefer).Obj().Spec
	sets := []*seedmanagementv1alpha1.ManagedSeedSet{
		managedSeedSet("garden", "away", away, "10"),
		managedSeedSet("garden", "near", near, "10"),
		managedSeedSet("garden", "other-region", builders.MakeSeed("x").Provider("gcp", "us-east1").Zones("z1").Obj().Spec, "10"),
	}
	cfg := &config.SchedulerConfiguration{}
	config.Default(cfg)
	profile, err := plugins.NewProfile(cfg)
	require.NoError(t, err)
	strategy := plugins.Strategy{Kind: config.SameRegion}
	fits := func(shoot *gardencorev1beta1.Shoot) []types.NamespacedName {
		keys, err := PendingFit(profile, strategy, &framework.Input{Shoot: shoot}, sets, setcapacity.Sizing{DefaultShoots: 250})
		require.NoError(t, err)
		return keys
	}
	assert.Equal(t, []types.NamespacedName{{Namespace: "garden", Name: "near"}}, fits(builders.MakeShoot("p", "a").Worker("w", "z1").Obj()),
		"the set whose seed has the workers' zone")
	assert.Equal(t, []types.NamespacedName{{Namespace: "garden", Name: "away"}, {Namespace: "garden", Name: "near"}}, fits(builders.MakeShoot("p", "a").Worker("w").Obj()),
		"workers without zones: no preference")
}
