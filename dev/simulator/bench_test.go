//go:build integration

package simulator

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// BenchmarkStep is one step of the simulator against the real apiserver at 5,000 shoots on
// 50 seeds in a steady state: every shoot created, demand met, a heartbeat per seed every 10
// steps (speed 1, interval 10s, tick 1s). It reads shoots, seeds and managed seeds, decides,
// and renews the Leases; reads come straight from the apiserver or, as in `seedscaler
// simulate`, from an informer cache.
func BenchmarkStep(b *testing.B) {
	ctx := b.Context()
	shoots, seeds := landscape()
	require := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	ensureNamespace(b, "garden-bench")
	for i := range seeds {
		createSeed(b, &seeds[i])
	}
	// Create the shoots with a few writers at once, then report them created.
	var wg sync.WaitGroup
	errs := make(chan error, benchShoots)
	work := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range work {
				sh := &shoots[i]
				if err := env.Client.Create(ctx, sh); err != nil {
					errs <- err
					continue
				}
				succeeded(sh, epoch)
				if err := env.Client.Status().Update(ctx, sh); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range shoots {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		require(err)
	}
	b.Cleanup(func() { cleanupLarge(b) })

	reads := map[string]client.Client{"reads=apiserver": env.Client, "reads=cache": cachedClient(b)}
	for _, name := range []string{"reads=apiserver", "reads=cache"} {
		b.Run(name, func(b *testing.B) {
			cfg, err := ParseConfiguration([]byte(fmt.Sprintf("demand: {constant: {shoots: %d}, projects: [bench]}", benchShoots)))
			require(err)
			clk := clocktesting.NewFakeClock(epoch)
			sim := New(cfg, reads[name], clk, nil)
			require(sim.Step(ctx)) // the first step discovers the API and creates the Leases
			b.ReportAllocs()
			for b.Loop() {
				clk.Step(cfg.Tick.Duration)
				require(sim.Step(ctx))
			}
			b.StopTimer()
			smp, err := sim.Sample(ctx)
			require(err)
			if smp.Tenants != benchShoots || smp.Bound != benchShoots || smp.SeedsReady != benchSeeds {
				b.Fatalf("the landscape changed: %+v", smp)
			}
		})
	}
}

// cleanupLarge removes the benchmark's shoots with a few writers at once.
func cleanupLarge(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	list := &gardencorev1beta1.ShootList{}
	if err := env.Client.List(ctx, list); err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	work := make(chan *gardencorev1beta1.Shoot)
	for range 8 {
		wg.Go(func() {
			for sh := range work {
				orig := sh.DeepCopy()
				sh.Finalizers = nil
				_ = env.Client.Patch(ctx, sh, client.MergeFrom(orig))
				_ = env.Client.Delete(ctx, sh)
			}
		})
	}
	for i := range list.Items {
		work <- &list.Items[i]
	}
	close(work)
	wg.Wait()
	_ = env.Client.DeleteAllOf(ctx, &gardencorev1beta1.Seed{})
}
