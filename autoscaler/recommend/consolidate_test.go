package recommend

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestChooseConsolidation(t *testing.T) {
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
		wantSeed    string
		wantMessage string
	}{
		{"the cheapest seed", base(), "b",
			"drains seed b: its 2 shoots move to the other seeds, which then hold the set's 16 shoots at 53% of their allocatable (target 70%)"},
		{"not above needs", with(func(in *ConsolidationInput) { in.AboveNeedsSince = time.Time{} }), "", "the set is not above its needs"},
		{"within the window", with(func(in *ConsolidationInput) { in.AboveNeedsSince = now.Add(-10 * time.Minute) }), "",
			"the set has been above its needs for 10m0s, less than the window of 30m0s"},
		{"one drain at a time", with(func(in *ConsolidationInput) { in.Seeds[2].Draining = true }), "",
			"seed c is being drained; consolidation drains one seed at a time"},
		{"scale-ahead expects the capacity back", with(func(in *ConsolidationInput) { in.ScaleAheadHolds = true }), "",
			"scale-ahead expects the capacity back within its lead time"},
		{"never below minReplicas", with(func(in *ConsolidationInput) { in.Min = 4 }), "", "one seed fewer would be below minReplicas 4"},
		{"a protected seed is not drained", with(func(in *ConsolidationInput) { in.Seeds[1].Protected = true }), "d",
			"drains seed d: its 3 shoots move to the other seeds, which then hold the set's 16 shoots at 53% of their allocatable (target 70%)"},
		{"a skipped seed is not drained", with(func(in *ConsolidationInput) { in.Skip = map[string]string{"b": "cool-down"} }), "d", ""},
		{"the budget has not paid for the last drain", with(func(in *ConsolidationInput) {
			in.Drains = []PastDrain{{Start: now.Add(-2 * time.Hour), Shoots: 5}, {Start: now.Add(-time.Hour), Shoots: 15}} // paid at 12:30
		}), "", "the budget of 10 migrations per hour pays for the 15 shoots of the drain started at 2026-01-01T11:00:00Z until 2026-01-01T12:30:00Z"},
		{"the budget has paid for the drains before", with(func(in *ConsolidationInput) {
			in.Drains = []PastDrain{{Start: now.Add(-90 * time.Minute), Shoots: 15}} // paid at 12:00
		}), "b", ""},
		{"a seed larger than the hourly budget is drained all the same", with(func(in *ConsolidationInput) {
			in.Rules.MaxMigrationsPerHour = 1
		}), "b", ""},
		{"the others must hold the set at the target", with(func(in *ConsolidationInput) {
			in.Seeds = []ConsolidationSeed{seed("a", 8), seed("b", 7), seed("c", 7)} // 22 shoots; two seeds hold 14
			in.Current = 3
		}), "", "without seed b the other seeds hold 14 shoots at the target at most, fewer than the 22 of the set"},
		{"at the target exactly is allowed", with(func(in *ConsolidationInput) {
			in.Seeds = []ConsolidationSeed{seed("a", 5), seed("b", 2)}
			in.Current = 2
		}), "b", "drains seed b: its 2 shoots move to the other seeds, which then hold the set's 7 shoots at 70% of their allocatable (target 70%)"},
		{"empty seeds are left to scale-in", with(func(in *ConsolidationInput) {
			in.Seeds = []ConsolidationSeed{seed("a", 0), seed("b", 0)}
			in.Current = 2
		}), "", "no seed may be drained (protected, skipped or empty)"},
		{"a seed that is not ready is no place to go", with(func(in *ConsolidationInput) {
			in.Seeds = []ConsolidationSeed{seed("a", 7), seed("b", 1), {Name: "c", Allocatable: 10}}
			in.Current = 3
		}), "", "without seed b the other seeds hold 7 shoots at the target at most, fewer than the 8 of the set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ChooseConsolidation(tt.in)
			assert.Equal(t, tt.wantSeed, got.Seed)
			if tt.wantMessage != "" {
				assert.Equal(t, tt.wantMessage, got.Message)
			}
		})
	}
}
