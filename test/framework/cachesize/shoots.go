package cachesize

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/scheme"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// Shoots is the resource of Gardener's Shoots.
var Shoots = Resource{Kind: gardencorev1beta1.GroupVersion.WithKind("Shoot"), Plural: "shoots", Namespaced: true}

// TenantShoots returns the JSON of n tenants' shoots, bound and reconciled, on seeds seeds
// (ten to a set) in namespaces namespaces. A project's shoots spread over the seeds as a
// scheduler spreads them: the shoots of one namespace on one seed are few, so an index
// keyed by namespace and seed holds about one shoot per key, as on a real landscape.
func TenantShoots(tb testing.TB, n, seeds, namespaces int) [][]byte {
	tb.Helper()
	items := make([][]byte, n)
	for i := range items {
		seed, namespace := fmt.Sprintf("aws-%03d-%d", i%seeds/10, i%10), fmt.Sprintf("garden-tenant-%03d", (i/seeds*37+i)%namespaces)
		s := &gardencorev1beta1.Shoot{
			TypeMeta: metav1.TypeMeta{APIVersion: gardencorev1beta1.GroupVersion.String(), Kind: "Shoot"},
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("tenant-%06d", i), Namespace: namespace,
				UID: types.UID(fmt.Sprintf("5f2b8c1e-0000-4000-8000-%012d", i)), ResourceVersion: fmt.Sprint(1_000_000 + i),
				Generation: 1, CreationTimestamp: metav1.Unix(1_795_000_000+int64(i), 0),
				Labels:     map[string]string{"project": namespace[len("garden-"):]},
				Finalizers: []string{"gardener"},
			},
			Spec: gardencorev1beta1.ShootSpec{
				Provider: gardencorev1beta1.Provider{Type: "aws"}, Region: "eu-west-1",
				Purpose: ptr.To(gardencorev1beta1.ShootPurposeDevelopment), SeedName: ptr.To(seed),
			},
			Status: gardencorev1beta1.ShootStatus{
				SeedName: ptr.To(seed),
				LastOperation: &gardencorev1beta1.LastOperation{
					Type: gardencorev1beta1.LastOperationTypeReconcile, State: gardencorev1beta1.LastOperationStateSucceeded, Progress: 100,
				},
			},
		}
		var err error
		if items[i], err = json.Marshal(s); err != nil {
			tb.Fatal(err)
		}
	}
	return items
}

// BenchmarkShootCache reports, as B/shoot, the live heap a part's Shoot cache holds per
// tenant shoot: controller-runtime's cache with the part's transform, over shoots tenant
// shoots on 1,000 seeds in 500 namespaces (TenantShoots) served by the stand-in, measured
// once the cache has synced and the part's usage index counts every shoot. feed adds the
// part's indexes and informer handlers to the cache and returns the usage index they feed.
func BenchmarkShootCache(b *testing.B, shoots int, transform toolscache.TransformFunc, feed func(ctx context.Context, c cache.Cache, shootInformer cache.Informer) (*usage.Index, error)) {
	items := TenantShoots(b, shoots, 1_000, 500)
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		cfg, mapper := Serve(b, Shoots, items)
		before := LiveHeap()
		opts := cache.Options{Scheme: scheme.New(), Mapper: mapper}
		usage.CacheShoots(&opts, transform)
		c, err := cache.New(cfg, opts)
		if err != nil {
			b.Fatal(err)
		}
		informer, err := c.GetInformer(ctx, &gardencorev1beta1.Shoot{})
		if err != nil {
			b.Fatal(err)
		}
		index, err := feed(ctx, c, informer)
		if err != nil {
			b.Fatal(err)
		}
		go func() { _ = c.Start(ctx) }()
		if !c.WaitForCacheSync(ctx) {
			b.Fatal("the cache never synced")
		}
		for index.Shoots() < shoots {
			runtime.Gosched()
		}
		after := LiveHeap()
		b.ReportMetric(float64(after-before)/float64(shoots), "B/shoot")
		runtime.KeepAlive(c)
		runtime.KeepAlive(index)
		cancel()
	}
}
