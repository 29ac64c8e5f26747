package controller

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/scheme"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// bindingClient is a fake API that records updates of shoots/binding and answers them as
// gardener-apiserver does: a conflict when the resourceVersion is not the live one.
func bindingClient(t *testing.T, shoot *gardencorev1beta1.Shoot, updates *[]*unstructured.Unstructured) client.Client {
	t.Helper()
	return fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(shoot).WithInterceptorFuncs(interceptor.Funcs{
		Patch: func(context.Context, client.WithWatch, client.Object, client.Patch, ...client.PatchOption) error {
			t.Error("the shoot was patched: gardener-apiserver refuses spec.seedName set that way")
			return nil
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, _ ...client.SubResourceUpdateOption) error {
			require.Equal(t, "binding", sub)
			u := obj.(*unstructured.Unstructured)
			*updates = append(*updates, u.DeepCopy())
			live := &gardencorev1beta1.Shoot{}
			require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(obj), live))
			if live.ResourceVersion != u.GetResourceVersion() {
				return apierrors.NewConflict(schema.GroupResource{Group: "core.gardener.cloud", Resource: "shoots"}, u.GetName(), nil)
			}
			seed, _, _ := unstructured.NestedString(u.Object, "spec", "seedName")
			live.Spec.SeedName = &seed
			if err := c.Update(ctx, live); err != nil {
				return err
			}
			u.SetResourceVersion(live.ResourceVersion) // the answer is the updated shoot
			return nil
		},
	}).Build()
}

// With binding: Subresource the scheduler binds as gardener-scheduler does: one update of
// shoots/binding with the whole shoot, spec.seedName set and the resourceVersion the
// decision was made on; no patch of the shoot.
func TestBindThroughTheBindingSubresource(t *testing.T) {
	ctx := context.Background()
	shoot := builders.MakeShoot("garden-tenant", "web").Obj()
	shoot.Spec.Purpose = ptr.To(gardencorev1beta1.ShootPurpose("production"))
	var updates []*unstructured.Unstructured
	c := bindingClient(t, shoot, &updates)
	decided := &gardencorev1beta1.Shoot{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(shoot), decided))

	r := &Reconciler{Client: c, Config: &config.SchedulerConfiguration{Binding: config.SubresourceBinding}}
	require.NoError(t, r.bind(ctx, decided, "seed-a"))

	require.Len(t, updates, 1)
	sent := updates[0]
	assert.Equal(t, "core.gardener.cloud/v1beta1", sent.GetAPIVersion())
	assert.Equal(t, "Shoot", sent.GetKind())
	seed, _, _ := unstructured.NestedString(sent.Object, "spec", "seedName")
	assert.Equal(t, "seed-a", seed)
	purpose, _, _ := unstructured.NestedString(sent.Object, "spec", "purpose")
	assert.Equal(t, "production", purpose, "the body is the whole shoot: nothing but spec.seedName may change")

	got := &gardencorev1beta1.Shoot{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(shoot), got))
	assert.Equal(t, "seed-a", ptr.Deref(got.Spec.SeedName, ""))
	assert.Equal(t, got.ResourceVersion, decided.ResourceVersion, "the caller's shoot carries the new resourceVersion")
	assert.Equal(t, "seed-a", ptr.Deref(decided.Spec.SeedName, ""))
}

// A shoot changed after the decision is a conflict, which the reconciler requeues; it is
// never bound on a stale decision.
func TestBindThroughTheBindingSubresourceConflictsOnAChangedShoot(t *testing.T) {
	ctx := context.Background()
	shoot := builders.MakeShoot("garden-tenant", "web").Obj()
	var updates []*unstructured.Unstructured
	c := bindingClient(t, shoot, &updates)
	decided := &gardencorev1beta1.Shoot{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(shoot), decided))
	changed := decided.DeepCopy()
	changed.Labels = map[string]string{"team": "payments"}
	require.NoError(t, c.Update(ctx, changed))

	r := &Reconciler{Client: c, Config: &config.SchedulerConfiguration{Binding: config.SubresourceBinding}}
	err := r.bind(ctx, decided, "seed-a")
	assert.True(t, apierrors.IsConflict(err), "got %v", err)
	assert.Nil(t, decided.Spec.SeedName)
	got := &gardencorev1beta1.Shoot{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(shoot), got))
	assert.Nil(t, got.Spec.SeedName)
}

