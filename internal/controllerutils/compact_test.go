package controllerutils_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	toolscache "k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/scheme"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/cachesize"
)

// An informer whose store keeps records hands its handlers and indexes the shoots the
// records stand for, on add, update and delete, while the store holds the records.
func TestNewInformerExpandsRecordsForHandlersAndIndexes(t *testing.T) {
	source := fcache.NewFakeControllerSource()
	informer := controllerutils.NewInformer(source, &gardencorev1beta1.Shoot{}, 0,
		toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
	require.NoError(t, informer.SetTransform(usage.SlimShootsOutside([]string{"garden"})))
	require.NoError(t, informer.AddIndexers(toolscache.Indexers{"seed": func(obj any) ([]string, error) {
		shoot, ok := obj.(*gardencorev1beta1.Shoot)
		if !ok {
			return []string{"not a shoot"}, nil
		}
		return usage.SeedNames(shoot), nil
	}}))

	var mu sync.Mutex
	var seen []string
	record := func(event string, obj any) {
		mu.Lock()
		defer mu.Unlock()
		if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = tombstone.Obj
		}
		shoot, ok := obj.(*gardencorev1beta1.Shoot)
		if !ok {
			seen = append(seen, event+" a "+func() string { b, _ := json.Marshal(obj); return string(b) }())
			return
		}
		seen = append(seen, event+" "+usage.Key(shoot)+" on "+ptr.Deref(shoot.Spec.SeedName, "")+" at "+shoot.ResourceVersion)
	}
	_, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { record("add", obj) },
		UpdateFunc: func(_, obj any) { record("update", obj) },
		DeleteFunc: func(obj any) { record("delete", obj) },
	})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go informer.RunWithContext(ctx)

	tenant := builders.MakeShoot("garden-dev", "t-1").SeedName("seed-a").Obj()
	source.Add(tenant)
	require.True(t, toolscache.WaitForCacheSync(ctx.Done(), informer.HasSynced))
	moved := tenant.DeepCopy()
	moved.Spec.SeedName = ptr.To("seed-b")
	source.Modify(moved)
	require.Eventually(t, func() bool {
		keys, err := informer.GetIndexer().IndexKeys("seed", "seed-b")
		return err == nil && len(keys) == 1
	}, 10*time.Second, 10*time.Millisecond, "the index follows the update")

	stored, exists, err := informer.GetStore().GetByKey("garden-dev/t-1")
	require.NoError(t, err)
	require.True(t, exists)
	assert.IsType(t, &usage.Record{}, stored, "the store keeps the record")
	keys, err := informer.GetIndexer().IndexKeys("seed", "seed-a")
	require.NoError(t, err)
	assert.Empty(t, keys, "the old seed no longer indexes it")
	keys, err = informer.GetIndexer().IndexKeys(toolscache.NamespaceIndex, "garden-dev")
	require.NoError(t, err)
	assert.Equal(t, []string{"garden-dev/t-1"}, keys)

	source.Delete(moved)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) == 3
	}, 10*time.Second, 10*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"add garden-dev/t-1 on seed-a at 1", "update garden-dev/t-1 on seed-b at 2", "delete garden-dev/t-1 on seed-b at 3"}, seen)
}

