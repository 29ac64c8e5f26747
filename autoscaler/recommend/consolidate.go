package recommend

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"time"
)

// Consolidation defaults, for spec.behavior.scaleDown.consolidation fields left unset.
const (
	DefaultConsolidationWindow       = 30 * time.Minute
	DefaultMaxMigrationsPerHour      = 20
	DefaultConsolidationShootCooling = 24 * time.Hour
)

// ConsolidationRules are spec.behavior.scaleDown.consolidation with defaults applied.
type ConsolidationRules struct {
	Window               time.Duration
	MaxMigrationsPerHour int
	ShootCooldown        time.Duration
}

// ConsolidationSeed is one seed of the set as consolidation looks at it.
type ConsolidationSeed struct {
	Name string
	// Shoots counted on the seed; Allocatable shoots it offers.
	Shoots, Allocatable int
	// Draining: annotated for a drain already (by anyone).
	Draining bool
	// Protected from deletion: the set would never remove it, so emptying it is no use.
	Protected bool
	// Ready: a seed that is not ready is no place to move shoots to.
	Ready bool
}

// ConsolidationInput is what a consolidation decision reads: no client, no clock.
type ConsolidationInput struct {
	Now   time.Time
	Rules ConsolidationRules
	// AboveNeedsSince is since when the set has been above its needs without removable
	// seeds; zero while it is not.
	AboveNeedsSince time.Time
	// Current and Min are the set's replicas and the autoscaler's minReplicas.
	Current, Min int32
	// TargetUtilization is the shoots metric's target, a fraction (0.7 for 70%).
	TargetUtilization float64
	Seeds             []ConsolidationSeed
	// Drains are the drains consolidation started that its budget may not have paid for yet.
	Drains []PastDrain
	// ScaleAheadHolds: the forecast expects the capacity back within its lead time.
	ScaleAheadHolds bool
	// Skip names seeds not to drain now, with why (a recent cancel, a shoot in its cool-down).
	Skip map[string]string
}

// PastDrain is a drain consolidation started: when, and the shoots the seed held then.
type PastDrain struct {
	Start  time.Time
	Shoots int
}

// PaidAt is when the budget of perHour migrations per hour has paid for the drain's shoots:
// a drain of n shoots takes n/perHour hours of the budget from its start.
func (d PastDrain) PaidAt(perHour int) time.Time {
	return d.Start.Add(time.Duration(float64(d.Shoots) / float64(max(perHour, 1)) * float64(time.Hour)))
}

// ConsolidationChoice is the seed to drain, or why none.
type ConsolidationChoice struct {
	// Seed is the seed to drain; empty for none.
	Seed string
	// Shoots it holds: the migrations the drain costs.
	Shoots int
	// Message says why, in a sentence.
	Message string
}

// ChooseConsolidation picks the seed to drain: the cheapest to empty first (the fewest
// shoots to move for the seed it frees, then the name), only when the set has been above its
// needs for the window, nothing is draining, the set stays at or above minReplicas, the
// budget has paid for the drains before, the forecast does not expect the capacity back, and
// the other ready seeds hold every shoot of the set at or below the target utilization.
// Whether each shoot passes the scheduler's filters on the other seeds is the scheduler's to
// check: it moves none of the seed's shoots unless all find a place.
//
// The budget is a rate: a drain of n shoots takes n/MaxMigrationsPerHour hours of it, and the
// next drain waits until they have passed. A seed's shoots move together, so one drain may
// move more than the hourly budget; over any longer time consolidation moves at most the
// budget per hour, plus the seed it drains. A seed larger than the budget is drained all the
// same, only less often.
func ChooseConsolidation(in ConsolidationInput) ConsolidationChoice {
	none := func(format string, args ...any) ConsolidationChoice {
		return ConsolidationChoice{Message: fmt.Sprintf(format, args...)}
	}
	for _, s := range in.Seeds {
		if s.Draining {
			return none("seed %s is being drained; consolidation drains one seed at a time", s.Name)
		}
	}
	switch {
	case in.AboveNeedsSince.IsZero():
		return none("the set is not above its needs")
	case in.Now.Sub(in.AboveNeedsSince) < in.Rules.Window:
		return none("the set has been above its needs for %s, less than the window of %s", in.Now.Sub(in.AboveNeedsSince).Round(time.Second), in.Rules.Window)
	case in.ScaleAheadHolds:
		return none("scale-ahead expects the capacity back within its lead time")
	case in.Current-1 < in.Min:
		return none("one seed fewer would be below minReplicas %d", in.Min)
	}
	for _, d := range in.Drains {
		if paid := d.PaidAt(in.Rules.MaxMigrationsPerHour); in.Now.Before(paid) {
			return none("the budget of %d migrations per hour pays for the %d shoots of the drain started at %s until %s",
				in.Rules.MaxMigrationsPerHour, d.Shoots, d.Start.UTC().Format(time.RFC3339), paid.UTC().Format(time.RFC3339))
		}
	}
	candidates := make([]ConsolidationSeed, 0, len(in.Seeds))
	total, capacity := 0, 0
	for _, s := range in.Seeds {
		total += s.Shoots
		if s.Ready {
			capacity += s.Allocatable
		}
		if _, skip := in.Skip[s.Name]; !skip && !s.Protected && s.Shoots > 0 {
			candidates = append(candidates, s)
		}
	}
	if len(candidates) == 0 {
		return none("no seed may be drained (protected, skipped or empty)")
	}
	sort.Slice(candidates, func(i, j int) bool {
		if candidates[i].Shoots != candidates[j].Shoots {
			return candidates[i].Shoots < candidates[j].Shoots
		}
		return candidates[i].Name < candidates[j].Name
	})
	why := ""
	for _, c := range candidates {
		remaining := capacity
		if c.Ready {
			remaining -= c.Allocatable
		}
		fits := int(math.Floor(float64(remaining)*in.TargetUtilization + 1e-9))
		if total > fits {
			// Say why the cheapest did not do.
			why = cmp.Or(why, fmt.Sprintf("without seed %s the other seeds hold %d shoots at the target at most, fewer than the %d of the set", c.Name, fits, total))
			continue
		}
		return ConsolidationChoice{Seed: c.Name, Shoots: c.Shoots, Message: fmt.Sprintf(
			"drains seed %s: its %d shoots move to the other seeds, which then hold the set's %d shoots at %.0f%% of their allocatable (target %.0f%%)",
			c.Name, c.Shoots, total, 100*float64(total)/math.Max(float64(remaining), 1), 100*in.TargetUtilization)}
	}
	return none("%s", why)
}
