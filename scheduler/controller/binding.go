package controller

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/scheduler/placement"
)

// Placer is how the scheduler places shoots, and how the drain of seeds and the check of
// bindings the scheduler did not make place and check them too: the same seeds, usage,
// inputs and lock its own decisions read. It is fed by informers on every replica, not only
// the leader. Nil until the scheduler is added to a manager.
func (r *Reconciler) Placer() *placement.Placer { return r.placer }

// newPlacer places with the scheduler's ledger, profile, seeds and bind.
func (r *Reconciler) newPlacer() *placement.Placer {
	return &placement.Placer{
		Ledger:  r.Ledger,
		Decider: r.Profile,
		Input:   r.decisionInput,
		Seeds:   r.seedSnapshot.List,
		Seed:    r.Seed,
		Bind:    r.bind,
	}
}

// decisionInput gathers what a decision about shoot reads besides the seeds (its cloud
// profile and region config), with the ledger's usage.
func (r *Reconciler) decisionInput(ctx context.Context, shoot *gardencorev1beta1.Shoot) (*framework.Input, error) {
	in, err := r.input(ctx, shoot)
	if err != nil {
		return nil, err
	}
	in.Usage = framework.Occupied
	return in, nil
}

// What else the scheduler lends the drain of seeds (scheduler/drain) and the tests: its view
// of the seeds, its way of binding, which a roll-back uses, and its metrics.

// Seed returns a seed as the scheduler's decisions see it, with its seat in the ledger; false
// when the seed informer has shown no seed of that name.
func (r *Reconciler) Seed(name string) (*framework.SeedInfo, bool) {
	return r.seedSnapshot.value(name)
}

// Seeds returns the seeds as the scheduler's decisions see them, sorted by name. Callers
// must not modify the slice or the seeds.
func (r *Reconciler) Seeds() []*framework.SeedInfo { return r.seedSnapshot.List() }

// Rebind sets spec.seedName of a bound shoot to another seed, guarded by the
// resourceVersion of shoot, as a bind does, without a decision or a reservation: the
// roll-back of a migration to the seed the shoot still counts on.
func (r *Reconciler) Rebind(ctx context.Context, shoot *gardencorev1beta1.Shoot, seed string) error {
	return r.bind(ctx, shoot, seed)
}

// Results of migrations, the result label of seedscaler_scheduler_migrations_total.
const (
	MigrationStarted    = "started"
	MigrationRolledBack = "rolled_back"
)

// CountMigration counts a migration the drain started or rolled back (result MigrationStarted
// or MigrationRolledBack).
func (r *Reconciler) CountMigration(result string) {
	r.metrics.migrations.WithLabelValues(result).Inc()
}

// DrainShoots are a drained seed's shoots by state, as seedscaler_scheduler_drain_shoots
// serves them.
type DrainShoots struct {
	// Remaining are every shoot still counted on the seed; of them, Migrating are leaving,
	// Waiting will move later, Blocked cannot move.
	Remaining, Migrating, Waiting, Blocked int
}

// ObserveDrain sets the series of a seed being drained; nil removes them, once the seed is
// no longer drained or is gone.
func (r *Reconciler) ObserveDrain(seed string, shoots *DrainShoots) {
	if shoots == nil {
		r.metrics.drainShoots.DeletePartialMatch(prometheus.Labels{"seed": seed})
		return
	}
	for state, n := range map[string]int{"remaining": shoots.Remaining, "migrating": shoots.Migrating, "waiting": shoots.Waiting, "blocked": shoots.Blocked} {
		r.metrics.drainShoots.WithLabelValues(seed, state).Set(float64(n))
	}
}
