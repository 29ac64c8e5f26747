package simulator

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/builders"
)

const (
	benchShoots = 5000
	benchSeeds  = 50
)

// landscape returns benchShoots tenant shoots, all bound and created, on benchSeeds ready seeds.
func landscape() ([]gardencorev1beta1.Shoot, []gardencorev1beta1.Seed) {
	seeds := make([]gardencorev1beta1.Seed, benchSeeds)
	for i := range seeds {
		seeds[i] = *builders.MakeSeed(fmt.Sprintf("bench-%d", i)).Allocatable(150).Ready().Obj()
	}
	shoots := make([]gardencorev1beta1.Shoot, benchShoots)
	for i := range shoots {
		sh := builders.MakeShoot("garden-bench", fmt.Sprintf("t-%05d", i)).SeedName(seeds[i%benchSeeds].Name).
			Labels(LabelTenant, "true").Obj()
		sh.Finalizers = []string{Finalizer}
		shoots[i] = *sh
	}
	return shoots, seeds
}

func succeeded(sh *gardencorev1beta1.Shoot, now time.Time) {
	sh.Status.SeedName = ptr.To(*sh.Spec.SeedName)
	sh.Status.LastOperation = &gardencorev1beta1.LastOperation{Type: gardencorev1beta1.LastOperationTypeCreate,
		State: gardencorev1beta1.LastOperationStateSucceeded, Progress: 100, LastUpdateTime: metav1.NewTime(now)}
	sh.Status.ObservedGeneration = sh.Generation
}

// BenchmarkTickLogic is the in-memory work of one step at 5,000 shoots: every shoot's next
// transition, the tenants' changes and a timeline sample, without the API calls.
func BenchmarkTickLogic(b *testing.B) {
	shoots, seeds := landscape()
	for i := range shoots {
		shoots[i].CreationTimestamp = metav1.NewTime(epoch.Add(time.Duration(i) * time.Second))
		succeeded(&shoots[i], epoch)
	}
	demand := &DemandConfig{Profile: ProfileConstant, Constant: &ConstantProfile{Shoots: benchShoots - 10}}
	now := epoch.Add(time.Hour)
	b.ReportAllocs()
	for b.Loop() {
		for i := range shoots {
			if NextShootTransition(&shoots[i], time.Time{}, now).Action != ActionNone {
				b.Fatal("a settled shoot has nothing to do")
			}
		}
		live := map[string][]*gardencorev1beta1.Shoot{}
		for i := range shoots {
			live[AnyLocation] = append(live[AnyLocation], &shoots[i])
		}
		desired := Desired(demand, time.Hour)
		remove, _ := TenantChanges(desired, live, func(*gardencorev1beta1.Shoot) bool { return false })
		if len(remove) != 10 {
			b.Fatalf("removes %d shoots, want 10", len(remove))
		}
		_ = TakeSample(time.Hour, desired, shoots, seeds)
	}
}

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
