// Package capacity keeps the scheduler's view of how many shoots each seed hosts: the
// informer-fed usage index plus an in-memory reservation of every bind the informer has
// not shown yet, so that concurrent workers never place more shoots on a seed than it has
// room for.
package capacity

import (
	"sync"
	"sync/atomic"

	toolscache "k8s.io/client-go/tools/cache"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// Ledger is usage plus reservations. Decide-and-reserve runs under Lock so that two workers
// never both take the last free place of a seed; the API call that binds runs outside it.
type Ledger struct {
	index *usage.Index

	// decide serializes decisions with their reservations.
	decide sync.Mutex

	mu       sync.Mutex
	reserved map[string]*Seat // shoot key -> seat of the seed it was bound to, not yet seen by the informer
	seats    map[string]*Seat // seed name -> its seat, never removed (see Seat)
}

// Seat is one seed's usage as the ledger keeps it: the seed's count in the usage index plus
// the binds reserved on it. A decision reads the usage of every seed; it reads it from the
// seed's Seat, held by the seed's framework.SeedInfo, without a lookup by name. At 1,000
// seeds the lookups by name (two maps per seed, twice per decision) were a sixth of the
// running scheduler's CPU.
type Seat struct {
	seed     string
	shoots   *usage.Count
	reserved atomic.Int64
}

// Shoots is the seed's usage: the shoots the informer shows plus those reserved. It never
// counts a bind less than once: the ledger's handler counts a bind in the index before it
// releases the reservation, and Shoots reads the reservations first.
func (s *Seat) Shoots() int {
	reserved := s.reserved.Load()
	return s.shoots.Load() + int(reserved)
}

// NewLedger returns a ledger over an index.
func NewLedger(index *usage.Index) *Ledger {
	return &Ledger{index: index, reserved: map[string]*Seat{}, seats: map[string]*Seat{}}
}

// Index is the usage index the ledger reads.
func (l *Ledger) Index() *usage.Index { return l.index }

// Lock starts a decision: hold it from reading usage until Reserve.
func (l *Ledger) Lock() { l.decide.Lock() }

// Unlock ends a decision.
func (l *Ledger) Unlock() { l.decide.Unlock() }

// Seat returns a seed's seat, the same one for every call with that name. Seats are never
// removed, one per seed name the ledger was asked for or reserved on: ask only for seeds
// that exist.
func (l *Ledger) Seat(seed string) *Seat {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seatLocked(seed)
}

func (l *Ledger) seatLocked(seed string) *Seat {
	s := l.seats[seed]
	if s == nil {
		s = &Seat{seed: seed, shoots: l.index.Counter(seed)}
		l.seats[seed] = s
	}
	return s
}

// Usage is the shoots on a seed: those the informer shows plus those reserved. It gives
// the seed a seat (see Seat).
func (l *Ledger) Usage(seed string) int { return l.Seat(seed).Shoots() }

// Reserve records that a shoot is being bound to a seed.
func (l *Ledger) Reserve(shootKey, seed string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.releaseLocked(shootKey)
	s := l.seatLocked(seed)
	l.reserved[shootKey] = s
	s.reserved.Add(1)
}

// Reserved returns the seed a shoot is reserved on, if any.
func (l *Ledger) Reserved(shootKey string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.reserved[shootKey]; ok {
		return s.seed, true
	}
	return "", false
}

// Release drops a shoot's reservation: the bind failed, or the informer now counts it.
func (l *Ledger) Release(shootKey string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.releaseLocked(shootKey)
}

func (l *Ledger) releaseLocked(shootKey string) {
	s, ok := l.reserved[shootKey]
	if !ok {
		return
	}
	delete(l.reserved, shootKey)
	s.reserved.Add(-1)
}

// releaseCounted drops a shoot's reservation once the index counts the shoot on the
// reserved seed. A migration reserves the new seed of a shoot the index already counts on
// its old one: the shoot's other updates (its status, its annotations) must not release it
// before spec.seedName names the new seed.
func (l *Ledger) releaseCounted(shootKey string, seeds []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.reserved[shootKey]
	if !ok {
		return
	}
	for _, seed := range seeds {
		if seed == s.seed {
			l.releaseLocked(shootKey)
			return
		}
	}
}

// Reservations is the number of binds not yet seen by the informer.
func (l *Ledger) Reservations() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.reserved)
}

// Handler keeps index and reservations in step with a Shoot informer. It updates the
// index first and only then releases the reservation, in one handler: two handlers would
// run on separate goroutines, and a release that overtook the index update would let a
// seed be overcommitted for a moment.
func (l *Ledger) Handler() toolscache.ResourceEventHandler {
	return usage.KeyedHandler(usage.Key, func(shoot *gardencorev1beta1.Shoot) {
		key, seeds := usage.Key(shoot), usage.SeedNames(shoot)
		l.index.Set(key, seeds)
		l.releaseCounted(key, seeds)
	}, func(key string) {
		l.index.Delete(key)
		l.Release(key)
	})
}
