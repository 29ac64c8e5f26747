package controller

import (
	"context"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/framework"
)

// What the scheduler lends the check of bindings it did not make (scheduler/admission): the
// same seeds, usage and inputs its own decisions read, so that a manual binding is judged
// exactly as the scheduler would judge the seed. They are fed by informers on every
// replica, not only the leader.

// Seed returns a seed as the scheduler's decisions see it, with its seat in the ledger; false
// when the seed informer has shown no seed of that name.
func (r *Reconciler) Seed(name string) (*framework.SeedInfo, bool) {
	return r.seedSnapshot.value(name)
}

// Input gathers what a decision about shoot reads besides the seeds (its cloud profile and
// region config), with the ledger's usage.
func (r *Reconciler) Input(ctx context.Context, shoot *gardencorev1beta1.Shoot) (*framework.Input, error) {
	in, err := r.input(ctx, shoot)
	if err != nil {
		return nil, err
	}
	in.Usage = framework.Occupied
	return in, nil
}

// What the scheduler lends the drain of seeds (scheduler/drain): its seeds and decisions,
// and its way of binding, which moves a bound shoot's control plane when it changes
// spec.seedName.

// Seeds returns the seeds as the scheduler's decisions see them, sorted by name. Callers
// must not modify the slice or the seeds.
func (r *Reconciler) Seeds() []*framework.SeedInfo { return r.seedSnapshot.List() }

// Rebind sets spec.seedName of a bound shoot to another seed, guarded by the
// resourceVersion of shoot, as a bind does: a control plane migration, or its roll-back.
// The caller reserves the new seed in the ledger unless the shoot already counts there.
func (r *Reconciler) Rebind(ctx context.Context, shoot *gardencorev1beta1.Shoot, seed string) error {
	return r.bind(ctx, shoot, seed)
}
