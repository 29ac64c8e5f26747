package simulator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

func TestNextShootTransition(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	const (
		create    = gardencorev1beta1.LastOperationTypeCreate
		migrate   = gardencorev1beta1.LastOperationTypeMigrate
		processed = gardencorev1beta1.LastOperationStateProcessing
		succeeded = gardencorev1beta1.LastOperationStateSucceeded
		failed    = gardencorev1beta1.LastOperationStateFailed
	)
	retry := func(b *builders.ShootBuilder) *gardencorev1beta1.Shoot {
		s := b.Obj()
		s.Annotations = map[string]string{seedmanagementv1alpha1.AnnotationOperation: seedmanagementv1alpha1.OperationRetry}
		return s
	}
	generation := func(s *gardencorev1beta1.Shoot, gen, observed int64) *gardencorev1beta1.Shoot {
		s.Generation, s.Status.ObservedGeneration = gen, observed
		return s
	}
	bound := func() *builders.ShootBuilder { return builders.MakeShoot("p", "a").SeedName("s1") }
	tests := []struct {
		name  string
		shoot *gardencorev1beta1.Shoot
		due   time.Time
		want  ShootTransition
	}{
		{"unbound waits for the scheduler", builders.MakeShoot("p", "a").Obj(), time.Time{}, ShootTransition{Action: ActionNone}},
		{"unbound with a scheduler error waits", builders.MakeShoot("p", "a").LastOperation(create, gardencorev1beta1.LastOperationStateError).Obj(), time.Time{}, ShootTransition{Action: ActionNone}},
		{"newly bound is created", bound().Obj(), time.Time{}, ShootTransition{Action: ActionCreate}},
		{"bound after a scheduler error is created", bound().LastOperation(create, gardencorev1beta1.LastOperationStatePending).Obj(), time.Time{}, ShootTransition{Action: ActionCreate}},
		{"status seed differs: the control plane migrates", bound().StatusSeedName("s0").LastOperation(create, succeeded).Obj(), time.Time{}, ShootTransition{Action: ActionMigrate}},
		{"migrating before due", bound().StatusSeedName("s0").LastOperation(migrate, processed).Obj(), now.Add(time.Second), ShootTransition{Action: ActionNone}},
		{"migrating at due finishes", bound().StatusSeedName("s0").LastOperation(migrate, processed).Obj(), now, ShootTransition{Action: ActionFinish}},
		{"failed migration waits to be rolled back", bound().StatusSeedName("s0").LastOperation(migrate, failed).Obj(), time.Time{}, ShootTransition{Action: ActionNone}},
		{"failed migration with retry retries", retry(bound().StatusSeedName("s0").LastOperation(migrate, failed)), time.Time{}, ShootTransition{Action: ActionRetry, RemoveRetry: true}},
		{"migrated, then moved again", bound().StatusSeedName("s0").LastOperation(migrate, succeeded).Obj(), time.Time{}, ShootTransition{Action: ActionMigrate}},
		{"rolled back after a failed migration reconciles on the old seed", generation(bound().StatusSeedName("s1").LastOperation(migrate, failed).Obj(), 3, 2), time.Time{}, ShootTransition{Action: ActionReconcile}},
		{"migrated stays", bound().StatusSeedName("s1").LastOperation(migrate, succeeded).Obj(), time.Time{}, ShootTransition{Action: ActionNone}},
		{"processing before due", bound().StatusSeedName("s1").LastOperation(create, processed).Obj(), now.Add(time.Second), ShootTransition{Action: ActionNone}},
		{"processing without a due time", bound().StatusSeedName("s1").LastOperation(create, processed).Obj(), time.Time{}, ShootTransition{Action: ActionNone}},
		{"processing at due finishes", bound().StatusSeedName("s1").LastOperation(create, processed).Obj(), now, ShootTransition{Action: ActionFinish}},
		{"succeeded stays", bound().StatusSeedName("s1").LastOperation(create, succeeded).Obj(), time.Time{}, ShootTransition{Action: ActionNone}},
		{"changed spec reconciles", generation(bound().StatusSeedName("s1").LastOperation(create, succeeded).Obj(), 2, 1), time.Time{}, ShootTransition{Action: ActionReconcile}},
		{"failed stays", bound().StatusSeedName("s1").LastOperation(create, failed).Obj(), time.Time{}, ShootTransition{Action: ActionNone}},
		{"failed with retry retries", retry(bound().StatusSeedName("s1").LastOperation(create, failed)), time.Time{}, ShootTransition{Action: ActionRetry, RemoveRetry: true}},
		{"failed with changed spec retries", generation(bound().StatusSeedName("s1").LastOperation(create, failed).Obj(), 3, 1), time.Time{}, ShootTransition{Action: ActionRetry}},
		{"retry on a succeeded shoot is consumed", retry(bound().StatusSeedName("s1").LastOperation(create, succeeded)), time.Time{}, ShootTransition{Action: ActionNone, RemoveRetry: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, NextShootTransition(tt.shoot, tt.due, now))
		})
	}
}

func TestFaultActive(t *testing.T) {
	faults := []Fault{{Type: FaultHeartbeat, Seed: "a", At: dur(time.Hour), Duration: dur(30 * time.Minute)}}
	assert.False(t, FaultActive(faults, FaultHeartbeat, "a", 59*time.Minute))
	assert.True(t, FaultActive(faults, FaultHeartbeat, "a", time.Hour))
	assert.True(t, FaultActive(faults, FaultHeartbeat, "a", 89*time.Minute))
	assert.False(t, FaultActive(faults, FaultHeartbeat, "a", 90*time.Minute))
	assert.False(t, FaultActive(faults, FaultBackup, "a", time.Hour))
	assert.False(t, FaultActive(faults, FaultHeartbeat, "b", time.Hour))
}

