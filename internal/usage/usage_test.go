package usage

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

func shoot(name string, spec, status *string) *gardencorev1beta1.Shoot {
	s := &gardencorev1beta1.Shoot{ObjectMeta: metav1.ObjectMeta{Namespace: "p", Name: name}}
	s.Spec.SeedName, s.Status.SeedName = spec, status
	return s
}

func TestSeedNames(t *testing.T) {
	cases := []struct {
		name         string
		spec, status *string
		want         []string
	}{
		{"unscheduled", nil, nil, nil},
		{"bound, not yet reconciled", ptr.To("a"), nil, []string{"a"}},
		{"bound and reconciled", ptr.To("a"), ptr.To("a"), []string{"a"}},
		{"migrating counts on both seeds", ptr.To("b"), ptr.To("a"), []string{"b", "a"}},
		{"empty names are no seed", ptr.To(""), ptr.To(""), nil},
		{"status only (spec cleared by hand)", nil, ptr.To("a"), []string{"a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, SeedNames(shoot("s", tc.spec, tc.status)))
		})
	}
}

func TestIndexFollowsInformerEvents(t *testing.T) {
	idx := NewIndex()
	h := idx.Handler()

	h.OnAdd(shoot("a", ptr.To("seed-1"), nil), false)
	h.OnAdd(shoot("b", ptr.To("seed-1"), nil), false)
	h.OnAdd(shoot("c", nil, nil), false)
	assert.Equal(t, 2, idx.Count("seed-1"))
	assert.Equal(t, 0, idx.Count("seed-2"))
	assert.Equal(t, 2, idx.Shoots())

	// b migrates from seed-1 to seed-2: counted on both until status follows.
	h.OnUpdate(nil, shoot("b", ptr.To("seed-2"), ptr.To("seed-1")))
	assert.Equal(t, 2, idx.Count("seed-1"))
	assert.Equal(t, 1, idx.Count("seed-2"))
	h.OnUpdate(nil, shoot("b", ptr.To("seed-2"), ptr.To("seed-2")))
	assert.Equal(t, 1, idx.Count("seed-1"))
	assert.Equal(t, 1, idx.Count("seed-2"))
	assert.Equal(t, []string{"p/a"}, idx.ShootsOn("seed-1"))

	h.OnDelete(shoot("a", ptr.To("seed-1"), nil))
	h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "p/b", Obj: shoot("b", nil, nil)})
	assert.Equal(t, 0, idx.Count("seed-1"))
	assert.Equal(t, 0, idx.Count("seed-2"))
	assert.Empty(t, idx.Counts(), "seeds without shoots leave no entry behind")
	assert.Equal(t, 0, idx.Shoots())
}

func TestACounterFollowsTheIndex(t *testing.T) {
	idx := NewIndex()
	h := idx.Handler()
	before := idx.Counter("seed-1") // handed out before the seed has shoots
	h.OnAdd(shoot("a", ptr.To("seed-1"), nil), false)
	h.OnAdd(shoot("b", ptr.To("seed-2"), nil), false)
	assert.Equal(t, 1, before.Load())
	assert.Same(t, before, idx.Counter("seed-1"), "one counter per seed")

	after := idx.Counter("seed-2") // handed out after
	h.OnUpdate(nil, shoot("b", ptr.To("seed-1"), nil))
	assert.Equal(t, 2, before.Load())
	assert.Equal(t, 0, after.Load())

	h.OnDelete(shoot("a", ptr.To("seed-1"), nil))
	h.OnDelete(shoot("b", ptr.To("seed-1"), nil))
	assert.Equal(t, 0, before.Load())
	h.OnAdd(shoot("c", ptr.To("seed-1"), nil), false)
	assert.Equal(t, 1, before.Load(), "a counter at zero is kept, not replaced")
	assert.Equal(t, map[string]int{"seed-1": 1}, idx.Counts(), "counters at zero are no entry of Counts")
}
