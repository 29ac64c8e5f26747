package controllerutils

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/scheme"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

var (
	t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	t1 = t0.Add(time.Minute)
)

func TestSetConditionMovesTheTransitionTimeOnlyWithTheStatus(t *testing.T) {
	var conditions []metav1.Condition

	assert.True(t, SetCondition(&conditions, "Ready", False(Reason("Waiting"), "Waiting for the shoot."), 1, t0), "a new condition is a change")
	ready := meta.FindStatusCondition(conditions, "Ready")
	require.NotNil(t, ready)
	assert.Equal(t, metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Waiting", Message: "Waiting for the shoot.",
		ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(t0)}, *ready)

	assert.False(t, SetCondition(&conditions, "Ready", False("Waiting", "Waiting for the shoot."), 1, t1), "the same outcome is no change")
	assert.True(t, SetCondition(&conditions, "Ready", False("Failed", "The shoot failed."), 1, t1), "a new reason is a change")
	assert.Equal(t, metav1.NewTime(t0), meta.FindStatusCondition(conditions, "Ready").LastTransitionTime, "the status stayed False")

	assert.True(t, SetCondition(&conditions, "Ready", True("Registered", "The seed is registered."), 2, t1))
	ready = meta.FindStatusCondition(conditions, "Ready")
	assert.Equal(t, metav1.NewTime(t1), ready.LastTransitionTime, "the status moved to True")
	assert.Equal(t, int64(2), ready.ObservedGeneration)
	assert.Len(t, conditions, 1)
}

func TestConditionChanged(t *testing.T) {
	var conditions []metav1.Condition
	o := Unknown("LeaseNotFound", "No lease.")
	assert.True(t, ConditionChanged(conditions, "Ready", o), "a missing condition")
	SetCondition(&conditions, "Ready", o, 1, t0)
	assert.False(t, ConditionChanged(conditions, "Ready", o))
	assert.False(t, ConditionChanged(conditions, "Ready", Unknown("LeaseNotFound", "Another message.")), "a new message alone is no new event")
	assert.True(t, ConditionChanged(conditions, "Ready", Unknown("SeedStatusUnknown", "No lease.")))
	assert.True(t, ConditionChanged(conditions, "Ready", True("LeaseNotFound", "No lease.")))
	assert.True(t, True("R", "m").IsTrue())
	assert.False(t, Unknown("R", "m").IsTrue())
}

// statusWrites builds a fake client holding objs and counts its status patches.
func statusWrites(objs ...client.Object) (client.Client, *int) {
	writes := 0
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).
		WithStatusSubresource(&gardencorev1beta1.Seed{}).
		WithInterceptorFuncs(interceptor.Funcs{
			SubResourcePatch: func(ctx context.Context, c client.Client, subResource string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				writes++
				return c.SubResource(subResource).Patch(ctx, obj, patch, opts...)
			},
		}).Build()
	return c, &writes
}

// getSeed reads the seed of the name from c.
func getSeed(t *testing.T, c client.Client, name string) *gardencorev1beta1.Seed {
	t.Helper()
	seed := &gardencorev1beta1.Seed{}
	require.NoError(t, c.Get(context.Background(), client.ObjectKey{Name: name}, seed))
	return seed
}

func TestPatchStatusWritesOnlyAChangedStatus(t *testing.T) {
	ctx := context.Background()
	c, writes := statusWrites(builders.MakeSeed("s1").Obj())
	seed := getSeed(t, c, "s1")
	before := seed.DeepCopy()

	// A finalizer patched in after the read is metadata, not a status change.
	require.NoError(t, EnsureFinalizer(ctx, c, seed, "test/finalizer"))
	require.NoError(t, PatchStatus(ctx, c, seed, before, false))
	assert.Zero(t, *writes, "an unchanged status is not written")

	seed.Status.ObservedGeneration = 7
	SetCondition(&seed.Status.Conditions, "GardenletReady", True("GardenletHeartbeatFresh", "Fresh."), seed.Generation, t0)
	require.NoError(t, PatchStatus(ctx, c, seed, before, false))
	assert.Equal(t, 1, *writes, "one patch")

	stored := getSeed(t, c, "s1")
	assert.Equal(t, int64(7), stored.Status.ObservedGeneration)
	assert.Equal(t, "GardenletHeartbeatFresh", meta.FindStatusCondition(stored.Status.Conditions, "GardenletReady").Reason)
	assert.Equal(t, []string{"test/finalizer"}, stored.Finalizers, "the status patch leaves metadata alone")
}

