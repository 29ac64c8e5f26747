// Package placement is the one way the scheduler places a shoot on a seed: the scheduler's
// own binds, the drain's migrations and the binding webhook's check all go through a Placer.
// A placement decides under the lock of the capacity ledger and reserves the winner before
// the lock is released, so that two decisions never both take the last place on a seed
// while the informer has not shown the first; the API call that binds runs outside the lock,
// and a bind that fails gives its place back.
package placement

import (
	"context"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/scheduler/framework"
)

// Ledger is what a placement does with the capacity ledger (*capacity.Ledger).
type Ledger interface {
	// Lock starts a decision; Unlock ends it after the reservation.
	Lock()
	Unlock()
	// Reserved returns the seed a shoot is reserved on, if any.
	Reserved(shootKey string) (string, bool)
	// Reserve counts a shoot on a seed until the informer shows it there.
	Reserve(shootKey, seed string)
	// Release gives a shoot's reservation back.
	Release(shootKey string)
}

// Decider decides where a shoot goes (*framework.Profile).
type Decider interface {
	// Decide picks a seed among seeds: filters, strategy, scores.
	Decide(in *framework.Input, seeds []*framework.SeedInfo) framework.Result
	// Feasible runs only the filters on one seed: nil when the seed passes them all.
	Feasible(in *framework.Input, seed *framework.SeedInfo) *framework.Rejection
}

// Placer places shoots on seeds: the protocol lock → decide → reserve, then bind outside the
// lock, releasing the reservation when the bind fails.
type Placer struct {
	// Ledger holds usage and reservations; its lock serializes decisions with their
	// reservations.
	Ledger Ledger
	// Decider decides.
	Decider Decider
	// Input gathers what a decision about a shoot reads besides the seeds, with the ledger's
	// usage (Input.Usage). An error means the shoot cannot be judged.
	Input func(ctx context.Context, shoot *gardencorev1beta1.Shoot) (*framework.Input, error)
	// Seeds are the seeds a decision reads, sorted by name; they must not be modified.
	Seeds func() []*framework.SeedInfo
	// Seed is one of Seeds by name; false when there is none.
	Seed func(name string) (*framework.SeedInfo, bool)
	// Bind sets the shoot's spec.seedName, guarded by the resourceVersion the decision was
	// made on, and updates shoot to the result.
	Bind func(ctx context.Context, shoot *gardencorev1beta1.Shoot, seed string) error
}

// Options change where a placement may put a shoot.
type Options struct {
	// MigratingFrom is the seed a bound shoot's control plane leaves: it is never chosen (its
	// cordon may not have reached Seeds yet), and the Migration filter keeps only the seeds
	// gardener-apiserver lets the control plane move to from it. Nil for a first placement.
	MigratingFrom *gardencorev1beta1.Seed
	// LimitMigrationDistance keeps a move within the region config's distance threshold of
	// MigratingFrom (the MigrationDistance filter), for moves nobody asked for seed by seed.
	LimitMigrationDistance bool
}

// Decision is the outcome of a placement.
type Decision struct {
	// Pending is the seed the shoot already holds a reservation on: it was placed a moment
	// ago and the informer has not shown it yet. Nothing was decided, reserved or bound.
	Pending string
	// Unjudged says why the shoot could not be judged: what the filters read besides the
	// seeds is missing (its cloud profile, say). Nothing was decided.
	Unjudged error
	// Input is what the decision read; nil when Pending or Unjudged.
	Input *framework.Input
	// Result is the decision; Result.Seed is nil when no seed takes the shoot.
	Result framework.Result
}

// Seed is the seed the shoot was placed on; empty when none.
func (d Decision) Seed() string {
	if d.Result.Seed == nil {
		return ""
	}
	return d.Result.Seed.Name
}

// Why says why the shoot was not placed, as the scheduler reports it.
func (d Decision) Why() string {
	if d.Unjudged != nil {
		return d.Unjudged.Error()
	}
	return d.Result.Message()
}

