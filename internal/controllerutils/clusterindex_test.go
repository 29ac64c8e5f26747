package controllerutils_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/scheme"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/test/framework/cachesize"
)

// A cluster index finds the shoots of a seed across namespaces, each once, sorted by key:
// a migrating shoot under both its seeds, an unscheduled one under none.
func TestClusterIndexListsAcrossNamespaces(t *testing.T) {
	shoot := func(namespace, name, spec, status string) []byte {
		s := &gardencorev1beta1.Shoot{
			TypeMeta:   metav1.TypeMeta{APIVersion: gardencorev1beta1.GroupVersion.String(), Kind: "Shoot"},
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, ResourceVersion: "1"},
		}
		if spec != "" {
			s.Spec.SeedName = ptr.To(spec)
		}
		if status != "" {
			s.Status.SeedName = ptr.To(status)
		}
		data, err := json.Marshal(s)
		require.NoError(t, err)
		return data
	}
	items := [][]byte{
		shoot("garden-c", "unscheduled", "", ""),
		shoot("garden-b", "moving", "seed-1", "seed-2"),
		shoot("garden-b", "two", "seed-1", "seed-1"),
		shoot("garden-a", "one", "seed-1", ""),
	}
	for name, withOptions := range map[string]func(*cache.Options){
		"typed shoots": func(*cache.Options) {},
		// The seed and set controllers' cache: tenants' shoots are records.
		"records": func(o *cache.Options) { usage.CacheShoots(o, usage.SlimShootsOutside([]string{"garden"})) },
	} {
		t.Run(name, func(t *testing.T) {
			cfg, mapper := cachesize.Serve(t, cachesize.Resource{Kind: gardencorev1beta1.GroupVersion.WithKind("Shoot"), Plural: "shoots", Namespaced: true}, items)
			opts := cache.Options{Scheme: scheme.New(), Mapper: mapper}
			withOptions(&opts)
			c, err := cache.New(cfg, opts)
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			index, err := controllerutils.AddClusterIndex(ctx, c, &gardencorev1beta1.Shoot{}, "seeds", usage.SeedNames)
			require.NoError(t, err)
			go func() { _ = c.Start(ctx) }()
			require.True(t, c.WaitForCacheSync(ctx))

			keys := func(seed string) []string {
				shoots, err := index.List(seed)
				require.NoError(t, err)
				out := []string{}
				for _, s := range shoots {
					out = append(out, usage.Key(s))
				}
				return out
			}
			assert.Equal(t, []string{"garden-a/one", "garden-b/moving", "garden-b/two"}, keys("seed-1"))
			assert.Equal(t, []string{"garden-b/moving"}, keys("seed-2"))
			assert.Equal(t, []string{}, keys("seed-3"))
		})
	}
}
