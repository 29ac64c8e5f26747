// Package disruption reads the disruption budgets of a SeedAutoscaler
// (spec.behavior.scaleDown.consolidation.budgets): whether a budget is active now by its
// cron schedule, the most restrictive active budget of a reason, and which drained seeds of
// a set may move shoots. The autoscaler (consolidation, the scale-in of empty seeds) and the
// scheduler's drain (operators' drains, migrations) read budgets through it alone, so that
// they agree on what a budget allows.
package disruption

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/intstr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

// BudgetsField is where the budgets are, for messages.
const BudgetsField = "spec.behavior.scaleDown.consolidation.budgets"

// Unit is what a budget counts.
type Unit string

const (
	// Seeds counts the seeds of a set disrupted at once: drained or being deleted.
	Seeds Unit = "seeds"
	// Shoots counts the shoots of a set whose control planes migrate at once.
	Shoots Unit = "shoots"
)

// Limit is the most restrictive active budget of one reason and unit.
type Limit struct {
	// Bounded is false when no active budget of the reason counts the unit.
	Bounded bool
	// Max is the most disruptions at once the budget allows, scaled to the set.
	Max int
	// Index is the budget's place in the list.
	Index int
	// Budget names and describes it, e.g. `budgets[1] (seeds "0", from "0 9 * * 1-5" for 8h0m0s)`.
	Budget string
}

// Room is how many more disruptions the limit allows while disrupted are under way; every
// one when it is not bounded.
func (l Limit) Room(disrupted int) (int, bool) {
	if !l.Bounded {
		return 0, false
	}
	return max(0, l.Max-disrupted), true
}

// Evaluate returns the most restrictive budget of a reason that counts unit and is active
// at now, for a set of total seeds or shoots; ties go to the first. A budget that cannot be
// read (a schedule that does not parse)
// counts as active and allows nothing, as Karpenter fails closed: Problems says why.
func Evaluate(budgets []autoscalingv1alpha1.DisruptionBudget, reason autoscalingv1alpha1.DisruptionReason, unit Unit, total int, now time.Time) Limit {
	best := Limit{}
	for i := range budgets {
		b := &budgets[i]
		value := b.Seeds
		if unit == Shoots {
			value = b.Shoots
		}
		if value == "" || !slices.Contains(b.Reasons, reason) {
			continue
		}
		active, err := isActive(b, now)
		if err == nil && !active {
			continue
		}
		allowed := 0
		if err == nil {
			v := intstr.Parse(value)
			if allowed, err = intstr.GetScaledValueFromIntOrPercent(&v, total, true); err != nil {
				allowed = 0
			}
		}
		if !best.Bounded || allowed < best.Max {
			best = Limit{Bounded: true, Max: allowed, Index: i, Budget: Describe(budgets, i)}
		}
	}
	return best
}

// isActive says whether a budget applies at now: always without a schedule, else from each
// firing of its schedule for its duration.
func isActive(b *autoscalingv1alpha1.DisruptionBudget, now time.Time) (bool, error) {
	if b.Schedule == "" {
		return true, nil
	}
	s, err := ParseSchedule(b.Schedule)
	if err != nil {
		return false, err
	}
	if b.DurationSeconds <= 0 {
		return false, fmt.Errorf("a schedule needs a duration")
	}
	_, active := s.LastFiring(now, now.Add(-time.Duration(b.DurationSeconds)*time.Second))
	return active, nil
}

// Describe names a budget and says what it is, for messages.
func Describe(budgets []autoscalingv1alpha1.DisruptionBudget, i int) string {
	b := budgets[i]
	var what []string
	if b.Seeds != "" {
		what = append(what, fmt.Sprintf("seeds %q", b.Seeds))
	}
	if b.Shoots != "" {
		what = append(what, fmt.Sprintf("shoots %q", b.Shoots))
	}
	if b.Schedule != "" {
		d := "no duration"
		if b.DurationSeconds > 0 {
			d = (time.Duration(b.DurationSeconds) * time.Second).String()
		}
		what = append(what, fmt.Sprintf("from %q for %s", b.Schedule, d))
	}
	return fmt.Sprintf("budgets[%d] (%s)", i, strings.Join(what, ", "))
}

// Problems lists what cannot be read in the budgets, each with its field and the fix; the
// apiserver checks the format of every field, only a schedule's values are left to check
// here.
func Problems(budgets []autoscalingv1alpha1.DisruptionBudget) []string {
	var out []string
	for i, b := range budgets {
		field := fmt.Sprintf("%s[%d]", BudgetsField, i)
		if b.Schedule != "" {
			if _, err := ParseSchedule(b.Schedule); err != nil {
				out = append(out, fmt.Sprintf("%s.schedule: %v; write five fields in UTC, e.g. \"0 9 * * mon-fri\" (09:00 on weekdays); until then the budget allows no disruption of its reasons", field, err))
			}
			if b.DurationSeconds <= 0 {
				out = append(out, fmt.Sprintf("%s.durationSeconds: a schedule needs a duration above 0, e.g. durationSeconds: 28800 (8 hours); until then the budget allows no disruption of its reasons", field))
			}
		}
	}
	return out
}

// ReasonDrainWaiting is the reason of a Seed's Drained condition while its drain waits for
// the seeds budget of OperatorDrain: the scheduler's drain moves none of its shoots yet.
const ReasonDrainWaiting = "DrainWaiting"

