package recommend

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

func TestChooseConsolidationCandidates(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	rules := ConsolidationRules{Window: 30 * time.Minute, MaxMigrationsPerHour: 10, ShootCooldown: time.Hour}
	seed := func(name string, shoots int) ConsolidationSeed {
		return ConsolidationSeed{Name: name, Shoots: shoots, Allocatable: 10, Ready: true}
	}
	// Four seeds of 10 at a target of 70%: 28 shoots at most on four, 21 on three.
	spread := []ConsolidationSeed{seed("a", 6), seed("b", 2), seed("c", 5), seed("d", 3)} // 16 shoots
	base := func() ConsolidationInput {
		return ConsolidationInput{Now: now, Rules: rules, AboveNeedsSince: now.Add(-time.Hour), Current: 4, Min: 1,
			TargetUtilization: 0.7, Seeds: append([]ConsolidationSeed(nil), spread...)}
	}
	with := func(change func(*ConsolidationInput)) ConsolidationInput {
		in := base()
		change(&in)
		return in
	}
	tests := []struct {
		name        string
		in          ConsolidationInput
		wantSeeds   []string
		wantMessage string
	}{
		{"every seed the others hold at the target, fewest shoots first", base(), []string{"b", "d", "c", "a"}, ""},
		{"not above needs", with(func(in *ConsolidationInput) { in.AboveNeedsSince = time.Time{} }), nil, "the set is not above its needs"},
		{"within the window", with(func(in *ConsolidationInput) { in.AboveNeedsSince = now.Add(-10 * time.Minute) }), nil,
			"the set has been above its needs for 10m0s, less than the window of 30m0s"},
		{"one drain at a time", with(func(in *ConsolidationInput) { in.Seeds[2].Draining = true }), nil,
			"seed c is being drained; consolidation drains one seed at a time"},
		{"scale-ahead expects the capacity back", with(func(in *ConsolidationInput) { in.ScaleAheadHolds = true }), nil,
			"scale-ahead expects the capacity back within its lead time"},
		{"never below minReplicas", with(func(in *ConsolidationInput) { in.Min = 4 }), nil, "one seed fewer would be below minReplicas 4"},
		{"a protected seed is not drained", with(func(in *ConsolidationInput) { in.Seeds[1].Protected = true }), []string{"d", "c", "a"}, ""},
		{"a skipped seed is not drained", with(func(in *ConsolidationInput) { in.Skip = map[string]string{"b": "cool-down"} }), []string{"d", "c", "a"}, ""},
		{"the budget has not paid for the last drain", with(func(in *ConsolidationInput) {
			in.Drains = []PastDrain{{Start: now.Add(-2 * time.Hour), Shoots: 5}, {Start: now.Add(-time.Hour), Shoots: 15}} // paid at 12:30
		}), nil, "the budget of 10 migrations per hour pays for the 15 shoots of the drain started at 2026-01-01T11:00:00Z until 2026-01-01T12:30:00Z"},
		{"the budget has paid for the drains before", with(func(in *ConsolidationInput) {
			in.Drains = []PastDrain{{Start: now.Add(-90 * time.Minute), Shoots: 15}} // paid at 12:00
		}), []string{"b", "d", "c", "a"}, ""},
		{"a seed larger than the hourly budget is drained all the same", with(func(in *ConsolidationInput) {
			in.Rules.MaxMigrationsPerHour = 1
		}), []string{"b", "d", "c", "a"}, ""},
		{"the others must hold the set at the target", with(func(in *ConsolidationInput) {
			in.Seeds = []ConsolidationSeed{seed("a", 8), seed("b", 7), seed("c", 7)} // 22 shoots; two seeds hold 14
			in.Current = 3
		}), nil, "without seed b the other seeds hold 14 shoots at the target at most, fewer than the 22 of the set"},
		{"at the target exactly is allowed", with(func(in *ConsolidationInput) {
			in.Seeds = []ConsolidationSeed{seed("a", 5), seed("b", 2)}
			in.Current = 2
		}), []string{"b", "a"}, ""},
		{"empty seeds are left to scale-in", with(func(in *ConsolidationInput) {
			in.Seeds = []ConsolidationSeed{seed("a", 0), seed("b", 0)}
			in.Current = 2
		}), nil, "no seed may be drained (protected, skipped or empty)"},
		{"a seed that is not ready is no place to go", with(func(in *ConsolidationInput) {
			in.Seeds = []ConsolidationSeed{seed("a", 7), seed("b", 1), {Name: "c", Allocatable: 10}}
			in.Current = 3
		}), nil, "without seed b the other seeds hold 7 shoots at the target at most, fewer than the 8 of the set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ChooseConsolidationCandidates(tt.in)
			var names []string
			for _, s := range got.Seeds {
				names = append(names, s.Name)
			}
			assert.Equal(t, tt.wantSeeds, names)
			assert.Equal(t, tt.wantMessage, got.Message)
		})
	}
}

