package drain

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/disruption"
)

// +kubebuilder:rbac:groups=autoscaling.seedscaler.io,resources=seedautoscalers,verbs=list

// judgeBudgets reads the disruption budgets of the drained seed's set and applies them to
// its drain (JudgeBudgets). A seed of no set, or of a set without budgets, is bounded by the
// drain's own budget alone.
func (r *Reconciler) judgeBudgets(ctx context.Context, seed *gardencorev1beta1.Seed, by drainer, set setOfSeed, outOfMember map[string]int, outOfSet int) (BudgetVerdict, error) {
	if !set.inSet {
		return BudgetVerdict{}, nil
	}
	owner, budgets, err := r.budgetsOf(ctx, set.key)
	if err != nil || len(budgets) == 0 {
		return BudgetVerdict{}, err
	}
	members := make([]disruption.Member, 0, len(set.members))
	for _, m := range set.members {
		members = append(members, disruption.Member{Seed: m, ManagedSeed: set.managedSeeds[m.Name],
			Shoots: r.Ledger.Usage(m.Name), Migrating: outOfMember[m.Name] > 0})
	}
	reason := autoscalingv1alpha1.DisruptionOperatorDrain
	if by.reason == gardencorev1beta1.DrainReasonConsolidation {
		reason = autoscalingv1alpha1.DisruptionConsolidation
	}
	return JudgeBudgets(owner, budgets, reason, seed.Name, disruption.Count(members), outOfSet, r.Clock.Now()), nil
}

// budgetsOf reads the disruption budgets of the SeedAutoscaler that scales a
// ManagedSeedSet (the first by name, should several), live from the API server: drains are
// few and short-lived, and a scheduler installed without the SeedAutoscaler CRD reads none.
func (r *Reconciler) budgetsOf(ctx context.Context, set types.NamespacedName) (string, []autoscalingv1alpha1.DisruptionBudget, error) {
	list := &autoscalingv1alpha1.SeedAutoscalerList{}
	if err := r.Reader.List(ctx, list, client.InNamespace(set.Namespace)); err != nil {
		if meta.IsNoMatchError(err) {
			return "", nil, nil
		}
		return "", nil, fmt.Errorf("listing the SeedAutoscalers of namespace %s for the disruption budgets of ManagedSeedSet %s: %w", set.Namespace, set, err)
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	for _, sa := range list.Items {
		ref := sa.Spec.ScaleTargetRef
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil || gv.Group != seedmanagementv1alpha1.GroupVersion.Group || ref.Kind != "ManagedSeedSet" || ref.Name != set.Name {
			continue
		}
		if c := sa.Spec.Behavior; c != nil && c.ScaleDown != nil && c.ScaleDown.Consolidation != nil {
			return fmt.Sprintf("SeedAutoscaler %s/%s", sa.Namespace, sa.Name), c.ScaleDown.Consolidation.Budgets, nil
		}
		return "", nil, nil
	}
	return "", nil, nil
}
