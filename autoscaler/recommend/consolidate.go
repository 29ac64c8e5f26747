package recommend

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
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
	// MinScore is the least savings per disruption a drain must bring.
	MinScore float64
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

// ConsolidationCandidates are the seeds consolidation may drain now, or why none.
type ConsolidationCandidates struct {
	// Seeds whose shoots the other ready seeds hold at or below the target, fewest shoots
	// first, then by name; empty for none.
	Seeds []ConsolidationSeed
	// Message says why none, in a sentence.
	Message string
}

// ChooseConsolidationCandidates lists the seeds consolidation may drain: none unless the set
// has been above its needs for the window, nothing is draining, the set stays at or above
// minReplicas, the budget has paid for the drains before and the forecast does not expect
// the capacity back; then every seed that is neither protected, skipped nor empty and whose
// shoots the other ready seeds hold at or below the target utilization. Which of them is
// worth its migrations is ScoreConsolidation's to say; whether each shoot passes the
// scheduler's filters on the other seeds is the scheduler's to check: it moves none of the
// seed's shoots unless all find a place.
//
// The budget is a rate: a drain of n shoots takes n/MaxMigrationsPerHour hours of it, and the
// next drain waits until they have passed. A seed's shoots move together, so one drain may
// move more than the hourly budget; over any longer time consolidation moves at most the
// budget per hour, plus the seed it drains. A seed larger than the budget is drained all the
// same, only less often.
func ChooseConsolidationCandidates(in ConsolidationInput) ConsolidationCandidates {
	none := func(format string, args ...any) ConsolidationCandidates {
		return ConsolidationCandidates{Message: fmt.Sprintf(format, args...)}
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
	out := ConsolidationCandidates{}
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
		out.Seeds = append(out.Seeds, c)
	}
	if len(out.Seeds) == 0 {
		out.Message = why
	}
	return out
}

// Migration weights: what moving one shoot's control plane costs consolidation.
const (
	// DefaultMigrationWeight is the weight of an ordinary control plane migration: 10 to 20
	// minutes of control plane downtime while it is restored on the new seed.
	DefaultMigrationWeight = 1.0
	// LiveMigrationWeight is the weight of a highly available control plane, which Gardener's
	// live control plane migration (GEP-39) moves without downtime.
	LiveMigrationWeight = 0.2
	// MaxMigrationWeight bounds seedscaler.io/migration-weight.
	MaxMigrationWeight = 100.0
	// DefaultMinConsolidationScore is the least score consolidation drains a seed for: one
	// seed freed for up to 50 ordinary migrations.
	DefaultMinConsolidationScore = 0.02
)

// SeedCost is what draining one candidate seed costs.
type SeedCost struct {
	Seed string
	// Shoots counted on the seed.
	Shoots int
	// Weight is the sum of the migration weights of its shoots.
	Weight float64
	// Unmovable says why the seed may not be drained (a shoot opted out, is a replica's own,
	// or moved within the cool-down); empty when every shoot may move.
	Unmovable string
}

// Score is the savings per disruption of draining the seed: one seed freed divided by the
// weight of its migrations; +Inf for shoots that weigh nothing.
func (c SeedCost) Score() float64 {
	if c.Weight <= 0 {
		return math.Inf(1)
	}
	return 1 / c.Weight
}

// ConsolidationScore is the seed consolidation scored highest, and whether it is worth
// draining.
type ConsolidationScore struct {
	// Seed of the highest score; empty when no seed may be drained.
	Seed   string
	Shoots int
	Weight float64
	Score  float64
	// Approved is true when the score reaches the minimum.
	Approved bool
	// Message says why, in a sentence.
	Message string
}

// ScoreConsolidation picks, among the seeds that may be drained, the one of the highest
// savings per disruption (the lightest migrations for the seed freed; ties by fewer shoots,
// then by name), and approves it when its score reaches minScore, as Karpenter's balanced
// consolidation approves a move only when its savings are worth the disruption.
func ScoreConsolidation(costs []SeedCost, minScore float64) ConsolidationScore {
	var movable []SeedCost
	var unmovable []string
	for _, c := range costs {
		if c.Unmovable != "" {
			unmovable = append(unmovable, fmt.Sprintf("seed %s: %s", c.Seed, c.Unmovable))
			continue
		}
		movable = append(movable, c)
	}
	if len(movable) == 0 {
		return ConsolidationScore{Message: "no seed may be drained: " + strings.Join(unmovable, "; ")}
	}
	sort.Slice(movable, func(i, j int) bool {
		a, b := movable[i], movable[j]
		if a.Weight != b.Weight {
			return a.Weight < b.Weight
		}
		if a.Shoots != b.Shoots {
			return a.Shoots < b.Shoots
		}
		return a.Seed < b.Seed
	})
	best := movable[0]
	out := ConsolidationScore{Seed: best.Seed, Shoots: best.Shoots, Weight: best.Weight, Score: best.Score()}
	out.Approved = out.Score >= minScore
	verdict := "at least"
	if !out.Approved {
		verdict = "below"
	}
	out.Message = fmt.Sprintf("seed %s scores %s (1 seed freed / %s weighted migrations of %d shoots), %s the minimum score %s",
		best.Seed, FormatScore(out.Score), FormatScore(best.Weight), best.Shoots, verdict, FormatScore(minScore))
	return out
}

// FormatScore writes a score or weight for status and messages: three significant digits
// below 1 ("0.0476"), one decimal from 1 on ("20.4", "1500"), "+Inf".
func FormatScore(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case v < 1:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// MigrationWeight is what moving a shoot's control plane costs consolidation: its
// seedscaler.io/migration-weight, a decimal from 0 to 100, else LiveMigrationWeight for a
// highly available control plane (spec.controlPlane.highAvailability), which Gardener can
// move live, else DefaultMigrationWeight. An annotation that is not such a decimal is
// ignored, and problem says so with the fix.
func MigrationWeight(shoot *gardencorev1beta1.Shoot) (weight float64, problem string) {
	weight = DefaultMigrationWeight
	if cp := shoot.Spec.ControlPlane; cp != nil && cp.HighAvailability != nil {
		weight = LiveMigrationWeight
	}
	v, ok := shoot.Annotations[gardencorev1beta1.AnnotationMigrationWeight]
	if !ok {
		return weight, ""
	}
	w, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(w) || w < 0 || w > MaxMigrationWeight {
		return weight, fmt.Sprintf("shoot %s/%s: annotation %s=%q is not a decimal from 0 to %g, e.g. \"0.5\"; it weighs %s",
			shoot.Namespace, shoot.Name, gardencorev1beta1.AnnotationMigrationWeight, v, MaxMigrationWeight, FormatScore(weight))
	}
	return w, ""
}
