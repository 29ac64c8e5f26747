// Package usage counts the shoots on each seed the way the whole stack must agree on: a
// shoot counts against spec.seedName and, while a control plane migration is in flight,
// also against a different status.seedName. The scheduler, the exporter and the seed
// controller all count with it, from informer events, never by listing shoots.
package usage

import (
	"sort"
	"sync"
	"sync/atomic"

	toolscache "k8s.io/client-go/tools/cache"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// SeedNames returns the seeds a shoot occupies: spec.seedName, plus status.seedName when
// it is set and differs. An unscheduled shoot occupies none.
func SeedNames(shoot *gardencorev1beta1.Shoot) []string {
	var spec, status string
	if s := shoot.Spec.SeedName; s != nil {
		spec = *s
	}
	if s := shoot.Status.SeedName; s != nil {
		status = *s
	}
	return SeedNamesOf(spec, status)
}

// SeedNamesOf is SeedNames of a shoot whose spec.seedName and status.seedName are spec and
// status ("" when unset).
func SeedNamesOf(spec, status string) []string {
	var names []string
	if spec != "" {
		names = append(names, spec)
	}
	if status != "" && status != spec {
		names = append(names, status)
	}
	return names
}

// Index counts shoots per seed. It is fed by informer events (see Handler) and is safe for
// concurrent use; reading a count is O(1).
type Index struct {
	mu      sync.RWMutex
	byShoot map[string][]string // shoot key (namespace/name) -> seeds it is counted on
	bySeed  map[string]*Count
}

// Count is the number of shoots on one seed as the index keeps it. A reader that holds it
// (Counter) reads the count without a lookup by name and without the index's lock: a
// scheduling decision reads the count of every seed.
type Count struct {
	n atomic.Int64
	// pinned: handed out by Counter, so kept at zero rather than deleted.
	pinned bool
}

// Load returns the count as of now.
func (c *Count) Load() int { return int(c.n.Load()) }

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{byShoot: map[string][]string{}, bySeed: map[string]*Count{}}
}

// Set records that the shoot with the given key occupies seeds, replacing what was
// recorded for it before.
func (i *Index) Set(key string, seeds []string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	for _, s := range i.byShoot[key] {
		i.decrement(s)
	}
	if len(seeds) == 0 {
		delete(i.byShoot, key)
		return
	}
	i.byShoot[key] = seeds
	for _, s := range seeds {
		i.countLocked(s).n.Add(1)
	}
}

// Delete forgets the shoot with the given key.
func (i *Index) Delete(key string) {
	i.Set(key, nil)
}

func (i *Index) countLocked(seed string) *Count {
	c := i.bySeed[seed]
	if c == nil {
		c = &Count{}
		i.bySeed[seed] = c
	}
	return c
}

func (i *Index) decrement(seed string) {
	c := i.bySeed[seed]
	if c == nil {
		return
	}
	if c.n.Add(-1) <= 0 && !c.pinned {
		delete(i.bySeed, seed)
	}
}

// Count returns the number of shoots on a seed.
func (i *Index) Count(seed string) int {
	i.mu.RLock()
	defer i.mu.RUnlock()
	if c := i.bySeed[seed]; c != nil {
		return c.Load()
	}
	return 0
}

// Counter returns the count of a seed to hold on to: it follows every later change of the
// index. A counter handed out stays in the index for the index's life, at zero when the
// seed has no shoots; one per seed name, so a long-lived reader should ask only for the
// seeds it knows.
func (i *Index) Counter(seed string) *Count {
	i.mu.Lock()
	defer i.mu.Unlock()
	c := i.countLocked(seed)
	c.pinned = true
	return c
}

// Counts returns a copy of the count of every seed that has shoots.
func (i *Index) Counts() map[string]int {
	i.mu.RLock()
	defer i.mu.RUnlock()
	out := make(map[string]int, len(i.bySeed))
	for s, c := range i.bySeed {
		if n := c.Load(); n > 0 {
			out[s] = n
		}
	}
	return out
}

// Shoots returns the number of shoots the index knows of that occupy a seed.
func (i *Index) Shoots() int {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return len(i.byShoot)
}

// ShootsOn returns the keys of the shoots on a seed, sorted. It walks every recorded shoot,
// so it is for rare paths (events, deletion checks), not per decision or scrape.
func (i *Index) ShootsOn(seed string) []string {
	i.mu.RLock()
	defer i.mu.RUnlock()
	var keys []string
	for key, seeds := range i.byShoot {
		for _, s := range seeds {
			if s == seed {
				keys = append(keys, key)
				break
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// Handler returns informer event handlers that keep the index in step with a Shoot
// informer. Objects that are not Shoots are ignored.
func (i *Index) Handler() toolscache.ResourceEventHandler {
	return KeyedHandler(Key, func(shoot *gardencorev1beta1.Shoot) { i.Set(Key(shoot), SeedNames(shoot)) }, i.Delete)
}

// KeyedHandler returns informer event handlers for an informer of T, keyed namespace/name
// like the informer's store: set gets every object the informer adds or updates, remove the
// key of every object it deletes, that of a tombstone (a deletion the watch missed)
// included. Objects of other types are ignored.
func KeyedHandler[T any](key func(T) string, set func(T), remove func(key string)) toolscache.ResourceEventHandler {
	observe := func(obj any) {
		if o, ok := obj.(T); ok {
			set(o)
		}
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    observe,
		UpdateFunc: func(_, obj any) { observe(obj) },
		DeleteFunc: func(obj any) {
			switch o := obj.(type) {
			case toolscache.DeletedFinalStateUnknown:
				remove(o.Key)
			case T:
				remove(key(o))
			}
		},
	}
}

// Key is the index key of a shoot, the same as an informer's namespace/name key.
func Key(shoot *gardencorev1beta1.Shoot) string {
	return shoot.Namespace + "/" + shoot.Name
}
