package drain

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/disruption"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

func TestClassify(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	const (
		succeeded = gardencorev1beta1.LastOperationStateSucceeded
		failed    = gardencorev1beta1.LastOperationStateFailed
		migrate   = gardencorev1beta1.LastOperationTypeMigrate
		reconcile = gardencorev1beta1.LastOperationTypeReconcile
	)
	running := func() *builders.ShootBuilder {
		return builders.MakeShoot("p", "a").SeedName("s").StatusSeedName("s").LastOperation(reconcile, succeeded)
	}
	deleted := running().Obj()
	deleted.DeletionTimestamp = &metav1.Time{Time: now}
	owned := running().Obj()
	// As Gardener's set controller makes it: a controller reference, no set label.
	owned.OwnerReferences = []metav1.OwnerReference{{APIVersion: "seedmanagement.gardener.cloud/v1alpha1", Kind: "ManagedSeedSet", Name: "set", Controller: new(true)}}
	tests := []struct {
		name     string
		shoot    *gardencorev1beta1.Shoot
		failedAt time.Time
		want     Verdict
	}{
		{"a running shoot moves", running().Obj(), time.Time{}, Verdict{Movable, ""}},
		{"after the cool-down of a failed migration it moves again", running().Obj(), now.Add(-10 * time.Minute), Verdict{Movable, ""}},
		{"within the cool-down it waits", running().Obj(), now.Add(-time.Minute), Verdict{Waiting,
			"its last migration failed at 2026-01-01T11:59:00Z; tried again from 2026-01-01T12:09:00Z"}},
		{"opted out", running().Annotations(gardencorev1beta1.AnnotationMigration, "disabled").Obj(), time.Time{},
			Verdict{Protected, "opted out by annotation seedscaler.io/migration=disabled"}},
		{"an opt-out of another value is none", running().Annotations(gardencorev1beta1.AnnotationMigration, "enabled").Obj(), time.Time{}, Verdict{Movable, ""}},
		{"a replica's shoot, by label", running().Labels(seedmanagementv1alpha1.LabelManagedSeedSet, "set").Obj(), time.Time{},
			Verdict{Protected, "the shoot of a ManagedSeedSet replica (a seed's own cluster)"}},
		{"a replica's shoot, by owner", owned, time.Time{}, Verdict{Protected, "the shoot of a ManagedSeedSet replica (a seed's own cluster)"}},
		{"another scheduler's", running().SchedulerName("other").Obj(), time.Time{}, Verdict{Protected, "placed by scheduler other, not this one"}},
		{"being deleted", deleted, time.Time{}, Verdict{Waiting, "being deleted"}},
		{"leaving", running().SeedName("t").Obj(), time.Time{}, Verdict{Leaving, "migrating to seed t"}},
		{"leaving, failed", running().SeedName("t").LastOperation(migrate, failed).Obj(), time.Time{},
			Verdict{Waiting, "its migration to seed t failed and is rolled back"}},
		{"arriving", running().StatusSeedName("o").LastOperation(migrate, gardencorev1beta1.LastOperationStateProcessing).Obj(), time.Time{},
			Verdict{Waiting, "its control plane is still migrating here from seed o"}},
		{"not created", builders.MakeShoot("p", "a").SeedName("s").Obj(), time.Time{}, Verdict{Waiting, "not created yet"}},
		{"an operation in flight", running().LastOperation(reconcile, gardencorev1beta1.LastOperationStateProcessing).Obj(), time.Time{},
			Verdict{Waiting, "its Reconcile is Processing"}},
		{"a failed shoot", running().LastOperation(gardencorev1beta1.LastOperationTypeCreate, failed).Obj(), time.Time{},
			Verdict{Waiting, "its Create is Failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Classify(tt.shoot, "s", gardencorev1beta1.DefaultSchedulerName, tt.failedAt, 10*time.Minute, now))
		})
	}
}

