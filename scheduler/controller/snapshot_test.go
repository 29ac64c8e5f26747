package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/scheduler/capacity"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/test/framework/builders"
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

// A drain annotation on the Seed or on its ManagedSeed cordons the seed; removing it
// uncordons it.
func TestDrainedSeedsAreCordoned(t *testing.T) {
	s := newSeedSnapshot(capacity.NewLedger(usage.NewIndex()))
	h, ms := s.Handler(), s.managedSeedHandler()
	h.OnAdd(builders.MakeSeed("annotated").Ready().Annotations(gardencorev1beta1.AnnotationDrain, "true").Obj(), true)
	h.OnAdd(builders.MakeSeed("managed").Ready().Obj(), true)
	h.OnAdd(builders.MakeSeed("other").Ready().Annotations(gardencorev1beta1.AnnotationDrain, "false").Obj(), true)
	notUsable := func() map[string]string {
		out := map[string]string{}
		for _, seed := range s.List() {
			out[seed.Name] = seed.NotUsable
		}
		return out
	}
	assert.Equal(t, map[string]string{
		"annotated": "cordoned: the Seed is annotated seedscaler.io/drain=true and is being drained",
		"managed":   "", "other": "",
	}, notUsable())

	drained := &seedmanagementv1alpha1.ManagedSeed{ObjectMeta: metav1.ObjectMeta{Namespace: "garden", Name: "managed",
		Annotations: map[string]string{gardencorev1beta1.AnnotationDrain: "true"}}}
	ms.OnAdd(drained, false)
	assert.Equal(t, "cordoned: ManagedSeed garden/managed is annotated seedscaler.io/drain=true and is being drained", notUsable()["managed"])
	h.OnUpdate(builders.MakeSeed("managed").Ready().Obj(), builders.MakeSeed("managed").Ready().Allocatable(5).Obj())
	assert.NotEmpty(t, notUsable()["managed"], "a new version of the seed stays cordoned")

	undrained := drained.DeepCopy()
	undrained.Annotations = nil
	ms.OnUpdate(drained, undrained)
	assert.Empty(t, notUsable()["managed"])
	ms.OnUpdate(undrained, drained)
	ms.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "garden/managed", Obj: drained})
	assert.Empty(t, notUsable()["managed"], "a ManagedSeed that is gone drains nothing")
}
