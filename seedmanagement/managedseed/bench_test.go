//go:build integration

package managedseed

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// BenchmarkRegisterManagedSeeds measures registration throughput end to end against the
// real kube-apiserver: b.N ManagedSeeds whose shoots have already succeeded are created at
// once, and the clock stops when every one reports SeedRegistered True. One op is one
// ManagedSeed: finalizer, Seed create, Seed status, ManagedSeed status, with the default
// single worker per controller.
func BenchmarkRegisterManagedSeeds(b *testing.B) {
	ctx := context.Background()
	ns, err := env.Namespace(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	names := make([]string, b.N)
	for i := range names {
		names[i] = testenv.Unique("bench")
		shoot := builders.MakeShoot(ns, names[i]).Obj()
		if err := env.Client.Create(ctx, shoot); err != nil {
			b.Fatal(err)
		}
		shoot.Status.LastOperation = &gardencorev1beta1.LastOperation{
			Type: gardencorev1beta1.LastOperationTypeCreate, State: gardencorev1beta1.LastOperationStateSucceeded,
		}
		if err := env.Client.Status().Update(ctx, shoot); err != nil {
			b.Fatal(err)
		}
	}

	b.ResetTimer()
	for _, name := range names {
		if err := env.Client.Create(ctx, templateManagedSeed(ns, name, "europe-west1")); err != nil {
			b.Fatal(err)
		}
	}
	registered := 0
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		list := &seedmanagementv1alpha1.ManagedSeedList{}
		if err := env.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
			return false, err
		}
		registered = 0
		for i := range list.Items {
			if meta.IsStatusConditionTrue(list.Items[i].Status.Conditions, seedmanagementv1alpha1.ManagedSeedSeedRegistered) {
				registered++
			}
		}
		return registered == b.N, nil
	})
	if err != nil {
		b.Fatalf("%d of %d ManagedSeeds registered their seed: %v", registered, b.N, err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "managedseeds/s")
}
