package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/builders"
	"github.com/seedscaler/seedscaler/internal/setcapacity"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/scheduler/plugins"
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

func TestChooseSetAsksOneSetForANewSeed(t *testing.T) {
	set := func(name string, annotations ...string) *seedmanagementv1alpha1.ManagedSeedSet {
		s := &seedmanagementv1alpha1.ManagedSeedSet{}
		s.Namespace, s.Name = "garden", name
		s.Annotations = map[string]string{}
		for i := 0; i+1 < len(annotations); i += 2 {
			s.Annotations[annotations[i]] = annotations[i+1]
		}
		return s
	}
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
			"c", "scale-out priority 10"},
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
		})
	}
	_, ok := ChooseSet(nil, setcapacity.Sizing{DefaultShoots: 250})
	assert.False(t, ok, "no set fits: none is chosen")
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