func TestBudgetRoom(t *testing.T) {
	b := Budget{PerSeed: 2, PerSet: 3}
	tests := []struct {
		outOfSeed, outOfSet, want int
	}{
		{0, 0, 2},
		{1, 1, 1},
		{2, 2, 0},
		{0, 2, 1}, // the set's other seeds use the budget
		{0, 3, 0},
		{0, 5, 0}, // more in flight than allowed (a budget lowered): none, not negative
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, b.Room(tt.outOfSeed, tt.outOfSet), "%d out of the seed, %d out of the set", tt.outOfSeed, tt.outOfSet)
	}
}

func TestProgressOutcome(t *testing.T) {
	tests := []struct {
		name string
		p    Progress
		want controllerutils.Outcome
	}{
		{"empty", Progress{}, controllerutils.True(ReasonDrainComplete, "The seed holds no shoots: its drain is complete and it can be removed.")},
		{"moving", Progress{Shoots: 4, Leaving: []string{"p/a"}, Started: map[string]string{"p/b": "t"}, OverBudget: 1,
			Waiting: map[string]string{"p/c": "its Reconcile is Processing"}},
			controllerutils.False(ReasonDraining, "4 shoot(s) remain: 2 migrating, 1 waiting for the migration budget, 1 not ready to move (p/c: its Reconcile is Processing).")},
		{"moving, one stuck", Progress{Shoots: 2, Leaving: []string{"p/a"}, Blocked: map[string]string{"p/z": "opted out"}},
			controllerutils.False(ReasonDraining, "2 shoot(s) remain: 1 migrating, 0 waiting for the migration budget. 1 cannot leave: p/z: opted out.")},
		{"held by the seeds budget", Progress{Shoots: 3, OverBudget: 3, Held: `the disruption budget budgets[0] (seeds "1") of SeedAutoscaler garden/demo lets 1 of the set's 4 seeds be disrupted at once, 2 are (drained or being deleted), and the drains of demo-1 go first`},
			controllerutils.False(ReasonDrainWaiting, `The drain waits for the disruption budget: the disruption budget budgets[0] (seeds "1") of SeedAutoscaler garden/demo lets 1 of the set's 4 seeds be disrupted at once, 2 are (drained or being deleted), and the drains of demo-1 go first. 3 shoot(s) remain; the seed takes no new shoots meanwhile.`)},
		{"migrations held by the shoots budget", Progress{Shoots: 3, OverBudget: 3, ShootsBudget: `the disruption budget budgets[1] (shoots "0") of SeedAutoscaler garden/demo lets 0 of the set's 40 shoots migrate at once`},
			controllerutils.False(ReasonDraining, `3 shoot(s) remain: 0 migrating, 3 waiting for the migration budget (the disruption budget budgets[1] (shoots "0") of SeedAutoscaler garden/demo lets 0 of the set's 40 shoots migrate at once).`)},
		{"stuck", Progress{Shoots: 2, Blocked: map[string]string{"p/z": "opted out", "p/a": "no other seed takes it: 0/1 seeds are available"}},
			controllerutils.False(ReasonDrainStuck, "The drain is stuck: 2 shoot(s) remain and none can leave. 2 cannot leave: "+
				"p/a: no other seed takes it: 0/1 seeds are available; p/z: opted out. Remove the opt-out, add seeds that take them, or relax their constraints.")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.p.Outcome())
		})
	}
}

func TestFailedMigration(t *testing.T) {
	const migrate = gardencorev1beta1.LastOperationTypeMigrate
	failed := builders.MakeShoot("p", "a").SeedName("t").StatusSeedName("s").LastOperation(migrate, gardencorev1beta1.LastOperationStateFailed).Obj()
	back, ok := FailedMigration(failed)
	assert.True(t, ok)
	assert.Equal(t, "s", back)
	for name, shoot := range map[string]*gardencorev1beta1.Shoot{
		"in flight":   builders.MakeShoot("p", "a").SeedName("t").StatusSeedName("s").LastOperation(migrate, gardencorev1beta1.LastOperationStateProcessing).Obj(),
		"rolled back": builders.MakeShoot("p", "a").SeedName("s").StatusSeedName("s").LastOperation(migrate, gardencorev1beta1.LastOperationStateFailed).Obj(),
		"not created": builders.MakeShoot("p", "a").SeedName("t").Obj(),
	} {
		_, ok := FailedMigration(shoot)
		assert.False(t, ok, name)
	}
}

