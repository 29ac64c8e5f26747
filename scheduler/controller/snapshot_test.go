package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/seedscaler/seedscaler/internal/builders"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/scheduler/capacity"
	"github.com/seedscaler/seedscaler/scheduler/framework"
)

func names(seeds []*framework.SeedInfo) []string {
	out := make([]string, len(seeds))
	for i, s := range seeds {
		out[i] = s.Name
	}
	return out
}

func TestSeedSnapshotFollowsTheInformer(t *testing.T) {
	ledger := capacity.NewLedger(usage.NewIndex())
	s := newSeedSnapshot(ledger)
	h := s.Handler()
	assert.Empty(t, s.List())

	h.OnAdd(builders.MakeSeed("b").Obj(), true)
	h.OnAdd(builders.MakeSeed("a").Obj(), true)
	h.OnAdd(builders.MakeSeed("c").Obj(), false)
	first := s.List()
	assert.Equal(t, []string{"a", "b", "c"}, names(first), "sorted by name")

	updated := builders.MakeSeed("b").Allocatable(3).Obj()
	h.OnUpdate(builders.MakeSeed("b").Obj(), updated)
	h.OnDelete(builders.MakeSeed("a").Obj())
	h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "c", Obj: builders.MakeSeed("c").Obj()})
	second := s.List()
	assert.Equal(t, []string{"b"}, names(second))
	assert.Same(t, updated, second[0].Seed, "the update replaced the seed")
	assert.True(t, second[0].HasAllocatable, "and what the filters read of it")
	assert.Equal(t, int64(3), second[0].Allocatable)
	assert.Equal(t, []string{"a", "b", "c"}, names(first), "a list handed out earlier never changes")
	assert.Equal(t, &second[0], &s.List()[0], "unchanged seeds give the same list, without rebuilding it")

	// Each seed reads its usage from its seat in the ledger, across versions of the seed.
	assert.Same(t, ledger.Seat("b"), second[0].Occupancy)
	ledger.Reserve("p/x", "b")
	ledger.Index().Set("p/y", []string{"b"})
	assert.Equal(t, 2, framework.Occupied(second[0]))
}
