package controller

import (
	"sort"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/capacity"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/scheduler/plugins"
)

// seedSnapshot is the seeds a decision reads: one shared, name-sorted slice, rebuilt only
// after a seed changed, rather than every Seed copied out of the cache per decision. Each
// seed comes with what the filters derive from it alone (framework.SeedInfo), worked out
// once per version of the seed, and with its seat in the ledger, where a decision reads its
// usage.
type seedSnapshot struct {
	*informerView[*gardencorev1beta1.Seed, *framework.SeedInfo, []*framework.SeedInfo]
}

func newSeedSnapshot(ledger *capacity.Ledger) *seedSnapshot {
	info := func(seed *gardencorev1beta1.Seed) *framework.SeedInfo {
		info := plugins.NewSeedInfo(seed)
		info.Occupancy = ledger.Seat(seed.Name)
		return info
	}
	return &seedSnapshot{newInformerView(nil, info, sortedSeeds)}
}

// List returns the seeds sorted by name. Callers must not modify the slice or the seeds.
func (s *seedSnapshot) List() []*framework.SeedInfo { return s.get() }

func sortedSeeds(byKey map[string]*framework.SeedInfo) []*framework.SeedInfo {
	list := make([]*framework.SeedInfo, 0, len(byKey))
	for _, seed := range byKey {
		list = append(list, seed)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return list
}
