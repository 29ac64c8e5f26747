package autoscaling

import (
	"time"
)

// seed is a seed of the set: provisioning until its eventSeedReady, then ready and taking
// shoots.
type seed struct {
	id      int
	ready   bool
	removed bool
	shoots  int
	// cordoned: drained by consolidation, it takes no new shoots.
	cordoned bool
}

// shoot is a tenant's shoot: pending until the scheduler's model binds it to a seed.
type shoot struct {
	createdAt time.Duration
	seed      *seed
	spike     bool
	// Long-lived workload: opted out of migration, gone, the seed its control plane
	// migrates to, when it last moved.
	protected   bool
	gone        bool
	migratingTo *seed
	movedAt     time.Duration
	// weight is what migrating it costs consolidation (recommend.MigrationWeight).
	weight float64
}

// firstFit is the scheduler's model: the ready seed with room that came first; with
// Config.Spread, the ready seed with room that has the fewest shoots (Gardener's default
// profile), the first of those.
func (r *run) firstFit() *seed {
	var best *seed
	for _, s := range r.seeds {
		if !s.ready || s.cordoned || s.shoots >= r.cfg.AllocatablePerSeed {
			continue
		}
		if !r.cfg.Spread {
			return s
		}
		if best == nil || s.shoots < best.shoots {
			best = s
		}
	}
	return best
}

// create is a shoot the trace creates in minute.
func (r *run) create(minute int) {
	tr := r.cfg.Trace
	r.place(&shoot{createdAt: r.now, spike: minute >= tr.SpikeFrom && minute < tr.SpikeTo})
}

// place binds a new shoot at once when a seed has room and no shoot waits before it;
// otherwise it waits its turn.
func (r *run) place(sh *shoot) {
	if s := r.firstFit(); s != nil && len(r.pending) == 0 {
		r.bind(sh, s)
		return
	}
	r.pending = append(r.pending, sh)
	r.bindPending()
}

// bind puts a shoot on a seed and records how long it waited.
func (r *run) bind(sh *shoot, s *seed) {
	sh.seed = s
	s.shoots++
	if s.shoots > r.cfg.AllocatablePerSeed {
		r.res.Overcommits++
	}
	r.bound = append(r.bound, sh)
	wait := r.now - sh.createdAt
	r.waits = append(r.waits, wait)
	if sh.spike {
		r.spikeWaits = append(r.spikeWaits, wait)
	}
}

// bindPending binds pending shoots, oldest first, while a seed has room: the scheduler
// retries them when a seed becomes ready or a shoot leaves.
func (r *run) bindPending() {
	for len(r.pending) > 0 {
		s := r.firstFit()
		if s == nil {
			return
		}
		sh := r.pending[0]
		r.pending = r.pending[1:]
		r.bind(sh, s)
	}
}

// delete removes a running shoot, the newest or one at random (Config.Deletion); the
// newest pending one when none runs.
func (r *run) delete() {
	if len(r.bound) == 0 {
		if len(r.pending) > 0 {
			r.pending = r.pending[:len(r.pending)-1]
		}
		return
	}
	i := len(r.bound) - 1
	if r.cfg.Deletion == DeleteRandom {
		i = r.rng.IntN(len(r.bound))
	}
	sh := r.bound[i]
	r.bound[i] = r.bound[len(r.bound)-1]
	r.bound = r.bound[:len(r.bound)-1]
	sh.seed.shoots--
	r.bindPending()
}

// ready makes a seed that finished provisioning ready, and binds pending shoots on it.
func (r *run) ready(s *seed) {
	s.ready = true
	r.bindPending()
}