func TestScoreConsolidation(t *testing.T) {
	tests := []struct {
		name     string
		costs    []SeedCost
		minScore float64
		want     ConsolidationScore
	}{
		{"the lightest migrations win, not the fewest shoots", []SeedCost{
			{Seed: "few", Shoots: 5, Weight: 5}, {Seed: "live", Shoots: 10, Weight: 2}, {Seed: "many", Shoots: 30, Weight: 30},
		}, 0.02, ConsolidationScore{Seed: "live", Shoots: 10, Weight: 2, Score: 0.5, Approved: true,
			Message: "seed live scores 0.5 (1 seed freed / 2 weighted migrations of 10 shoots), at least the minimum score 0.02"}},
		{"below the minimum nothing moves", []SeedCost{{Seed: "a", Shoots: 60, Weight: 60}, {Seed: "b", Shoots: 80, Weight: 64}},
			0.02, ConsolidationScore{Seed: "a", Shoots: 60, Weight: 60, Score: 1.0 / 60,
				Message: "seed a scores 0.0167 (1 seed freed / 60 weighted migrations of 60 shoots), below the minimum score 0.02"}},
		{"at the minimum exactly", []SeedCost{{Seed: "a", Shoots: 50, Weight: 50}}, 0.02,
			ConsolidationScore{Seed: "a", Shoots: 50, Weight: 50, Score: 0.02, Approved: true,
				Message: "seed a scores 0.02 (1 seed freed / 50 weighted migrations of 50 shoots), at least the minimum score 0.02"}},
		{"a seed whose shoots may not all move is passed over", []SeedCost{
			{Seed: "a", Shoots: 1, Weight: 1, Unmovable: "shoot p/x opted out of migration"}, {Seed: "b", Shoots: 4, Weight: 4},
		}, 0.02, ConsolidationScore{Seed: "b", Shoots: 4, Weight: 4, Score: 0.25, Approved: true,
			Message: "seed b scores 0.25 (1 seed freed / 4 weighted migrations of 4 shoots), at least the minimum score 0.02"}},
		{"ties go to fewer shoots, then the name", []SeedCost{{Seed: "c", Shoots: 5, Weight: 1}, {Seed: "b", Shoots: 1, Weight: 1}, {Seed: "a", Shoots: 1, Weight: 1}},
			0, ConsolidationScore{Seed: "a", Shoots: 1, Weight: 1, Score: 1, Approved: true,
				Message: "seed a scores 1 (1 seed freed / 1 weighted migrations of 1 shoots), at least the minimum score 0"}},
		{"shoots that weigh nothing", []SeedCost{{Seed: "free", Shoots: 3}}, 0.02,
			ConsolidationScore{Seed: "free", Shoots: 3, Score: math.Inf(1), Approved: true,
				Message: "seed free scores +Inf (1 seed freed / 0 weighted migrations of 3 shoots), at least the minimum score 0.02"}},
		{"no seed may move", []SeedCost{{Seed: "a", Unmovable: "shoot p/x is a ManagedSeedSet replica's"}}, 0.02,
			ConsolidationScore{Message: "no seed may be drained: seed a: shoot p/x is a ManagedSeedSet replica's"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ScoreConsolidation(tt.costs, tt.minScore))
		})
	}
}

func TestMigrationWeight(t *testing.T) {
	ha := &gardencorev1beta1.ControlPlane{HighAvailability: &gardencorev1beta1.HighAvailability{}}
	shoot := func(cp *gardencorev1beta1.ControlPlane, weight ...string) *gardencorev1beta1.Shoot {
		s := &gardencorev1beta1.Shoot{ObjectMeta: metav1.ObjectMeta{Namespace: "p", Name: "s"}}
		s.Spec.ControlPlane = cp
		if len(weight) > 0 {
			s.Annotations = map[string]string{gardencorev1beta1.AnnotationMigrationWeight: weight[0]}
		}
		return s
	}
	tests := []struct {
		name        string
		shoot       *gardencorev1beta1.Shoot
		want        float64
		wantProblem string
	}{
		{"an ordinary control plane", shoot(nil), 1, ""},
		{"a control plane without high availability", shoot(&gardencorev1beta1.ControlPlane{}), 1, ""},
		{"a highly available control plane moves live", shoot(ha), 0.2, ""},
		{"the annotation wins", shoot(ha, "3"), 3, ""},
		{"a shoot whose downtime does not matter", shoot(nil, "0"), 0, ""},
		{"not a number", shoot(ha, "heavy"), 0.2,
			`shoot p/s: annotation seedscaler.io/migration-weight="heavy" is not a decimal from 0 to 100, e.g. "0.5"; it weighs 0.2`},
		{"negative", shoot(nil, "-1"), 1, `shoot p/s: annotation seedscaler.io/migration-weight="-1" is not a decimal from 0 to 100, e.g. "0.5"; it weighs 1`},
		{"above 100", shoot(nil, "1e3"), 1, `shoot p/s: annotation seedscaler.io/migration-weight="1e3" is not a decimal from 0 to 100, e.g. "0.5"; it weighs 1`},
		{"NaN", shoot(nil, "NaN"), 1, `shoot p/s: annotation seedscaler.io/migration-weight="NaN" is not a decimal from 0 to 100, e.g. "0.5"; it weighs 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problem := MigrationWeight(tt.shoot)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantProblem, problem)
		})
	}
}

func TestFormatScore(t *testing.T) {
	for v, want := range map[float64]string{0.02: "0.02", 1.0 / 21: "0.0476", 0.2: "0.2", 1: "1", 20.44: "20.4", 1500: "1500", math.Inf(1): "+Inf"} {
		assert.Equal(t, want, FormatScore(v), "%v", v)
	}
}
