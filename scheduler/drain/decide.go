// Package drain empties seeds annotated seedscaler.io/drain=true: the scheduler's filters
// already cordon them, and this controller moves their shoots' control planes to other
// seeds (a migration: spec.seedName changed, status.seedName the old seed until it ends),
// a few at a time, never a shoot that is protected, and reports the progress in the Seed's
// Drained condition. It also rolls back migrations that failed. The decisions here are
// plain functions; the reconcilers around them read and write the API.
package drain

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/disruption"
	"github.com/seedscaler/seedscaler/internal/membership"
)

// Class is what a drain does with one shoot counted on the drained seed.
type Class string

const (
	// Movable means the drain may migrate the shoot's control plane now.
	Movable Class = "Movable"
	// Leaving means the shoot's control plane is migrating away (spec.seedName names another seed).
	Leaving Class = "Leaving"
	// Waiting means the shoot cannot move yet (an operation in flight, its deletion, the
	// cool-down after a failed migration) and will later.
	Waiting Class = "Waiting"
	// Protected means the drain never moves the shoot.
	Protected Class = "Protected"
)

// Verdict is the class of a shoot and why.
type Verdict struct {
	Class  Class
	Reason string
}

// Classify decides what a drain of seed does with a shoot counted on it. failedAt is when
// the shoot's last migration failed and was rolled back (zero: never, as far as known);
// the shoot is left alone for cooldown after that.
func Classify(shoot *gardencorev1beta1.Shoot, seed, schedulerName string, failedAt time.Time, cooldown time.Duration, now time.Time) Verdict {
	spec, status := ptr.Deref(shoot.Spec.SeedName, ""), ptr.Deref(shoot.Status.SeedName, "")
	op := shoot.Status.LastOperation
	switch {
	case shoot.DeletionTimestamp != nil:
		return Verdict{Waiting, "being deleted"}
	case spec != seed && op != nil && op.Type == gardencorev1beta1.LastOperationTypeMigrate && op.State == gardencorev1beta1.LastOperationStateFailed:
		return Verdict{Waiting, fmt.Sprintf("its migration to seed %s failed and is rolled back", spec)}
	case spec != seed:
		return Verdict{Leaving, fmt.Sprintf("migrating to seed %s", spec)}
	case status != "" && status != seed:
		return Verdict{Waiting, fmt.Sprintf("its control plane is still migrating here from seed %s", status)}
	case shoot.Annotations[gardencorev1beta1.AnnotationMigration] == gardencorev1beta1.MigrationDisabled:
		return Verdict{Protected, fmt.Sprintf("opted out by annotation %s=%s", gardencorev1beta1.AnnotationMigration, gardencorev1beta1.MigrationDisabled)}
	case membership.IsReplica(shoot):
		// A seed runs in it: moving its control plane would move a seed's own cluster
		// under its shoots.
		return Verdict{Protected, "the shoot of a ManagedSeedSet replica (a seed's own cluster)"}
	case schedulerOf(shoot) != schedulerName:
		return Verdict{Protected, fmt.Sprintf("placed by scheduler %s, not this one", schedulerOf(shoot))}
	case op == nil || status == "":
		return Verdict{Waiting, "not created yet"}
	case op.State != gardencorev1beta1.LastOperationStateSucceeded:
		return Verdict{Waiting, fmt.Sprintf("its %s is %s", op.Type, op.State)}
	case !failedAt.IsZero() && now.Before(failedAt.Add(cooldown)):
		return Verdict{Waiting, fmt.Sprintf("its last migration failed at %s; tried again from %s",
			failedAt.UTC().Format(time.RFC3339), failedAt.Add(cooldown).UTC().Format(time.RFC3339))}
	}
	return Verdict{Movable, ""}
}

func schedulerOf(shoot *gardencorev1beta1.Shoot) string {
	if n := ptr.Deref(shoot.Spec.SchedulerName, ""); n != "" {
		return n
	}
	return gardencorev1beta1.DefaultSchedulerName
}