// DrainStarted says whether the scheduler's drain of a seed moves its shoots: the seed
// reports a Drained condition of another reason than DrainWaiting.
func DrainStarted(seed *gardencorev1beta1.Seed) bool {
	c := meta.FindStatusCondition(seed.Status.Conditions, gardencorev1beta1.SeedDrained)
	return c != nil && c.Reason != ReasonDrainWaiting
}

// DrainedSeed is a drained seed of a set, as the seeds budget of OperatorDrain sees it.
type DrainedSeed struct {
	Name string
	// Started is true when its drain moves shoots already (it was admitted before, or
	// consolidation drains it, which its own budget admitted): it keeps its place.
	Started bool
}

// Admit splits the drained seeds of a set into those that may move shoots and those that
// wait for the seeds budget: seeds being deleted and drains already under way keep their
// places (a budget stops no disruption under way, as in Karpenter), and waiting drains take
// the places left, by name. Without a bound every drained seed may move shoots.
func Admit(limit Limit, deleting int, drained []DrainedSeed) (admitted, waiting []string) {
	sorted := slices.Clone(drained)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	room := len(sorted) + 1
	if limit.Bounded {
		room = limit.Max - deleting
		for _, d := range sorted {
			if d.Started {
				room--
			}
		}
	}
	for _, d := range sorted {
		switch {
		case d.Started:
			admitted = append(admitted, d.Name)
		case room > 0:
			admitted = append(admitted, d.Name)
			room--
		default:
			waiting = append(waiting, d.Name)
		}
	}
	return admitted, waiting
}

// Member is one seed of a set as its budgets count it.
type Member struct {
	Seed *gardencorev1beta1.Seed
	// ManagedSeed registers the seed; nil when none does (or it is not known).
	ManagedSeed *seedmanagementv1alpha1.ManagedSeed
	// Shoots counted on the seed.
	Shoots int
	// Migrating is true while control planes migrate out of the seed: its drain is under
	// way, whatever its condition says yet.
	Migrating bool
}

// Set is a ManagedSeedSet as its disruption budgets count it.
type Set struct {
	// Seeds of the set and the Shoots on them: what percentages are of.
	Seeds, Shoots int
	// Deleting counts the seeds being deleted (the Seed or its ManagedSeed).
	Deleting int
	// Drained are the seeds annotated for a drain, on the Seed or its ManagedSeed, by
	// anyone, and not being deleted.
	Drained []DrainedSeed
	// DrainedEmpty counts the drained seeds that hold no shoot: a scale-in removes them
	// first, and removing them disrupts nothing that is not disrupted already.
	DrainedEmpty int
	// Removing counts the replicas a scale-in asked the set to remove whose ManagedSeeds are
	// not being deleted yet; the set removes the emptied drained seeds first.
	Removing int
}

// Disrupted counts the seeds disrupted now: drained, being deleted, or asked to be
// removed.
func (s Set) Disrupted() int { return s.Deleting + len(s.Drained) + max(0, s.Removing-s.DrainedEmpty) }

// DrainedToRemove counts the emptied drained seeds no scale-in has asked to remove yet:
// removing them disrupts nothing that is not disrupted already.
func (s Set) DrainedToRemove() int { return max(0, s.DrainedEmpty-s.Removing) }

// Count counts the disruptions of a set from its seeds. A drain counts as under way when
// consolidation started it (its own budget admitted it then), when the seed reports its
// drain moving shoots, or while control planes migrate out of it.
func Count(members []Member) Set {
	var s Set
	for _, m := range members {
		s.Seeds++
		s.Shoots += m.Shoots
		if m.Seed.DeletionTimestamp != nil || (m.ManagedSeed != nil && m.ManagedSeed.DeletionTimestamp != nil) {
			s.Deleting++
			continue
		}
		annotations := m.Seed.Annotations
		if m.ManagedSeed != nil && gardencorev1beta1.Draining(m.ManagedSeed.Annotations) {
			annotations = m.ManagedSeed.Annotations
		}
		if !gardencorev1beta1.Draining(annotations) {
			continue
		}
		byConsolidation := annotations[gardencorev1beta1.AnnotationDrainReason] == gardencorev1beta1.DrainReasonConsolidation
		s.Drained = append(s.Drained, DrainedSeed{Name: m.Seed.Name, Started: byConsolidation || m.Migrating || DrainStarted(m.Seed)})
		if m.Shoots == 0 {
			s.DrainedEmpty++
		}
	}
	return s
}

// HoldConsolidation says why the budgets of reason Consolidation allow no new drain of the
// set at now: its seeds budget has no room beside the seeds disrupted already, or its shoots
// budget lets no shoot migrate. Empty when a drain may start.
func HoldConsolidation(budgets []autoscalingv1alpha1.DisruptionBudget, set Set, now time.Time) string {
	seeds := Evaluate(budgets, autoscalingv1alpha1.DisruptionConsolidation, Seeds, set.Seeds, now)
	shoots := Evaluate(budgets, autoscalingv1alpha1.DisruptionConsolidation, Shoots, set.Shoots, now)
	if room, bounded := seeds.Room(set.Disrupted()); bounded && room == 0 {
		return fmt.Sprintf("the disruption budget %s allows no more of the set's seeds to be disrupted: %d are (drained, being deleted or being removed)", seeds.Budget, set.Disrupted())
	}
	if shoots.Bounded && shoots.Max == 0 {
		return fmt.Sprintf("the disruption budget %s lets no shoot of the set migrate", shoots.Budget)
	}
	return ""
}