// Place decides a seed for the shoot, reserves it under the same lock and binds the shoot
// to it. A shoot that holds a reservation already is left alone (Decision.Pending): it is
// never decided and reserved twice. When no seed takes the shoot, nothing is reserved or
// bound. When the bind fails, the reservation is released and the bind's error returned
// with the decision.
func (p *Placer) Place(ctx context.Context, shoot *gardencorev1beta1.Shoot, opts Options) (Decision, error) {
	key := usage.Key(shoot)
	if seed, ok := p.Ledger.Reserved(key); ok {
		return Decision{Pending: seed}, nil
	}
	in, err := p.input(ctx, shoot, opts)
	if err != nil {
		return Decision{Unjudged: err}, nil
	}
	d := Decision{Input: in, Result: p.decideAndReserve(key, in, p.candidates(opts))}
	if d.Result.Seed == nil {
		return d, nil
	}
	if err := p.Bind(ctx, shoot, d.Seed()); err != nil {
		p.Ledger.Release(key)
		return d, err
	}
	return d, nil
}

// decideAndReserve is the one critical section of every placement: a decision and the
// reservation of its winner under the ledger's lock.
func (p *Placer) decideAndReserve(key string, in *framework.Input, seeds []*framework.SeedInfo) framework.Result {
	p.Ledger.Lock()
	defer p.Ledger.Unlock()
	res := p.Decider.Decide(in, seeds)
	if res.Seed != nil {
		p.Ledger.Reserve(key, res.Seed.Name)
	}
	return res
}

// trialPrefix marks the reservations of a trial: no shoot has such a key, so they never
// release a real reservation.
const trialPrefix = "placement-trial:"

// Trial places every shoot at once without binding any: each takes its place before the
// next is decided, under one hold of the lock, and every place is given back before the
// lock is released. It answers whether all of them fit together, which deciding each alone
// would not: the first could take the place the second needs. The decisions are in the
// order of shoots.
func (p *Placer) Trial(ctx context.Context, shoots []*gardencorev1beta1.Shoot, opts Options) []Decision {
	out := make([]Decision, len(shoots))
	for i, shoot := range shoots {
		in, err := p.input(ctx, shoot, opts)
		if err != nil {
			out[i].Unjudged = err
			continue
		}
		out[i].Input = in
	}
	seeds := p.candidates(opts)
	p.Ledger.Lock()
	defer p.Ledger.Unlock()
	var tried []string
	defer func() {
		for _, key := range tried {
			p.Ledger.Release(key)
		}
	}()
	for i, shoot := range shoots {
		if out[i].Input == nil {
			continue
		}
		out[i].Result = p.Decider.Decide(out[i].Input, seeds)
		if out[i].Result.Seed != nil {
			key := trialPrefix + usage.Key(shoot)
			p.Ledger.Reserve(key, out[i].Result.Seed.Name)
			tried = append(tried, key)
		}
	}
	return out
}

// View is what a check reads while it holds the lock of decisions.
type View struct {
	// Input is what a decision about the shoot reads besides the seeds.
	Input *framework.Input
	// Decider is the scheduler's way of deciding; a check runs its filters.
	Decider Decider

	seed func(name string) (*framework.SeedInfo, bool)
}

// Seed is a seed as a decision sees it, with its usage; nil when there is none.
func (v View) Seed(name string) *framework.SeedInfo {
	if s, ok := v.seed(name); ok {
		return s
	}
	return nil
}

// Check lets judge weigh a placement of the shoot made by someone else: judge reads the
// shoot's input and the seeds under the lock of decisions, so the usage it sees counts every
// place reserved and no placement changes it meanwhile. Check decides, reserves and binds
// nothing. The error says why the input could not be gathered; judge is not called then.
func (p *Placer) Check(ctx context.Context, shoot *gardencorev1beta1.Shoot, judge func(View)) error {
	in, err := p.Input(ctx, shoot)
	if err != nil {
		return err
	}
	p.Ledger.Lock()
	defer p.Ledger.Unlock()
	judge(View{Input: in, Decider: p.Decider, seed: p.Seed})
	return nil
}

func (p *Placer) input(ctx context.Context, shoot *gardencorev1beta1.Shoot, opts Options) (*framework.Input, error) {
	in, err := p.Input(ctx, shoot)
	if err != nil {
		return nil, err
	}
	in.MigratingFrom, in.LimitMigrationDistance = opts.MigratingFrom, opts.LimitMigrationDistance
	return in, nil
}

// candidates are the seeds a placement may choose: all, but the seed a migration leaves.
func (p *Placer) candidates(opts Options) []*framework.SeedInfo {
	all := p.Seeds()
	if opts.MigratingFrom == nil {
		return all
	}
	out := make([]*framework.SeedInfo, 0, len(all))
	for _, s := range all {
		if s.Name != opts.MigratingFrom.Name {
			out = append(out, s)
		}
	}
	return out
}
