package controller

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// Behind a thousand tenant shoots in the queue, a new seed's shoot, created last, is the
// next the scheduler takes, and then the tenants in their order; a shoot labeled with
// its set counts like one owned by it.
func TestSeedShootsGoFirst(t *testing.T) {
	q := priorityqueue.New[reconcile.Request]("seed-shoots-first")
	defer q.ShutDown()
	ctx := context.Background()
	byObject, first := &handler.EnqueueRequestForObject{}, seedShootsFirst()
	create := func(obj client.Object) {
		e := event.CreateEvent{Object: obj}
		byObject.Create(ctx, e, q)
		first.Create(ctx, e, q)
	}
	for i := range 1000 {
		create(builders.MakeShoot("garden-tenant", "t-"+string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676))).Obj())
	}
	owned := builders.MakeShoot("garden", "set-0").Obj()
	owned.OwnerReferences = []metav1.OwnerReference{{Kind: "ManagedSeedSet", Name: "set", APIVersion: seedmanagementv1alpha1.GroupVersion.String(), Controller: new(true)}}
	create(owned)
	labeled := builders.MakeShoot("garden", "other-0").Obj()
	labeled.Labels = map[string]string{seedmanagementv1alpha1.LabelManagedSeedSet: "other"}
	create(labeled)
	require.Equal(t, 1002, q.Len())

	got := map[string]int{}
	for range 2 {
		item, priority, shutdown := q.GetWithPriority()
		require.False(t, shutdown)
		got[item.Name] = priority
		q.Done(item)
	}
	assert.Equal(t, map[string]int{"set-0": SeedShootPriority, "other-0": SeedShootPriority}, got)
	item, priority, _ := q.GetWithPriority()
	assert.Equal(t, "garden-tenant", item.Namespace, "then the tenants")
	assert.Zero(t, priority)
	q.Done(item)

}
