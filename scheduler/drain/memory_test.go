package drain

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/scheduler/capacity"
	"github.com/seedscaler/seedscaler/scheduler/controller"
	"github.com/seedscaler/seedscaler/test/framework/cachesize"
)

// BenchmarkSchedulerCacheBytes measures the live heap the scheduler's Shoot cache holds per
// bound tenant shoot at fleet size: controller-runtime's cache with the scheduler's
// transform (controller.SlimBoundShoots), the drain's indexes, and the capacity ledger's
// usage index fed by its informer handler, over 100,000 shoots on 1,000 seeds in 500
// namespaces served by a stand-in API server.
func BenchmarkSchedulerCacheBytes(b *testing.B) {
	cachesize.BenchmarkShootCache(b, 100_000, controller.SlimBoundShoots, func(ctx context.Context, c cache.Cache, shoots cache.Informer) (*usage.Index, error) {
		if err := (&Reconciler{}).addIndexes(ctx, c); err != nil {
			return nil, err
		}
		ledger := capacity.NewLedger(usage.NewIndex())
		_, err := shoots.AddEventHandler(ledger.Handler())
		return ledger.Index(), err
	})
}
