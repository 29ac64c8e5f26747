package seed

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/scheme"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// TestReconcileFlipsGardenletReadyOnAFakeClock drives the reconciler with a fake clock: the
// requeue it asks for lands exactly on the instant the heartbeat goes stale.
func TestReconcileFlipsGardenletReadyOnAFakeClock(t *testing.T) {
	ctx := context.Background()
	renewed := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(renewed.Add(10 * time.Second))

	seed := builders.MakeSeed("s1").Condition(gardencorev1beta1.SeedBackupBucketsReady, metav1.ConditionTrue).Obj()
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: LeaseNamespace, Name: "s1"},
		Spec:       coordinationv1.LeaseSpec{RenewTime: &metav1.MicroTime{Time: renewed}},
	}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).
		WithObjects(seed, lease).WithStatusSubresource(&gardencorev1beta1.Seed{}).Build()
	idx := usage.NewIndex()
	idx.Set("garden/a", []string{"s1"})
	r := &Reconciler{Client: c, Clock: clk, Usage: idx, GracePeriod: 40 * time.Second}
	req := reconcile.Request{NamespacedName: types.NamespacedName{Name: "s1"}}

	res, err := r.Reconcile(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, res.RequeueAfter, "recheck exactly when the heartbeat goes stale")
	ready := gardenletReadyOf(t, c)
	assert.Equal(t, metav1.ConditionTrue, ready.Status)
	assert.Equal(t, string(ReasonHeartbeatFresh), ready.Reason)
	assert.True(t, ready.LastTransitionTime.Time.Equal(clk.Now()))

	clk.Step(res.RequeueAfter)
	res, err = r.Reconcile(ctx, req)
	require.NoError(t, err)
	assert.Zero(t, res.RequeueAfter, "a stale heartbeat changes only with a new renewal")
	ready = gardenletReadyOf(t, c)
	assert.Equal(t, metav1.ConditionUnknown, ready.Status)
	assert.Equal(t, string(ReasonSeedStatusUnknown), ready.Reason)
	assert.True(t, ready.LastTransitionTime.Time.Equal(clk.Now()), "transition stamped with the injected clock")

	got := &gardencorev1beta1.Seed{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "s1"}, got))
	backup := meta.FindStatusCondition(got.Status.Conditions, gardencorev1beta1.SeedBackupBucketsReady)
	require.NotNil(t, backup, "a condition this controller does not own is kept")
	assert.Equal(t, metav1.ConditionTrue, backup.Status)
	shoots := got.Status.Usage[gardencorev1beta1.ResourceShoots]
	assert.Equal(t, int64(1), shoots.Value())

	// The gardenlet comes back.
	lease.Spec.RenewTime = &metav1.MicroTime{Time: clk.Now()}
	require.NoError(t, c.Update(ctx, lease))
	clk.Step(time.Second)
	res, err = r.Reconcile(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, 39*time.Second, res.RequeueAfter)
	ready = gardenletReadyOf(t, c)
	assert.Equal(t, metav1.ConditionTrue, ready.Status)
	assert.True(t, ready.LastTransitionTime.Time.Equal(clk.Now()))
}

func TestReconcileWithoutLease(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.New()).
		WithObjects(builders.MakeSeed("s1").Obj()).WithStatusSubresource(&gardencorev1beta1.Seed{}).Build()
	r := &Reconciler{Client: c, Clock: clocktesting.NewFakeClock(time.Now()), Usage: usage.NewIndex(), GracePeriod: time.Minute}
	res, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: "s1"}})
	require.NoError(t, err)
	assert.Zero(t, res.RequeueAfter)
	ready := gardenletReadyOf(t, c)
	assert.Equal(t, metav1.ConditionUnknown, ready.Status)
	assert.Equal(t, string(ReasonLeaseNotFound), ready.Reason)
}

func TestMapLeaseToSeed(t *testing.T) {
	r := &Reconciler{}
	heartbeat := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: LeaseNamespace, Name: "s1"}}
	other := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "s1"}}
	assert.Equal(t, []reconcile.Request{{NamespacedName: types.NamespacedName{Name: "s1"}}}, r.MapLeaseToSeed(context.Background(), heartbeat))
	assert.Empty(t, r.MapLeaseToSeed(context.Background(), other))
	assert.False(t, IsHeartbeatLease(other))
}

func gardenletReadyOf(t *testing.T, c client.Client) *metav1.Condition {
	t.Helper()
	seed := &gardencorev1beta1.Seed{}
	require.NoError(t, c.Get(context.Background(), client.ObjectKey{Name: "s1"}, seed))
	cond := meta.FindStatusCondition(seed.Status.Conditions, gardencorev1beta1.SeedGardenletReady)
	require.NotNil(t, cond)
	return cond
}
