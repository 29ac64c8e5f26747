package simulator

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
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
