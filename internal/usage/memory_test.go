package usage_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/test/framework/cachesize"
)

// BenchmarkCachedShootBytes measures what a part that counts shoots holds per bound shoot
// of tenants: the shoot's record (Counted) in an informer's store with its namespace index, as
// controller-runtime's cache keeps it, and the shoot's entry in the usage index. The shoots
// are decoded from JSON one by one, as an informer decodes a list, so that every string is
// its own allocation as in a real cache. The figure is the live heap per shoot after a
// collection.
func BenchmarkCachedShootBytes(b *testing.B) {
	const shoots, seeds, namespaces = 100_000, 1_000, 500
	raw := make([][]byte, shoots)
	for i := range raw {
		s := &gardencorev1beta1.Shoot{
			TypeMeta: metav1.TypeMeta{APIVersion: gardencorev1beta1.GroupVersion.String(), Kind: "Shoot"},
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("tenant-shoot-%06d", i), Namespace: fmt.Sprintf("garden-tenant-%03d", i%namespaces),
				UID: types.UID(fmt.Sprintf("5f2b8c1e-0000-4000-8000-%012d", i)), ResourceVersion: fmt.Sprint(1_000_000 + i),
				Generation: 1, CreationTimestamp: metav1.Unix(1_795_000_000+int64(i), 0),
				Labels: map[string]string{"project": fmt.Sprintf("tenant-%03d", i%namespaces)},
			},
			Spec: gardencorev1beta1.ShootSpec{
				Region: "europe-west1", Purpose: ptr.To(gardencorev1beta1.ShootPurposeDevelopment),
				SeedName: ptr.To(fmt.Sprintf("fleet-%04d", i%seeds)),
			},
			Status: gardencorev1beta1.ShootStatus{SeedName: ptr.To(fmt.Sprintf("fleet-%04d", i%seeds))},
		}
		var err error
		if raw[i], err = json.Marshal(s); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		before := cachesize.LiveHeap()
		store := toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
		index := usage.NewIndex()
		handler := index.Handler()
		for _, data := range raw {
			var decoded gardencorev1beta1.Shoot
			if err := json.Unmarshal(data, &decoded); err != nil {
				b.Fatal(err)
			}
			record := usage.Counted(&decoded)
			if err := store.Add(record); err != nil {
				b.Fatal(err)
			}
			handler.OnAdd(record.Expand(), true) // as controllerutils.NewInformer's handlers see it
		}
		after := cachesize.LiveHeap()
		b.ReportMetric(float64(after-before)/shoots, "B/shoot")
		runtime.KeepAlive(store)
		runtime.KeepAlive(index)
	}
}
