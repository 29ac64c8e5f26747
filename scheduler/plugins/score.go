package plugins

import (
	"fmt"

	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/framework"
)

// MinimalDistanceScore scores candidates by closeness to the shoot's region, normalized
// over the candidates: the closest get MaxScore, the farthest 0. The strategy says how
// distance is measured: SameRegion counts only "same region and provider or not";
// MinimalDistance uses the region config, else the Levenshtein fallback. Testing shoots
// score MaxScore everywhere, because their region does not matter.
type MinimalDistanceScore struct {
	Kind config.Strategy
}

// Name is the plugin's name in configurations, events and metrics.
func (MinimalDistanceScore) Name() string { return string(config.MinimalDistancePlugin) }

// Score implements framework.ScorePlugin.
func (s MinimalDistanceScore) Score(in *framework.Input, seeds []*framework.SeedInfo) []int64 {
	scores := make([]int64, len(seeds))
	if isTesting(in.Shoot) {
		for i := range scores {
			scores[i] = framework.MaxScore
		}
		return scores
	}
	distances := make([]int, len(seeds))
	if s.Kind == config.SameRegion {
		for i, seed := range seeds {
			if seed.Spec.Provider.Type != in.Shoot.Spec.Provider.Type || seed.Spec.Provider.Region != in.Shoot.Spec.Region {
				distances[i] = 1
			}
		}
	} else {
		d, configured, err := minimalDistances(in, seeds)
		if err != nil {
			// An unreadable region config entry leaves distance out of the ranking; the
			// other plugins still decide.
			return scores
		}
		distances = d
		if configured != nil {
			worst := 0
			for i := range d {
				if configured[i] {
					worst = max(worst, d[i])
				}
			}
			for i := range d {
				if !configured[i] {
					distances[i] = worst + 1
				}
			}
		}
	}
	lo, hi := distances[0], distances[0]
	for _, d := range distances {
		lo, hi = min(lo, d), max(hi, d)
	}
	for i, d := range distances {
		if hi == lo {
			scores[i] = framework.MaxScore
			continue
		}
		scores[i] = int64(framework.MaxScore * (hi - d) / (hi - lo))
	}
	return scores
}

// SeedResourcesLeastAllocated prefers seeds with the largest free share of allocatable
// shoots: it spreads shoots. A seed without allocatable is treated as empty.
type SeedResourcesLeastAllocated struct{}

// Name is the plugin's name in configurations, events and metrics.
func (SeedResourcesLeastAllocated) Name() string {
	return string(config.SeedResourcesLeastAllocatedPlugin)
}

// Score implements framework.ScorePlugin.
func (SeedResourcesLeastAllocated) Score(in *framework.Input, seeds []*framework.SeedInfo) []int64 {
	scores := make([]int64, len(seeds))
	for i, seed := range seeds {
		scores[i] = framework.MaxScore - allocatedShare(in, seed, 0)
	}
	return scores
}

// SeedResourcesMostAllocated prefers the seeds with the largest used share of allocatable
// shoots: it packs shoots, so that other seeds empty and the autoscaler can remove them.
// A seed without allocatable scores 0.
type SeedResourcesMostAllocated struct{}

// Name is the plugin's name in configurations, events and metrics.
func (SeedResourcesMostAllocated) Name() string {
	return string(config.SeedResourcesMostAllocatedPlugin)
}

// Score implements framework.ScorePlugin.
func (SeedResourcesMostAllocated) Score(in *framework.Input, seeds []*framework.SeedInfo) []int64 {
	scores := make([]int64, len(seeds))
	for i, seed := range seeds {
		scores[i] = allocatedShare(in, seed, 0)
	}
	return scores
}

// allocatedShare is usage/allocatable in 0..MaxScore; unlimited for seeds without allocatable.
func allocatedShare(in *framework.Input, seed *framework.SeedInfo, unlimited int64) int64 {
	if !seed.HasAllocatable || seed.Allocatable <= 0 {
		return unlimited
	}
	used := min(int64(in.Usage(seed)), seed.Allocatable)
	return framework.MaxScore * used / seed.Allocatable
}

// NewProfile builds the profile a configuration asks for. Without score plugins it is
// Gardener's algorithm: filters, preferences, the strategy, and the candidate with the
// fewest shoots.
// With score plugins the scoring stage replaces the strategy, as GEP-13 proposes: every
// seed that passes the filters is ranked by the weighted sum of its scores.
func NewProfile(cfg *config.SchedulerConfiguration) (*framework.Profile, error) {
	p := &framework.Profile{Filters: Filters(), Preferences: Preferences()}
	if cfg.Scoring == nil || len(cfg.Scoring.Plugins) == 0 {
		p.Strategy = Strategy{Kind: cfg.Strategy}
		return p, nil
	}
	for _, sp := range cfg.Scoring.Plugins {
		var plugin framework.ScorePlugin
		switch sp.Name {
		case config.MinimalDistancePlugin:
			plugin = MinimalDistanceScore{Kind: cfg.Strategy}
		case config.SeedResourcesLeastAllocatedPlugin:
			plugin = SeedResourcesLeastAllocated{}
		case config.SeedResourcesMostAllocatedPlugin:
			plugin = SeedResourcesMostAllocated{}
		default:
			return nil, fmt.Errorf("scoring.plugins: unknown score plugin %q", sp.Name)
		}
		p.Scorers = append(p.Scorers, framework.WeightedScorer{Plugin: plugin, Weight: int64(sp.Weight)})
	}
	return p, nil
}
