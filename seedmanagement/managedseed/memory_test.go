package managedseed

import (
	"context"
	"runtime"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/scheme"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/test/framework/cachesize"
)

// BenchmarkSeedControllerCacheBytes measures the live heap the seed controller's Shoot
// cache holds per tenant shoot at fleet size: controller-runtime's cache with the seed
// controller's transform (usage.SlimShootsOutside, tenants slim), this controller's index of
// shoots by seed, and the usage index the seed lifecycle controller feeds, over 100,000
// shoots on 1,000 seeds in 500 namespaces served by a stand-in API server.
func BenchmarkSeedControllerCacheBytes(b *testing.B) {
	const shoots = 100_000
	items := cachesize.TenantShoots(b, shoots, 1_000, 500)
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		cfg, mapper := cachesize.Serve(b, cachesize.Shoots, items)
		before := cachesize.LiveHeap()
		c, err := cache.New(cfg, cache.Options{
			Scheme: scheme.New(), Mapper: mapper,
			ByObject: map[client.Object]cache.ByObject{&gardencorev1beta1.Shoot{}: {Transform: usage.SlimShootsOutside([]string{"garden"})}},
		})
		if err != nil {
			b.Fatal(err)
		}
		r := &Reconciler{}
		if err := r.indexShoots(ctx, c); err != nil {
			b.Fatal(err)
		}
		index := usage.NewIndex()
		informer, err := c.GetInformer(ctx, &gardencorev1beta1.Shoot{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := informer.AddEventHandler(index.Handler()); err != nil {
			b.Fatal(err)
		}
		go func() { _ = c.Start(ctx) }()
		if !c.WaitForCacheSync(ctx) {
			b.Fatal("the cache never synced")
		}
		for index.Shoots() < shoots {
			runtime.Gosched()
		}
		after := cachesize.LiveHeap()
		b.ReportMetric(float64(after-before)/shoots, "B/shoot")
		runtime.KeepAlive(c)
		runtime.KeepAlive(r)
		runtime.KeepAlive(index)
		cancel()
	}
}
