package capacity

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

func TestReservationsCountUntilTheInformerSeesTheBind(t *testing.T) {
	l := NewLedger(usage.NewIndex())
	h := l.Handler()
	h.OnAdd(builders.MakeShoot("p", "bound").SeedName("s1").Obj(), false)
	h.OnAdd(builders.MakeShoot("p", "new").Obj(), false)
	assert.Equal(t, 1, l.Usage("s1"))

	l.Reserve("p/new", "s1")
	assert.Equal(t, 2, l.Usage("s1"), "reserved but not yet seen")
	assert.Equal(t, 2, l.Seat("s1").Shoots(), "a seat answers as Usage")
	assert.Equal(t, 0, l.Seat("s2").Shoots())
	seed, ok := l.Reserved("p/new")
	assert.True(t, ok)
	assert.Equal(t, "s1", seed)

	h.OnUpdate(builders.MakeShoot("p", "new").Obj(), builders.MakeShoot("p", "new").Obj())
	assert.Equal(t, 2, l.Usage("s1"), "an update without the seed keeps the reservation")

	h.OnUpdate(builders.MakeShoot("p", "new").Obj(), builders.MakeShoot("p", "new").SeedName("s1").Obj())
	assert.Equal(t, 2, l.Usage("s1"), "the informer now counts it, the reservation is gone: counted once")
	assert.Equal(t, 0, l.Reservations())

	l.Reserve("p/x", "s2")
	l.Release("p/x")
	assert.Equal(t, 0, l.Usage("s2"), "a failed bind releases its place")

	l.Reserve("p/gone", "s2")
	h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "p/gone"})
	assert.Equal(t, 0, l.Usage("s2"))
	l.Reserve("p/gone2", "s2")
	h.OnDelete(builders.MakeShoot("p", "gone2").Obj())
	assert.Equal(t, 0, l.Usage("s2"))

	l.Reserve("p/moved", "s1")
	l.Reserve("p/moved", "s2")
	assert.Equal(t, 1, l.Usage("s2"))
	assert.Equal(t, 2, l.Usage("s1"), "re-reserving moves the reservation")
}

// TestConcurrentDecisionsNeverOvercommit runs decide-and-reserve from many goroutines while
// an informer goroutine confirms binds; no seed may ever take more than its allocatable.
func TestConcurrentDecisionsNeverOvercommit(t *testing.T) {
	const seeds, allocatable, shoots, workers = 5, 7, 200, 8
	l := NewLedger(usage.NewIndex())
	h := l.Handler()
	confirm := make(chan [2]string, shoots)
	var informer sync.WaitGroup
	informer.Add(1)
	go func() {
		defer informer.Done()
		for b := range confirm {
			h.OnUpdate(nil, builders.MakeShoot("p", b[0]).SeedName(b[1]).Obj())
		}
	}()
	var mu sync.Mutex
	placed := map[string]int{}
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				name := fmt.Sprintf("shoot-%d", i)
				// As the scheduler decides: usage read from the seats, the reservation
				// made after it, both under the decision lock.
				l.Lock()
				chosen := ""
				for s := 0; s < seeds; s++ {
					if seed := fmt.Sprintf("seed-%d", s); l.Seat(seed).Shoots() < allocatable {
						chosen = seed
						break
					}
				}
				if chosen != "" {
					l.Reserve("p/"+name, chosen)
				}
				l.Unlock()
				if chosen == "" {
					continue
				}
				mu.Lock()
				placed[chosen]++
				mu.Unlock()
				confirm <- [2]string{name, chosen}
			}
		}()
	}
	for i := 0; i < shoots; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	close(confirm)
	informer.Wait()
	total := 0
	for s := 0; s < seeds; s++ {
		seed := fmt.Sprintf("seed-%d", s)
		require.Equal(t, allocatable, placed[seed], seed)
		assert.Equal(t, allocatable, l.Usage(seed), seed)
		total += placed[seed]
	}
	assert.Equal(t, seeds*allocatable, total)
	assert.Equal(t, 0, l.Reservations())
}

// A migration reserves the new seed of a shoot the index counts on its old one: during the
// migration the shoot counts on both seeds, never on neither, and never twice on one.
func TestMigrationCountsOnBothSeedsUntilItEnds(t *testing.T) {
	l := NewLedger(usage.NewIndex())
	h := l.Handler()
	running := builders.MakeShoot("p", "m").SeedName("a").StatusSeedName("a").Obj()
	h.OnAdd(running, false)
	require.Equal(t, 1, l.Usage("a"))

	l.Reserve("p/m", "b")
	assert.Equal(t, 1, l.Usage("a"))
	assert.Equal(t, 1, l.Usage("b"), "the new seed is taken the moment the migration is decided")

	annotated := builders.MakeShoot("p", "m").SeedName("a").StatusSeedName("a").Labels("x", "y").Obj()
	h.OnUpdate(running, annotated)
	assert.Equal(t, 1, l.Usage("b"), "an update that does not name the new seed keeps the reservation")

	migrating := builders.MakeShoot("p", "m").SeedName("b").StatusSeedName("a").Obj()
	h.OnUpdate(annotated, migrating)
	assert.Equal(t, 0, l.Reservations(), "the informer counts it on the new seed now")
	assert.Equal(t, 1, l.Usage("a"), "still counted where its control plane runs")
	assert.Equal(t, 1, l.Usage("b"))

	migrated := builders.MakeShoot("p", "m").SeedName("b").StatusSeedName("b").Obj()
	h.OnUpdate(migrating, migrated)
	assert.Equal(t, 0, l.Usage("a"), "the old seed is free once status.seedName follows")
	assert.Equal(t, 1, l.Usage("b"))

	rolledBack := builders.MakeShoot("p", "m").SeedName("a").StatusSeedName("b").Obj()
	h.OnUpdate(migrated, rolledBack)
	assert.Equal(t, 1, l.Usage("a"))
	assert.Equal(t, 1, l.Usage("b"))
}
