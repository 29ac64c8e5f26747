package plugins

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/scheduler/capacity"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/scheduler/placement"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// BenchmarkDecision measures one scheduling decision as the controller makes it
// (placement.Placer): under the ledger's lock, every filter over every seed, the strategy or
// the scorers, and the reservation of the winner. The shoots already placed feed the usage index the way the
// informer does; a decision only looks usage up per seed, so its cost must grow with the
// seeds and not with the shoots.
func BenchmarkDecision(b *testing.B) {
	regions := []string{"europe-west1", "europe-west3", "europe-west4", "us-central1"}
	profiles := map[string]*config.SchedulerConfiguration{
		"gardener": {Strategy: config.SameRegion},
		"scoring": {Strategy: config.MinimalDistance, Scoring: &config.Scoring{Plugins: []config.ScorePlugin{
			{Name: config.MinimalDistancePlugin, Weight: 10},
			{Name: config.SeedResourcesMostAllocatedPlugin, Weight: 1},
		}}},
	}
	for _, size := range []struct{ seeds, shoots int }{{100, 5000}, {1000, 5000}, {1000, 50000}} {
		seeds := make([]*framework.SeedInfo, size.seeds)
		for i := range seeds {
			// Room for twice the shoots, so that the decision never runs out of seeds.
			seeds[i] = NewSeedInfo(builders.MakeSeed(fmt.Sprintf("seed-%04d", i)).Provider("gcp", regions[i%len(regions)]).
				Zones("a", "b", "c").Allocatable(int64(2 * size.shoots / size.seeds)).Ready().Obj())
		}
		ledger := capacity.NewLedger(usage.NewIndex())
		for _, seed := range seeds {
			seed.Occupancy = ledger.Seat(seed.Name)
		}
		informer := ledger.Handler()
		for i := range size.shoots {
			informer.OnAdd(builders.MakeShoot("p", fmt.Sprintf("shoot-%d", i)).SeedName(seeds[i%len(seeds)].Name).Obj(), false)
		}
		for _, name := range []string{"gardener", "scoring"} {
			cfg := profiles[name]
			config.Default(cfg)
			profile, err := NewProfile(cfg)
			require.NoError(b, err)
			in := &framework.Input{
				Shoot:        builders.MakeShoot("p", "new").Obj(),
				CloudProfile: cloudProfile("gcp", nil),
				RegionConfig: loadRegionConfig(b, "gcp"),
				Usage:        framework.Occupied,
			}
			// As the controller places: usage read from each seed's seat, the bind a no-op.
			placer := &placement.Placer{
				Ledger:  ledger,
				Decider: profile,
				Input:   func(context.Context, *gardencorev1beta1.Shoot) (*framework.Input, error) { return in, nil },
				Seeds:   func() []*framework.SeedInfo { return seeds },
				Bind:    func(context.Context, *gardencorev1beta1.Shoot, string) error { return nil },
			}
			b.Run(fmt.Sprintf("profile=%s/seeds=%d/shoots=%d", name, size.seeds, size.shoots), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					d, err := placer.Place(context.Background(), in.Shoot, placement.Options{})
					if err != nil || d.Seed() == "" {
						b.Fatalf("no seed: %v %s", err, d.Why())
					}
					ledger.Release("p/new")
				}
			})
		}
	}
}