// In a busy garden the cache runs behind, and what changes a pending shoot is mostly its
// finalizers and status: the decision still holds, and the binding carries the live
// resourceVersion. A change of the spec (a new generation) still conflicts.
func TestBindThroughTheBindingSubresourceOnAShootChangedWhereNoDecisionLooks(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		change   func(*gardencorev1beta1.Shoot)
		conflict bool
	}{
		{"a finalizer, the status and the status label", func(s *gardencorev1beta1.Shoot) {
			s.Finalizers = append(s.Finalizers, "gardener")
			s.Status.LastOperation = &gardencorev1beta1.LastOperation{Type: gardencorev1beta1.LastOperationTypeCreate, State: gardencorev1beta1.LastOperationStatePending}
			s.Labels = map[string]string{"shoot.gardener.cloud/status": "progressing"}
		}, false},
		{"another label", func(s *gardencorev1beta1.Shoot) {
			s.Labels = map[string]string{"team": "payments"}
		}, true},
		{"the spec, in a new generation", func(s *gardencorev1beta1.Shoot) {
			s.Spec.Region = "europe-west4"
			s.Generation++
		}, true},
		{"the annotations", func(s *gardencorev1beta1.Shoot) {
			s.Annotations = map[string]string{"gardener.cloud/operation": "reconcile"}
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			shoot := builders.MakeShoot("garden-tenant", "web").Obj()
			shoot.Generation = 1
			var updates []*unstructured.Unstructured
			cl := bindingClient(t, shoot, &updates)
			decided := &gardencorev1beta1.Shoot{}
			require.NoError(t, cl.Get(ctx, client.ObjectKeyFromObject(shoot), decided))
			changed := decided.DeepCopy()
			c.change(changed)
			require.NoError(t, cl.Update(ctx, changed))

			if got := bindOrConflict(t, cl, decided, c.conflict); got != nil {
				assert.Equal(t, []string{"gardener"}, got.Finalizers, "the binding keeps what changed since the decision")
				assert.Equal(t, got.ResourceVersion, decided.ResourceVersion)
			}
		})
	}
}

// gardener-controller-manager adds its finalizer to every new shoot, often between the
// scheduler's read of the live shoot and its binding: the binding reads again and binds, as
// long as the decision still holds; a change of the spec in that moment stays a conflict.
func TestBindThroughTheBindingSubresourceReadsAgainAfterARacingWrite(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		race     func(*gardencorev1beta1.Shoot)
		conflict bool
	}{
		{"a finalizer", func(s *gardencorev1beta1.Shoot) { s.Finalizers = append(s.Finalizers, "gardener") }, false},
		{"the spec", func(s *gardencorev1beta1.Shoot) { s.Spec.Region = "europe-west4"; s.Generation++ }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			shoot := builders.MakeShoot("garden-tenant", "web").Obj()
			shoot.Generation = 1
			var updates []*unstructured.Unstructured
			base := bindingClient(t, shoot, &updates)
			raced := false
			cl := interceptor.NewClient(base.(client.WithWatch), interceptor.Funcs{
				SubResourceUpdate: func(ctx context.Context, cl client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
					if !raced {
						raced = true
						other := &gardencorev1beta1.Shoot{}
						require.NoError(t, cl.Get(ctx, client.ObjectKeyFromObject(obj), other))
						c.race(other)
						require.NoError(t, cl.Update(ctx, other))
					}
					return cl.SubResource(sub).Update(ctx, obj, opts...)
				},
			})
			decided := &gardencorev1beta1.Shoot{}
			require.NoError(t, cl.Get(ctx, client.ObjectKeyFromObject(shoot), decided))

			if got := bindOrConflict(t, cl, decided, c.conflict); got != nil {
				assert.Equal(t, []string{"gardener"}, got.Finalizers)
				assert.Len(t, updates, 2, "one binding refused, one taken")
			}
		})
	}
}

// bindOrConflict binds the decided shoot to seed-a through shoots/binding and checks the
// outcome: a conflict that leaves the shoot unbound when conflict is true (then nil), else
// the shoot bound, which it returns as stored.
func bindOrConflict(t *testing.T, cl client.Client, decided *gardencorev1beta1.Shoot, conflict bool) *gardencorev1beta1.Shoot {
	t.Helper()
	ctx := context.Background()
	r := &Reconciler{Client: cl, Config: &config.SchedulerConfiguration{Binding: config.SubresourceBinding}}
	err := r.bind(ctx, decided, "seed-a")
	got := &gardencorev1beta1.Shoot{}
	require.NoError(t, cl.Get(ctx, client.ObjectKeyFromObject(decided), got))
	if conflict {
		assert.True(t, apierrors.IsConflict(err), "got %v", err)
		assert.Nil(t, got.Spec.SeedName)
		return nil
	}
	require.NoError(t, err)
	assert.Equal(t, "seed-a", ptr.Deref(got.Spec.SeedName, ""))
	return got
}
