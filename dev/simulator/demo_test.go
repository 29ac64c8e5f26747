package simulator

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clocktesting "k8s.io/utils/clock/testing"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/scheduler/plugins"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// TestDemoDayFitsTheDemo loads examples/config/demo-day.yaml and checks it against the demo
// landscape in examples/demo: its demand grows the set to 6-8 seeds and shrinks it again,
// and every tenant shoot it draws passes the scheduler's filters and strategy for the demo's
// seeds, and never for the soil.
func TestDemoDayFitsTheDemo(t *testing.T) {
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	cfg, err := LoadConfiguration(filepath.Join(root, "examples", "config", "demo-day.yaml"))
	require.NoError(t, err)

	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(t, testenv.ReadExample("demo/20-managedseedset.yaml", set))
	autoscaler := &autoscalingv1alpha1.SeedAutoscaler{}
	require.NoError(t, testenv.ReadExample("demo/30-seedautoscaler.yaml", autoscaler))
	soil := &gardencorev1beta1.Seed{}
	require.NoError(t, testenv.ReadExample("demo/10-soil.yaml", soil))
	cloudProfile := &gardencorev1beta1.CloudProfile{}
	require.NoError(t, testenv.ReadExample("landscape/10-cloudprofile.yaml", cloudProfile))

	// Speed and duration: `seedscaler-dev local` runs 6 wall-clock minutes at speed 240.
	assert.Equal(t, 240.0, cfg.Speed)
	assert.Equal(t, 24*time.Hour, cfg.Duration.Duration)
	assert.Equal(t, 24*time.Hour, time.Duration(float64(6*time.Minute)*cfg.Speed), "6 minutes at speed 240 are the configured day")

	// Seeds the demand needs: shoots / (allocatable × target utilization), rounded up.
	gardenlet := set.Spec.Template.Spec.Gardenlet.Config
	capacity := gardenlet.Resources.Capacity[gardencorev1beta1.ResourceShoots]
	reserved := gardenlet.Resources.Reserved[gardencorev1beta1.ResourceShoots]
	allocatable := capacity.Value() - reserved.Value()
	require.Len(t, autoscaler.Spec.Metrics, 1)
	target := float64(*autoscaler.Spec.Metrics[0].Resource.Target.AverageUtilization) / 100
	seedsFor := func(shoots int) int {
		return max(int(*autoscaler.Spec.MinReplicas), int(math.Ceil(float64(shoots)/(float64(allocatable)*target))))
	}
	var peak, first, last int
	first = Total(Desired(&cfg.Demand, 0))
	for at := time.Duration(0); at <= cfg.Duration.Duration; at += 10 * time.Minute {
		n := Total(Desired(&cfg.Demand, at))
		peak = max(peak, n)
		last = n
	}
	assert.LessOrEqual(t, first, 10, "the day starts with a few shoots")
	assert.GreaterOrEqual(t, seedsFor(peak), 6, "the peak needs 6-8 seeds")
	assert.LessOrEqual(t, seedsFor(peak), 8, "the peak needs 6-8 seeds")
	assert.LessOrEqual(t, seedsFor(peak), int(autoscaler.Spec.MaxReplicas))
	assert.Equal(t, 1, seedsFor(last), "demand falls so the set can shrink to one seed")
	held := 0
	for at := time.Duration(0); at <= cfg.Duration.Duration; at += 10 * time.Minute {
		if Total(Desired(&cfg.Demand, at)) == peak {
			held++
		}
	}
	assert.GreaterOrEqual(t, held, 6*3, "the peak holds for at least 3 hours")

	// The faults hit replicas of the set.
	for _, f := range cfg.Faults {
		assert.Regexp(t, "^"+set.Name+"-[0-9]+$", f.Seed)
	}

	// A demo seed as the seed controller registers it, ready.
	seedConfig := gardenlet.SeedConfig
	demoSeed := &gardencorev1beta1.Seed{Spec: *seedConfig.Spec.DeepCopy()}
	demoSeed.Name, demoSeed.Labels = set.Name+"-0", seedConfig.Labels
	require.NotNil(t, demoSeed.Spec.Backup, "the demo's seeds have a backup, so that drains can move their control planes")
	demoSeed.Status = builders.MakeSeed("x").Backup(demoSeed.Spec.Backup.Provider).Allocatable(allocatable).Ready().Obj().Status
	soil.Status = builders.MakeSeed("x").Ready().Obj().Status

	sim := New(cfg, nil, clocktesting.NewFakeClock(epoch), nil)
	strategy := plugins.Strategy{Kind: config.SameRegion}
	demo, soilInfo := plugins.NewSeedInfo(demoSeed), plugins.NewSeedInfo(soil)
	ha := 0
	for range 200 {
		shoot := sim.newTenantShoot(AnyLocation, epoch)
		in := &framework.Input{Shoot: shoot, CloudProfile: cloudProfile, Usage: func(*framework.SeedInfo) int { return 0 }}
		require.Equal(t, cloudProfile.Name, *shoot.Spec.CloudProfileName)
		for _, f := range plugins.Filters() {
			assert.Nil(t, f.Filter(in, demo), "filter %s rejects a demo seed for shoot %+v", f.Name(), shoot.Spec)
		}
		statuses, err := strategy.Select(in, []*framework.SeedInfo{demo})
		require.NoError(t, err)
		assert.Nil(t, statuses[0], "SameRegion rejects a demo seed")
		rejected := false
		for _, f := range plugins.Filters() {
			rejected = rejected || f.Filter(in, soilInfo) != nil
		}
		assert.True(t, rejected, "the soil is not for tenants")
		if shoot.Spec.ControlPlane != nil {
			ha++
		}
	}
	assert.Positive(t, ha, "some shoots tolerate a zone failure, and still fit")
}
