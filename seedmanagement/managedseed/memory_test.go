package managedseed

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/test/framework/cachesize"
)

// BenchmarkSeedControllerCacheBytes measures the live heap the seed controller's Shoot
// cache holds per tenant shoot at fleet size: controller-runtime's cache with the seed
// controller's transform (usage.SlimShootsOutside, tenants slim), this controller's index of
// shoots by seed, and the usage index the seed lifecycle controller feeds, over 100,000
// shoots on 1,000 seeds in 500 namespaces served by a stand-in API server.
func BenchmarkSeedControllerCacheBytes(b *testing.B) {
	cachesize.BenchmarkShootCache(b, 100_000, usage.SlimShootsOutside([]string{"garden"}), func(ctx context.Context, c cache.Cache, shoots cache.Informer) (*usage.Index, error) {
		if err := (&Reconciler{}).indexShoots(ctx, c); err != nil {
			return nil, err
		}
		index := usage.NewIndex()
		_, err := shoots.AddEventHandler(index.Handler())
		return index, err
	})
}