// gardener-apiserver lets a control plane leave a seed only when the seed has a backup to
// restore it from: without one, a drain moves nothing and says why.
func TestUnleavable(t *testing.T) {
	assert.Empty(t, Unleavable(builders.MakeSeed("s").Backup("gcp").Obj()))
	assert.Equal(t, "seed s has no spec.backup: a control plane leaves a seed only with a backup to restore it from on the new one",
		Unleavable(builders.MakeSeed("s").Obj()))
}

func TestJudgeBudgets(t *testing.T) {
	now := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC) // a Monday
	const owner = "SeedAutoscaler garden/demo"
	operator, consolidation := autoscalingv1alpha1.DisruptionOperatorDrain, autoscalingv1alpha1.DisruptionConsolidation
	oneSeed := autoscalingv1alpha1.DisruptionBudget{Seeds: "1", Reasons: []autoscalingv1alpha1.DisruptionReason{operator}}
	all := autoscalingv1alpha1.DisruptionReasons
	tenPercent := autoscalingv1alpha1.DisruptionBudget{Shoots: "10%", Reasons: all}
	noneInOfficeHours := autoscalingv1alpha1.DisruptionBudget{Shoots: "0", Schedule: "0 9 * * mon-fri", DurationSeconds: 8 * 3600, Reasons: all}
	twoDrained := disruption.Set{Seeds: 4, Shoots: 40, Drained: []disruption.DrainedSeed{{Name: "demo-3", Started: true}, {Name: "demo-1"}}}
	tests := []struct {
		name      string
		budgets   []autoscalingv1alpha1.DisruptionBudget
		reason    autoscalingv1alpha1.DisruptionReason
		seed      string
		migrating int
		want      BudgetVerdict
	}{
		{"no budgets", nil, operator, "demo-1", 0, BudgetVerdict{}},
		{"a drain under way keeps its place", []autoscalingv1alpha1.DisruptionBudget{oneSeed}, operator, "demo-3", 0, BudgetVerdict{}},
		{"a new drain waits", []autoscalingv1alpha1.DisruptionBudget{oneSeed}, operator, "demo-1", 0, BudgetVerdict{Waiting: `the disruption budget budgets[0] (seeds "1") ` +
			`of SeedAutoscaler garden/demo lets 1 of the set's 4 seeds be disrupted at once, 2 are (drained or being deleted), and the drains of demo-3 go first`}},
		{"consolidation's drain was admitted when it started", []autoscalingv1alpha1.DisruptionBudget{{Seeds: "1", Reasons: all}}, consolidation, "demo-1", 0, BudgetVerdict{}},
		{"the shoots budget bounds migrations out of the set", []autoscalingv1alpha1.DisruptionBudget{tenPercent}, consolidation, "demo-1", 3, BudgetVerdict{
			Room: 1, Bounded: true, ShootsBudget: `the disruption budget budgets[0] (shoots "10%") of SeedAutoscaler garden/demo lets 4 of the set's 40 shoots migrate at once`}},
		{"no migration within office hours", []autoscalingv1alpha1.DisruptionBudget{tenPercent, noneInOfficeHours}, operator, "demo-3", 0, BudgetVerdict{
			Room: 0, Bounded: true, ShootsBudget: `the disruption budget budgets[1] (shoots "0", from "0 9 * * mon-fri" for 8h0m0s) of SeedAutoscaler garden/demo lets 0 of the set's 40 shoots migrate at once`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, JudgeBudgets(owner, tt.budgets, tt.reason, tt.seed, twoDrained, tt.migrating, now))
		})
	}
}