// A handler registered after the initial list gets the stored records expanded too, and a
// tombstone's last object is expanded.
func TestExpandTombstonesAndLateHandlers(t *testing.T) {
	record := usage.Counted(builders.MakeShoot("garden-dev", "t-1").SeedName("seed-a").Obj())
	tombstone := controllerutils.Expand(toolscache.DeletedFinalStateUnknown{Key: "garden-dev/t-1", Obj: record}).(toolscache.DeletedFinalStateUnknown)
	assert.Equal(t, "garden-dev/t-1", tombstone.Key)
	assert.Equal(t, "seed-a", *tombstone.Obj.(*gardencorev1beta1.Shoot).Spec.SeedName)
	assert.Equal(t, "not a record", controllerutils.Expand("not a record"))

	source := fcache.NewFakeControllerSource()
	informer := controllerutils.NewInformer(source, &gardencorev1beta1.Shoot{}, 0, toolscache.Indexers{})
	require.NoError(t, informer.SetTransform(usage.SlimShootsOutside([]string{"garden"})))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	source.Add(builders.MakeShoot("garden-dev", "t-1").SeedName("seed-a").Obj())
	go informer.RunWithContext(ctx)
	require.True(t, toolscache.WaitForCacheSync(ctx.Done(), informer.HasSynced))

	added := make(chan any, 1)
	_, err := informer.AddEventHandlerWithOptions(toolscache.ResourceEventHandlerFuncs{AddFunc: func(obj any) { added <- obj }}, toolscache.HandlerOptions{})
	require.NoError(t, err)
	select {
	case obj := <-added:
		assert.IsType(t, &gardencorev1beta1.Shoot{}, obj)
	case <-time.After(10 * time.Second):
		t.Fatal("the late handler never saw the stored shoot")
	}
}

// controller-runtime's cache reads records as Shoots: Get and List return the slim Shoot,
// a copy the caller may change, with label selectors applied to what the record keeps.
func TestCacheReadsRecordsAsShoots(t *testing.T) {
	tenant := builders.MakeShoot("garden-dev", "t-1").SeedName("seed-a").Labels("team", "x").Obj()
	tenant.TypeMeta = metav1.TypeMeta{APIVersion: gardencorev1beta1.GroupVersion.String(), Kind: "Shoot"}
	tenant.CreationTimestamp = metav1.Unix(1_795_000_000, 0)
	tenant.Spec.Region = "eu-west-1"
	replica := builders.MakeShoot("garden", "set-0").SeedName("soil").Labels("team", "x").Obj()
	replica.TypeMeta = tenant.TypeMeta
	replica.Spec.Region = "eu-west-1"
	var items [][]byte
	for _, s := range []*gardencorev1beta1.Shoot{tenant, replica} {
		data, err := json.Marshal(s)
		require.NoError(t, err)
		items = append(items, data)
	}
	cfg, mapper := cachesize.Serve(t, cachesize.Shoots, items)
	opts := cache.Options{Scheme: scheme.New(), Mapper: mapper}
	usage.CacheShoots(&opts, usage.SlimShootsOutside([]string{"garden"}))
	c, err := cache.New(cfg, opts)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = c.Start(ctx) }()
	require.True(t, c.WaitForCacheSync(ctx))

	got := &gardencorev1beta1.Shoot{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(tenant), got))
	assert.Equal(t, "seed-a", *got.Spec.SeedName)
	assert.True(t, tenant.CreationTimestamp.Equal(&got.CreationTimestamp), "created %v, read %v", tenant.CreationTimestamp, got.CreationTimestamp)
	assert.Empty(t, got.Spec.Region, "a tenant's shoot is read as the record keeps it")
	assert.Equal(t, "Shoot", got.Kind)
	*got.Spec.SeedName = "written"
	again := &gardencorev1beta1.Shoot{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(tenant), again))
	assert.Equal(t, "seed-a", *again.Spec.SeedName, "what a reader writes to its copy stays in its copy")

	list := &gardencorev1beta1.ShootList{}
	require.NoError(t, c.List(ctx, list))
	require.Len(t, list.Items, 2)
	regions := map[string]string{}
	for _, s := range list.Items {
		regions[usage.Key(&s)] = s.Spec.Region
	}
	assert.Equal(t, map[string]string{"garden-dev/t-1": "", "garden/set-0": "eu-west-1"}, regions, "the replica's shoot is kept whole")

	require.NoError(t, c.List(ctx, list, client.MatchingLabelsSelector{Selector: labels.SelectorFromSet(labels.Set{"team": "x"})}))
	require.Len(t, list.Items, 1, "a record keeps no labels: only the whole shoot matches")
	assert.Equal(t, "set-0", list.Items[0].Name)
}
