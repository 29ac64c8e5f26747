package plugins

import (
	"math"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/scheduler/region"
)

// Strategy is Gardener's candidate determination: shoots of purpose testing go to any seed
// of their provider; other shoots to seeds of their provider in their region (SameRegion)
// or to the seeds closest to their region (MinimalDistance).
type Strategy struct {
	Kind config.Strategy
}

// Name is the plugin's name in configurations, events and metrics.
func (s Strategy) Name() string { return string(s.Kind) }

// Select implements framework.StrategyPlugin.
func (s Strategy) Select(in *framework.Input, seeds []*framework.SeedInfo) ([]*framework.Status, error) {
	out := make([]*framework.Status, len(seeds))
	shoot := in.Shoot
	if isTesting(shoot) {
		for i, seed := range seeds {
			if seed.Spec.Provider.Type != shoot.Spec.Provider.Type {
				out[i] = framework.Reject(ReasonTestingProviderMismatch, "provider %q is not the testing shoot's %q", seed.Spec.Provider.Type, shoot.Spec.Provider.Type)
			}
		}
		return out, nil
	}
	if s.Kind == config.SameRegion {
		// Most seeds of a large landscape are in other regions: one status per region, shared
		// by its seeds, keeps the decision from building a message per seed.
		byRegion := map[[2]string]*framework.Status{}
		for i, seed := range seeds {
			if seed.Spec.Provider.Type == shoot.Spec.Provider.Type && seed.Spec.Provider.Region == shoot.Spec.Region {
				continue
			}
			key := [2]string{seed.Spec.Provider.Type, seed.Spec.Provider.Region}
			st, ok := byRegion[key]
			if !ok {
				st = framework.Reject(ReasonRegionMismatch, "%s/%s is not the shoot's %s/%s", seed.Spec.Provider.Type, seed.Spec.Provider.Region, shoot.Spec.Provider.Type, shoot.Spec.Region)
				byRegion[key] = st
			}
			out[i] = st
		}
		return out, nil
	}
	distances, configured, err := minimalDistances(in, seeds)
	if err != nil {
		return nil, err
	}
	best := math.MaxInt
	for i, d := range distances {
		if configured != nil && !configured[i] {
			continue
		}
		best = min(best, d)
	}
	for i, seed := range seeds {
		switch {
		case configured != nil && !configured[i]:
			out[i] = framework.Reject(ReasonNotMinimalDistance, "region %s has no distance in the region config for %s", seed.Spec.Provider.Region, shoot.Spec.Region)
		case distances[i] > best:
			out[i] = framework.Reject(ReasonNotMinimalDistance, "region %s is at distance %d, the closest is at %d", seed.Spec.Provider.Region, distances[i], best)
		}
	}
	return out, nil
}

// minimalDistances measures each seed's distance as MinimalDistance does: from the region
// config when it names at least one seed's region (configured then says which seeds it
// names), else by the Levenshtein fallback for every seed (configured is nil).
func minimalDistances(in *framework.Input, seeds []*framework.SeedInfo) ([]int, []bool, error) {
	distances := make([]int, len(seeds))
	table, err := in.RegionConfig.Distances(in.Shoot.Spec.Region)
	if err != nil {
		return nil, nil, err
	}
	if table != nil {
		configured := make([]bool, len(seeds))
		anyConfigured := false
		for i, seed := range seeds {
			if d, ok := table[seed.Spec.Provider.Region]; ok {
				distances[i], configured[i], anyConfigured = d, true, true
			}
		}
		if anyConfigured {
			return distances, configured, nil
		}
	}
	for i, seed := range seeds {
		distances[i] = region.Distance(seed.Spec.Provider.Region, seed.Spec.Provider.Type, in.Shoot.Spec.Region, in.Shoot.Spec.Provider.Type)
	}
	return distances, nil, nil
}

func isTesting(shoot *gardencorev1beta1.Shoot) bool {
	return shoot.Spec.Purpose != nil && *shoot.Spec.Purpose == gardencorev1beta1.ShootPurposeTesting
}