func TestGardenletRuns(t *testing.T) {
	managed := map[string]*seedmanagementv1alpha1.ManagedSeed{
		"set-0": {ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "set-0"}, Spec: seedmanagementv1alpha1.ManagedSeedSpec{Shoot: &seedmanagementv1alpha1.Shoot{Name: "set-0"}}},
		"set-1": {ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "set-1"}, Spec: seedmanagementv1alpha1.ManagedSeedSpec{Shoot: &seedmanagementv1alpha1.Shoot{Name: "set-1"}}},
	}
	ops := map[string]*gardencorev1beta1.LastOperation{
		"garden/set-0": {Type: gardencorev1beta1.LastOperationTypeCreate, State: gardencorev1beta1.LastOperationStateSucceeded},
		"garden/set-1": {Type: gardencorev1beta1.LastOperationTypeCreate, State: gardencorev1beta1.LastOperationStateProcessing},
		"garden/set-2": {Type: gardencorev1beta1.LastOperationTypeReconcile, State: gardencorev1beta1.LastOperationStateProcessing},
		"garden/set-3": {Type: gardencorev1beta1.LastOperationTypeCreate, State: gardencorev1beta1.LastOperationStateFailed},
	}
	op := func(ns, name string) *gardencorev1beta1.LastOperation { return ops[ns+"/"+name] }
	for _, name := range []string{"set-2", "set-3", "set-4"} {
		managed[name] = &seedmanagementv1alpha1.ManagedSeed{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: name},
			Spec: seedmanagementv1alpha1.ManagedSeedSpec{Shoot: &seedmanagementv1alpha1.Shoot{Name: name}}}
	}
	assert.True(t, GardenletRuns("set-0", managed, op, false), "its shoot succeeded")
	assert.False(t, GardenletRuns("set-1", managed, op, true), "its shoot is still being created")
	assert.True(t, GardenletRuns("set-2", managed, op, false), "its shoot exists and is being reconciled")
	assert.False(t, GardenletRuns("set-3", managed, op, true), "its shoot's creation failed")
	assert.False(t, GardenletRuns("set-4", managed, op, true), "its shoot does not exist")
	assert.True(t, GardenletRuns("hand-made", managed, op, true))
	assert.False(t, GardenletRuns("hand-made", managed, op, false))
}

func TestTenantChanges(t *testing.T) {
	at := func(name string, minute int) *gardencorev1beta1.Shoot {
		s := builders.MakeShoot("garden-p", name).Obj()
		s.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 1, 0, minute, 0, 0, time.UTC))
		return s
	}
	a, b, c, d := at("a", 1), at("b", 2), at("c", 3), at("d", 4)
	never := func(*gardencorev1beta1.Shoot) bool { return false }

	remove, create := TenantChanges(map[string]int{"x": 5}, map[string][]*gardencorev1beta1.Shoot{"x": {b, a}}, never)
	assert.Empty(t, remove)
	assert.Equal(t, map[string]int{"x": 3}, create)

	remove, create = TenantChanges(map[string]int{"x": 1}, map[string][]*gardencorev1beta1.Shoot{"x": {c, a, b}}, never)
	assert.Equal(t, []*gardencorev1beta1.Shoot{a, b}, remove, "the oldest go first")
	assert.Empty(t, create)

	expired := func(s *gardencorev1beta1.Shoot) bool { return s == c }
	remove, create = TenantChanges(map[string]int{"x": 3}, map[string][]*gardencorev1beta1.Shoot{"x": {a, b, c, d}}, expired)
	assert.Equal(t, []*gardencorev1beta1.Shoot{c}, remove, "an expired shoot goes and is replaced only if wanted")
	assert.Empty(t, create)

	remove, create = TenantChanges(map[string]int{"x": 2, "y": 1}, map[string][]*gardencorev1beta1.Shoot{"z": {a}, "x": {b}}, expired)
	assert.Equal(t, []*gardencorev1beta1.Shoot{a}, remove, "a location no longer wanted empties")
	assert.Equal(t, map[string]int{"x": 1, "y": 1}, create)
}

func TestTakeSample(t *testing.T) {
	tenant := func(b *builders.ShootBuilder) gardencorev1beta1.Shoot {
		return *b.Labels(LabelTenant, "true").Obj()
	}
	deleting := tenant(builders.MakeShoot("p", "gone").SeedName("s1"))
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	shoots := []gardencorev1beta1.Shoot{
		tenant(builders.MakeShoot("p", "a").SeedName("s1")),
		tenant(builders.MakeShoot("p", "b")),
		tenant(builders.MakeShoot("p", "c").SeedName("s2").LastOperation(gardencorev1beta1.LastOperationTypeCreate, gardencorev1beta1.LastOperationStateFailed)),
		*builders.MakeShoot("garden", "set-0").SeedName("s1").Obj(),
		deleting,
	}
	seeds := []gardencorev1beta1.Seed{
		*builders.MakeSeed("s1").Allocatable(6).Ready().Obj(),
		*builders.MakeSeed("s2").Allocatable(4).Ready().Obj(),
		*builders.MakeSeed("s3").Allocatable(100).Obj(),
	}
	got := TakeSample(time.Hour, map[string]int{AnyLocation: 5}, shoots, seeds)
	assert.Equal(t, Sample{Elapsed: time.Hour, Wanted: 5, Tenants: 3, Shoots: 4, Bound: 4, Pending: 1, Failed: 1,
		Seeds: 3, SeedsReady: 2, Allocatable: 10, Utilization: 0.4}, got)
}
