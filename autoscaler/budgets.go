package autoscaler

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/disruption"
)

// Reasons of the DisruptionBudgetsValid condition, and the event of a budget that cannot be
// read.
const (
	ReasonBudgetsValid            controllerutils.Reason = "BudgetsValid"
	ReasonInvalidDisruptionBudget controllerutils.Reason = "InvalidDisruptionBudget"
	EventInvalidDisruptionBudget                         = controllerutils.Warning(ReasonInvalidDisruptionBudget)
)

// observeDisruptions counts the set's disruptions from what the evaluation observed.
func observeDisruptions(obs *observation, now time.Time, maxAge time.Duration) disruption.Set {
	managed := map[string]*seedmanagementv1alpha1.ManagedSeed{}
	for i := range obs.managedSeeds {
		managed[obs.managedSeeds[i].Name] = &obs.managedSeeds[i]
	}
	members := make([]disruption.Member, 0, len(obs.seeds))
	for name, seed := range obs.seeds {
		members = append(members, disruption.Member{Seed: seed, ManagedSeed: managed[name], Shoots: seedShoots(obs, seed, now, maxAge)})
	}
	set := disruption.Count(members)
	// A scale-in the set controller has not begun yet: more live replicas than asked for.
	live := 0
	for _, ms := range obs.managedSeeds {
		if ms.DeletionTimestamp == nil {
			live++
		}
	}
	set.Removing = max(0, live-int(obs.current))
	return set
}

// budgets are the disruption budgets of a ManagedSeedSet's autoscaler at one evaluation.
type budgets struct {
	spec []autoscalingv1alpha1.DisruptionBudget
	set  disruption.Set
	now  time.Time
}

// readBudgets reads spec.behavior.scaleDown.consolidation.budgets and counts the set's
// disruptions, and says in DisruptionBudgetsValid whether every budget can be read; nil
// without budgets or without a ManagedSeedSet to apply them to.
func (r *Reconciler) readBudgets(sa *autoscalingv1alpha1.SeedAutoscaler, obs *observation, now time.Time) *budgets {
	var spec []autoscalingv1alpha1.DisruptionBudget
	if b := sa.Spec.Behavior; b != nil && b.ScaleDown != nil && b.ScaleDown.Consolidation != nil {
		spec = b.ScaleDown.Consolidation.Budgets
	}
	if len(spec) == 0 || obs == nil || obs.set == nil {
		meta.RemoveStatusCondition(&sa.Status.Conditions, autoscalingv1alpha1.SeedAutoscalerDisruptionBudgetsValid)
		return nil
	}
	valid := controllerutils.True(ReasonBudgetsValid, "every disruption budget can be read")
	if problems := disruption.Problems(spec); len(problems) > 0 {
		valid = controllerutils.False(ReasonInvalidDisruptionBudget, controllerutils.Truncate(strings.Join(problems, "; "), 32768))
		if controllerutils.ConditionChanged(sa.Status.Conditions, autoscalingv1alpha1.SeedAutoscalerDisruptionBudgetsValid, valid) {
			r.event(sa, EventInvalidDisruptionBudget, "Evaluate", "%s", controllerutils.Truncate(valid.Message, 1024))
		}
	}
	r.setCondition(sa, autoscalingv1alpha1.SeedAutoscalerDisruptionBudgetsValid, valid)
	return &budgets{spec: spec, set: observeDisruptions(obs, now, r.MetricMaxAge), now: now}
}

// limits are the most restrictive active budgets of a reason, of seeds and of shoots.
func (b *budgets) limits(reason autoscalingv1alpha1.DisruptionReason) (seeds, shoots disruption.Limit) {
	return disruption.Evaluate(b.spec, reason, disruption.Seeds, b.set.Seeds, b.now),
		disruption.Evaluate(b.spec, reason, disruption.Shoots, b.set.Shoots, b.now)
}

// holdRemovals keeps a scale-in within the seeds budget of EmptySeedRemoval: the drained
// seeds it empties are removed first and cost nothing more; beyond them, only what the
// budget leaves after the seeds disrupted now.
func (b *budgets) holdRemovals(current int32, d recommend.Decision) recommend.Decision {
	if b == nil {
		return d
	}
	seeds, _ := b.limits(autoscalingv1alpha1.DisruptionEmptySeedRemoval)
	room, bounded := seeds.Room(b.set.Disrupted())
	if !bounded {
		return d
	}
	why := fmt.Sprintf("%s allows %d more of the set's %d seeds to be disrupted (%d are: drained, being deleted or being removed)", seeds.Budget, room, b.set.Seeds, b.set.Disrupted())
	if free := b.set.DrainedToRemove(); free > 0 {
		why += fmt.Sprintf(", beside the %d emptied drained seed(s) a scale-in removes first", free)
	}
	return recommend.HoldRemovals(d, current, b.set.DrainedToRemove()+room, why)
}

