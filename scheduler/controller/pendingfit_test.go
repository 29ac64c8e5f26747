package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/types"
)

func TestPendingShootsCountEveryExistingSetOnceTheSchedulerCanAnswer(t *testing.T) {
	a := types.NamespacedName{Namespace: "garden", Name: "a"}
	b := types.NamespacedName{Namespace: "garden", Name: "b"}
	gone := types.NamespacedName{Namespace: "garden", Name: "gone"}
	sets, canAnswer := []types.NamespacedName{a, b}, false
	p := newPendingFits(func() ([]types.NamespacedName, bool) { return sets, canAnswer })

	counts, ok := p.counts()
	assert.False(t, ok, "not leading or not synced: no answer, not a 0 nobody checked")
	assert.Empty(t, counts)

	canAnswer = true
	counts, ok = p.counts()
	assert.True(t, ok)
	assert.Equal(t, map[types.NamespacedName]int{a: 0, b: 0}, counts, "no shoot pending: every set says 0")

	p.set("tenant/one", []types.NamespacedName{a})
	p.set("tenant/two", []types.NamespacedName{a, b, gone})
	counts, _ = p.counts()
	assert.Equal(t, map[types.NamespacedName]int{a: 2, b: 1}, counts, "a set that no longer exists has no series")

	p.forget("tenant/one")
	sets = []types.NamespacedName{a}
	counts, _ = p.counts()
	assert.Equal(t, map[types.NamespacedName]int{a: 1}, counts)
}