func TestPatchStatusWithOptimisticLockConflictsWithAnotherWriter(t *testing.T) {
	ctx := context.Background()
	c, _ := statusWrites(builders.MakeSeed("s1").Obj())
	seed := getSeed(t, c, "s1")
	before := seed.DeepCopy()

	other := seed.DeepCopy()
	other.Status.ObservedGeneration = 3
	require.NoError(t, c.Status().Update(ctx, other))

	seed.Status.ObservedGeneration = 5
	err := PatchStatus(ctx, c, seed, before, true)
	require.Error(t, err)
	assert.True(t, apierrors.IsConflict(err), "a conflict to retry on, got %v", err)
	assert.ErrorContains(t, err, "writing the status of Seed s1")
}

func TestPatchStatusNamesTheObjectOfAFailedWrite(t *testing.T) {
	ctx := context.Background()
	c, _ := statusWrites()
	seed := builders.MakeSeed("gone").Obj()
	before := seed.DeepCopy()
	seed.Status.ObservedGeneration = 1
	err := PatchStatus(ctx, c, seed, before, false)
	assert.True(t, apierrors.IsNotFound(err), "callers can tell a deleted object, got %v", err)
	assert.ErrorContains(t, err, "writing the status of Seed gone")
}

func TestFinalizers(t *testing.T) {
	ctx := context.Background()
	seed := builders.MakeSeed("s1").Obj()
	seed.Finalizers = []string{"other/finalizer"}
	c, _ := statusWrites(seed)
	seed = getSeed(t, c, "s1")

	require.NoError(t, EnsureFinalizer(ctx, c, seed, "test/finalizer"))
	require.NoError(t, EnsureFinalizer(ctx, c, seed, "test/finalizer"), "a second call has nothing to do")
	stored := getSeed(t, c, "s1")
	assert.Equal(t, []string{"other/finalizer", "test/finalizer"}, stored.Finalizers)

	stale := seed.DeepCopy()
	require.NoError(t, RemoveFinalizer(ctx, c, seed, "test/finalizer"))
	stored = getSeed(t, c, "s1")
	assert.Equal(t, []string{"other/finalizer"}, stored.Finalizers)

	err := RemoveFinalizer(ctx, c, stale, "test/finalizer")
	assert.True(t, apierrors.IsConflict(err), "a stale copy must not write its finalizers back, got %v", err)

	gone := builders.MakeSeed("gone").Obj()
	gone.Finalizers = []string{"test/finalizer"}
	assert.NoError(t, RemoveFinalizer(ctx, c, gone, "test/finalizer"), "an object already gone has nothing to remove")
}

// recorded is one call of a recorder.
type recorded struct {
	eventType, reason, action, note string
	related                         runtime.Object
}

type fakeRecorder struct{ events []recorded }

func (f *fakeRecorder) Eventf(_, related runtime.Object, eventType, reason, action, note string, args ...any) {
	f.events = append(f.events, recorded{eventType, reason, action, note, related})
	if len(args) > 0 {
		f.events[len(f.events)-1].note = sprintf(note, args...)
	}
}

func TestEventCarriesTheTypeOfItsReason(t *testing.T) {
	const (
		eventSeedRegistered = Normal("SeedRegistered")
		eventSeedConflict   = Warning("SeedConflict")
	)
	rec := &fakeRecorder{}
	seed := builders.MakeSeed("s1").Obj()
	Event(rec, seed, nil, eventSeedRegistered, "Register", "Registered Seed %s.", "s1")
	Event(rec, seed, seed, eventSeedConflict, "Register", "Seed s1 exists.")
	Event(nil, seed, nil, eventSeedConflict, "Register", "A nil recorder records nothing.")
	assert.Equal(t, []recorded{
		{corev1.EventTypeNormal, "SeedRegistered", "Register", "Registered Seed s1.", nil},
		{corev1.EventTypeWarning, "SeedConflict", "Register", "Seed s1 exists.", seed},
	}, rec.events)
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