// holdConsolidation says why the budgets allow consolidation no drain now; empty when
// they allow one.
func (b *budgets) holdConsolidation() string {
	if b == nil {
		return ""
	}
	return disruption.HoldConsolidation(b.spec, b.set, b.now)
}

// status is what the budgets allow for each reason, for status.consolidation.budgets.
func (b *budgets) status() []autoscalingv1alpha1.DisruptionBudgetStatus {
	if b == nil {
		return nil
	}
	out := make([]autoscalingv1alpha1.DisruptionBudgetStatus, 0, len(autoscalingv1alpha1.DisruptionReasons))
	for _, reason := range autoscalingv1alpha1.DisruptionReasons {
		seeds, shoots := b.limits(reason)
		out = append(out, budgetStatus(reason, seeds, shoots, b.set))
	}
	return out
}

// budgetStatus says what the most restrictive budgets of a reason allow the set now, and
// which one allows none.
func budgetStatus(reason autoscalingv1alpha1.DisruptionReason, seeds, shoots disruption.Limit, set disruption.Set) autoscalingv1alpha1.DisruptionBudgetStatus {
	st := autoscalingv1alpha1.DisruptionBudgetStatus{Reason: reason}
	var parts []string
	if room, bounded := seeds.Room(set.Disrupted()); bounded {
		st.Seeds = ptr.To(int32(room))
		parts = append(parts, fmt.Sprintf("%s allows %d more of the set's %d seeds to be disrupted (%d are)", seeds.Budget, room, set.Seeds, set.Disrupted()))
		if room == 0 {
			st.HeldBy = ptr.To(int32(seeds.Index))
		}
	}
	if shoots.Bounded {
		st.Shoots = ptr.To(int32(shoots.Max))
		parts = append(parts, fmt.Sprintf("%s lets %d of the set's %d shoots migrate at once", shoots.Budget, shoots.Max, set.Shoots))
		if shoots.Max == 0 && st.HeldBy == nil {
			st.HeldBy = ptr.To(int32(shoots.Index))
		}
	}
	if reason == autoscalingv1alpha1.DisruptionOperatorDrain {
		if _, waiting := disruption.Admit(seeds, set.Deleting, set.Drained); len(waiting) > 0 {
			parts = append(parts, fmt.Sprintf("the drained seeds %s wait for it", strings.Join(waiting, ", ")))
		}
	}
	if len(parts) == 0 {
		st.Message = "no active budget holds " + string(reason) + " back"
	} else {
		st.Message = controllerutils.Truncate(strings.Join(parts, "; "), 1024)
	}
	return st
}

// budgetSamples are the series of seedscaler_autoscaler_disruption_budget_allowed of the
// budgets' status: one per reason and unit an active budget bounds.
func budgetSamples(statuses []autoscalingv1alpha1.DisruptionBudgetStatus, b *budgets) []objectSample {
	var out []objectSample
	for _, st := range statuses {
		seeds, shoots := b.limits(st.Reason)
		if st.Seeds != nil {
			out = append(out, objectSample{labels: []string{string(st.Reason), string(disruption.Seeds), strconv.Itoa(seeds.Index)}, value: float64(*st.Seeds)})
		}
		if st.Shoots != nil {
			out = append(out, objectSample{labels: []string{string(st.Reason), string(disruption.Shoots), strconv.Itoa(shoots.Index)}, value: float64(*st.Shoots)})
		}
	}
	return out
}

// seedShoots is the shoots counted on a seed: its fresh usage sample, else the seed
// controller's status.usage.
func seedShoots(obs *observation, seed *gardencorev1beta1.Seed, now time.Time, maxAge time.Duration) int {
	if smp, ok := obs.usage[gardencorev1beta1.ResourceShoots][seed.Name]; ok && fresh(smp, now, maxAge) {
		return int(smp.value)
	}
	if used, ok := quantity(seed.Status.Usage, gardencorev1beta1.ResourceShoots); ok {
		return int(used)
	}
	return 0
}