// Budget bounds the migrations in flight, out of one seed and out of the seeds of one
// ManagedSeedSet, like a disruption budget.
type Budget struct {
	PerSeed, PerSet int
}

// Room is how many migrations a drain may start now: what the budget leaves after those in
// flight out of the seed and out of its set (a seed of no set counts only its own).
func (b Budget) Room(outOfSeed, outOfSet int) int {
	return max(0, min(b.PerSeed-outOfSeed, b.PerSet-outOfSet))
}

// BudgetVerdict is what the disruption budgets of a drained seed's set allow its drain now.
type BudgetVerdict struct {
	// Waiting says why the seeds budget of OperatorDrain leaves the drain no place yet: it
	// moves no shoot. Empty when it may move shoots.
	Waiting string
	// Room is how many more migrations out of the set the shoots budget allows; Bounded is
	// false when no active budget bounds them.
	Room    int
	Bounded bool
	// ShootsBudget says what the shoots budget allows, for the message of the migrations it
	// holds back.
	ShootsBudget string
}

// JudgeBudgets applies the disruption budgets of a set's SeedAutoscaler (owner names it) to
// the drain of one of its seeds: a drain an operator started (reason OperatorDrain) moves
// shoots only once the seeds budget admits it (drains under way keep their places, the
// others follow by name); a consolidation's drain was admitted by the autoscaler when it
// started it. The shoots budget of the drain's reason bounds the migrations in flight out of
// the set.
func JudgeBudgets(owner string, budgets []autoscalingv1alpha1.DisruptionBudget, reason autoscalingv1alpha1.DisruptionReason, seed string,
	set disruption.Set, migrating int, now time.Time) BudgetVerdict {
	var v BudgetVerdict
	if reason == autoscalingv1alpha1.DisruptionOperatorDrain {
		seeds := disruption.Evaluate(budgets, reason, disruption.Seeds, set.Seeds, now)
		if admitted, waiting := disruption.Admit(seeds, set.Deleting, set.Drained); slices.Contains(waiting, seed) {
			first := "no drain"
			if len(admitted) > 0 {
				first = "the drains of " + strings.Join(admitted, ", ")
			}
			v.Waiting = fmt.Sprintf("the disruption budget %s of %s lets %d of the set's %d seeds be disrupted at once, %d are (drained or being deleted), and %s go first",
				seeds.Budget, owner, seeds.Max, set.Seeds, set.Disrupted(), first)
		}
	}
	shoots := disruption.Evaluate(budgets, reason, disruption.Shoots, set.Shoots, now)
	if room, bounded := shoots.Room(migrating); bounded {
		v.Room, v.Bounded = room, true
		v.ShootsBudget = fmt.Sprintf("the disruption budget %s of %s lets %d of the set's %d shoots migrate at once", shoots.Budget, owner, shoots.Max, set.Shoots)
	}
	return v
}

// Progress is how a drain stands after one pass.
type Progress struct {
	// Held says why the drain waits for the seeds budget of its set; empty when it moves
	// shoots.
	Held string
	// ShootsBudget says what the shoots budget of the set allows when it, rather than the
	// drain's own budget, holds migrations back.
	ShootsBudget string
	// Shoots counted on the seed.
	Shoots int
	// Leaving are the shoots migrating away, by key.
	Leaving []string
	// Started are the migrations this pass started, by key, with their new seed.
	Started map[string]string
	// Waiting are the shoots that will move later, with why not now.
	Waiting map[string]string
	// Blocked are the shoots that cannot move: protected ones and those no other seed
	// takes, with why.
	Blocked map[string]string
	// OverBudget counts movable shoots left for a later pass by the budget.
	OverBudget int
}

