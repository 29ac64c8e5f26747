package adapter

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/metadata/metadatalister"
	"k8s.io/client-go/tools/cache"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

var seedsResource = gardencorev1beta1.GroupVersion.WithResource("seeds")

// countingMatch returns a match function that answers names and counts its calls.
func countingMatch(calls *int, names ...string) func() ([]string, error) {
	return func() ([]string, error) {
		*calls++
		return names, nil
	}
}

func TestSelectionCacheRemembersUntilInvalidated(t *testing.T) {
	var c selectionCache
	calls := 0
	for range 3 {
		names, err := c.get(" tier=gold", countingMatch(&calls, "a", "b"))
		require.NoError(t, err)
		assert.Equal(t, []string{"a", "b"}, names)
	}
	assert.Equal(t, 1, calls, "a remembered selection is not matched again")

	c.invalidate()
	names, err := c.get(" tier=gold", countingMatch(&calls, "a", "b", "c"))
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, names)
	assert.Equal(t, 2, calls, "after a change the selection is matched again")

	_, err = c.get("garden tier=gold", countingMatch(&calls))
	require.NoError(t, err)
	assert.Equal(t, 3, calls, "another namespace is another selection")
}

func TestSelectionCacheForgetsWhatChangedWhileMatching(t *testing.T) {
	var c selectionCache
	calls := 0
	changing := func() ([]string, error) {
		calls++
		c.invalidate() // an object changed while the store was read
		return []string{"old"}, nil
	}
	names, err := c.get(" tier=gold", changing)
	require.NoError(t, err)
	assert.Equal(t, []string{"old"}, names, "the request is still answered")

	names, err = c.get(" tier=gold", countingMatch(&calls, "new"))
	require.NoError(t, err)
	assert.Equal(t, []string{"new"}, names, "what was matched during a change is not remembered")
	assert.Equal(t, 2, calls)
}

func TestSelectionCacheDoesNotRememberErrors(t *testing.T) {
	var c selectionCache
	_, err := c.get(" x", func() ([]string, error) { return nil, errors.New("no store") })
	require.EqualError(t, err, "no store")
	calls := 0
	names, err := c.get(" x", countingMatch(&calls, "a"))
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, names)
	assert.Equal(t, 1, calls)
}

func TestSelectionCacheIsBounded(t *testing.T) {
	var c selectionCache
	calls := 0
	for i := range 3 * maxSelections {
		_, err := c.get(" n="+strconv.Itoa(i), countingMatch(&calls, "a"))
		require.NoError(t, err)
		assert.LessOrEqual(t, len(c.names), maxSelections)
	}
	assert.Equal(t, 3*maxSelections, calls)
	_, err := c.get(" n="+strconv.Itoa(3*maxSelections-1), countingMatch(&calls, "a"))
	require.NoError(t, err)
	assert.Equal(t, 3*maxSelections, calls, "the latest selection is still remembered")
}

func partialObject(name string, labelPairs ...string) *metav1.PartialObjectMetadata {
	l := map[string]string{}
	for i := 0; i+1 < len(labelPairs); i += 2 {
		l[labelPairs[i]] = labelPairs[i+1]
	}
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}}
}

func TestOnlyChangesToWhatSelectorsSeeForgetSelections(t *testing.T) {
	withStatus := partialObject("a", "tier", "gold")
	withStatus.ResourceVersion = "2"
	withStatus.Annotations = map[string]string{"heartbeat": "now"}
	for _, tc := range []struct {
		name       string
		event      func(cache.ResourceEventHandler)
		invalidate bool
	}{
		{"added", func(h cache.ResourceEventHandler) { h.OnAdd(partialObject("a"), false) }, true},
		{"deleted", func(h cache.ResourceEventHandler) { h.OnDelete(partialObject("a")) }, true},
		{"deleted, last state unknown", func(h cache.ResourceEventHandler) {
			h.OnDelete(cache.DeletedFinalStateUnknown{Key: "a", Obj: partialObject("a")})
		}, true},
		{"labels changed", func(h cache.ResourceEventHandler) {
			h.OnUpdate(partialObject("a", "tier", "gold"), partialObject("a", "tier", "silver"))
		}, true},
		{"label added", func(h cache.ResourceEventHandler) {
			h.OnUpdate(partialObject("a", "tier", "gold"), partialObject("a", "tier", "gold", "zone", "1"))
		}, true},
		{"anything else updated", func(h cache.ResourceEventHandler) {
			h.OnUpdate(partialObject("a", "tier", "gold"), withStatus)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := &objectSet{}
			calls := 0
			_, err := set.selections.get(" tier=gold", countingMatch(&calls, "a"))
			require.NoError(t, err)
			tc.event(set.invalidationHandler())
			_, err = set.selections.get(" tier=gold", countingMatch(&calls, "a"))
			require.NoError(t, err)
			assert.Equal(t, tc.invalidate, calls == 2, "matched again after the event")
		})
	}
}

// BenchmarkObjectNames times resolving a list request's label selector over 1,000 seeds, of
// which the selector matches all, from the informer's store and from a remembered selection.
func BenchmarkObjectNames(b *testing.B) {
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for i := range 1000 {
		require.NoError(b, store.Add(partialObject(fmt.Sprintf("bench-%04d", i), "bench", "list", "provider", "aws")))
	}
	set := &objectSet{lister: metadatalister.NewRuntimeObjectShim(metadatalister.New(store, seedsResource))}
	selector := labels.SelectorFromSet(labels.Set{"bench": "list"})
	for _, tc := range []struct {
		name  string
		names func() ([]string, error)
	}{
		{"matched", func() ([]string, error) { return set.match("", selector) }},
		{"remembered", func() ([]string, error) { return set.names("", selector) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				names, err := tc.names()
				if err != nil || len(names) != 1000 {
					b.Fatalf("%d names, %v", len(names), err)
				}
			}
		})
	}
}