// Reasons of the Drained condition and of the events that report it.
const (
	ReasonDraining      controllerutils.Reason = "Draining"
	ReasonDrainStuck    controllerutils.Reason = "DrainStuck"
	ReasonDrainComplete controllerutils.Reason = "DrainComplete"
	ReasonDrainWaiting  controllerutils.Reason = disruption.ReasonDrainWaiting
)

// maxNamed is how many shoots a condition message names per list.
const maxNamed = 10

// Outcome is the Drained condition a drain reports: True once no shoot is counted on the
// seed; False while shoots remain, DrainStuck when none of them can move on (every one is
// protected or has nowhere to go), naming them and why.
func (p Progress) Outcome() controllerutils.Outcome {
	if p.Shoots == 0 {
		return controllerutils.True(ReasonDrainComplete, "The seed holds no shoots: its drain is complete and it can be removed.")
	}
	if p.Held != "" {
		return controllerutils.False(ReasonDrainWaiting, fmt.Sprintf(
			"The drain waits for the disruption budget: %s. %d shoot(s) remain; the seed takes no new shoots meanwhile.", p.Held, p.Shoots))
	}
	blocked := ""
	if len(p.Blocked) > 0 {
		blocked = fmt.Sprintf(" %d cannot leave: %s.", len(p.Blocked), describe(p.Blocked))
	}
	if len(p.Leaving)+len(p.Started)+len(p.Waiting)+p.OverBudget == 0 {
		return controllerutils.False(ReasonDrainStuck, fmt.Sprintf(
			"The drain is stuck: %d shoot(s) remain and none can leave.%s Remove the opt-out, add seeds that take them, or relax their constraints.",
			p.Shoots, blocked))
	}
	msg := fmt.Sprintf("%d shoot(s) remain: %d migrating, %d waiting for the migration budget", p.Shoots, len(p.Leaving)+len(p.Started), p.OverBudget)
	if p.OverBudget > 0 && p.ShootsBudget != "" {
		msg += " (" + p.ShootsBudget + ")"
	}
	if len(p.Waiting) > 0 {
		msg += fmt.Sprintf(", %d not ready to move (%s)", len(p.Waiting), describe(p.Waiting))
	}
	return controllerutils.False(ReasonDraining, msg+"."+blocked)
}

// describe lists "key: why" sorted by key, at most maxNamed of them.
func describe(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, min(len(keys), maxNamed)+1)
	for i, k := range keys {
		if i == maxNamed {
			parts = append(parts, fmt.Sprintf("and %d more", len(keys)-maxNamed))
			break
		}
		parts = append(parts, k+": "+m[k])
	}
	return strings.Join(parts, "; ")
}

// FailedMigration reports whether a shoot's control plane migration failed and has not
// been rolled back: spec.seedName names the new seed, status.seedName the old one, and the
// Migrate operation Failed. It returns the old seed, to roll back to.
func FailedMigration(shoot *gardencorev1beta1.Shoot) (string, bool) {
	spec, status := ptr.Deref(shoot.Spec.SeedName, ""), ptr.Deref(shoot.Status.SeedName, "")
	op := shoot.Status.LastOperation
	if shoot.DeletionTimestamp != nil || spec == "" || status == "" || spec == status || op == nil {
		return "", false
	}
	return status, op.Type == gardencorev1beta1.LastOperationTypeMigrate && op.State == gardencorev1beta1.LastOperationStateFailed
}

// Unleavable says why no control plane can leave a seed, as gardener-apiserver judges a
// change of spec.seedName (the scheduler's Migration filter checks the other seed): the
// seed has no spec.backup, so a moved control plane would have nothing to restore its etcd
// from. Empty when control planes can leave it.
func Unleavable(seed *gardencorev1beta1.Seed) string {
	if seed.Spec.Backup == nil {
		return fmt.Sprintf("seed %s has no spec.backup: a control plane leaves a seed only with a backup to restore it from on the new one", seed.Name)
	}
	return ""
}
