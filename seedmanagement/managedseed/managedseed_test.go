//go:build integration

package managedseed

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/membership"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

const (
	eventually = 30 * time.Second
	tick       = 100 * time.Millisecond
)

// namespace creates a namespace with a unique name starting with prefix.
func namespace(ctx context.Context, t *testing.T, prefix string) string {
	t.Helper()
	name, err := env.Namespace(ctx, prefix)
	require.NoError(t, err)
	return name
}

// templateManagedSeed is a ManagedSeed registering a seed from a seedTemplate.
func templateManagedSeed(ns, name, region string) *seedmanagementv1alpha1.ManagedSeed {
	return &seedmanagementv1alpha1.ManagedSeed{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: seedmanagementv1alpha1.ManagedSeedSpec{
			Shoot: &seedmanagementv1alpha1.Shoot{Name: name},
			SeedTemplate: &gardencorev1beta1.SeedTemplate{
				ObjectMetaTemplate: gardencorev1beta1.ObjectMetaTemplate{
					Labels:      map[string]string{"foo": "bar"},
					Annotations: map[string]string{"example.com/note": "from the template"},
				},
				Spec: builders.MakeSeed(name).Provider("gcp", region).Zones("a", "b", "c").Obj().Spec,
			},
		},
	}
}

// gardenletManagedSeed is a ManagedSeed registering a seed from a gardenlet configuration.
func gardenletManagedSeed(ns, name string, resources *seedmanagementv1alpha1.ResourcesConfiguration) *seedmanagementv1alpha1.ManagedSeed {
	return &seedmanagementv1alpha1.ManagedSeed{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: seedmanagementv1alpha1.ManagedSeedSpec{
			Shoot: &seedmanagementv1alpha1.Shoot{Name: name},
			Gardenlet: &seedmanagementv1alpha1.Gardenlet{Config: &seedmanagementv1alpha1.GardenletConfiguration{
				SeedConfig: &gardencorev1beta1.SeedTemplate{
					ObjectMetaTemplate: gardencorev1beta1.ObjectMetaTemplate{Labels: map[string]string{"from": "gardenlet"}},
					Spec:               builders.MakeSeed(name).Provider("aws", "eu-west-1").Obj().Spec,
				},
				Resources: resources,
			}},
		},
	}
}

// reconciledShoot creates a shoot and plays its reconciliation to the given state.
func reconciledShoot(ctx context.Context, t *testing.T, ns, name string, state gardencorev1beta1.LastOperationState) *gardencorev1beta1.Shoot {
	t.Helper()
	shoot := builders.MakeShoot(ns, name).Obj()
	require.NoError(t, env.Client.Create(ctx, shoot))
	setShootState(ctx, t, shoot, state)
	return shoot
}

func setShootState(ctx context.Context, t *testing.T, shoot *gardencorev1beta1.Shoot, state gardencorev1beta1.LastOperationState) {
	t.Helper()
	shoot.Status.LastOperation = &gardencorev1beta1.LastOperation{
		Type: gardencorev1beta1.LastOperationTypeCreate, State: state, LastUpdateTime: metav1.Now(),
	}
	require.NoError(t, env.Client.Status().Update(ctx, shoot))
}

func condition(ctx context.Context, c *assert.CollectT, key client.ObjectKey, typ string) *metav1.Condition {
	ms := &seedmanagementv1alpha1.ManagedSeed{}
	if !assert.NoError(c, env.Client.Get(ctx, key, ms)) {
		return nil
	}
	cond := meta.FindStatusCondition(ms.Status.Conditions, typ)
	assert.NotNil(c, cond, "condition %s of %s", typ, key)
	return cond
}

func assertCondition(ctx context.Context, t *testing.T, key client.ObjectKey, typ string, status metav1.ConditionStatus, reason controllerutils.Reason, msgAndArgs ...any) {
	t.Helper()
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		if cond := condition(ctx, c, key, typ); cond != nil {
			assert.Equal(c, status, cond.Status)
			assert.Equal(c, string(reason), cond.Reason)
		}
	}, eventually, tick, msgAndArgs...)
}

func getSeed(ctx context.Context, name string) (*gardencorev1beta1.Seed, error) {
	seed := &gardencorev1beta1.Seed{}
	return seed, env.Client.Get(ctx, client.ObjectKey{Name: name}, seed)
}

func quantity(l corev1.ResourceList, name string) string {
	q, ok := l[corev1.ResourceName(name)]
	if !ok {
		return "<none>"
	}
	return q.String()
}

func eventReasons(ctx context.Context, c *assert.CollectT, ms *seedmanagementv1alpha1.ManagedSeed, eventType string) []string {
	list := &eventsv1.EventList{}
	if !assert.NoError(c, env.Client.List(ctx, list, client.InNamespace(ms.Namespace))) {
		return nil
	}
	var reasons []string
	for _, e := range list.Items {
		if e.Regarding.Kind == "ManagedSeed" && e.Regarding.Name == ms.Name && e.Type == eventType {
			reasons = append(reasons, e.Reason)
		}
	}
	return reasons
}

func TestManagedSeedWaitsForItsShootThenRegistersTheSeedFromItsTemplate(t *testing.T) {
	ctx := context.Background()
	ns, name := namespace(ctx, t, "wait"), testenv.Unique("wait")
	ms := templateManagedSeed(ns, name, "europe-west1")
	key := client.ObjectKeyFromObject(ms)
	require.NoError(t, env.Client.Create(ctx, ms))

	assertCondition(ctx, t, key, seedmanagementv1alpha1.ManagedSeedShootReconciled, metav1.ConditionFalse, ReasonShootNotFound)
	assertCondition(ctx, t, key, seedmanagementv1alpha1.ManagedSeedSeedRegistered, metav1.ConditionFalse, ReasonWaitingForShoot)
	_, err := getSeed(ctx, name)
	assert.True(t, apierrors.IsNotFound(err), "no seed without a shoot: %v", err)

	shoot := reconciledShoot(ctx, t, ns, name, gardencorev1beta1.LastOperationStateProcessing)
	assertCondition(ctx, t, key, seedmanagementv1alpha1.ManagedSeedShootReconciled, metav1.ConditionFalse, ReasonShootReconciling)
	_, err = getSeed(ctx, name)
	assert.True(t, apierrors.IsNotFound(err), "no seed while the shoot reconciles: %v", err)

	setShootState(ctx, t, shoot, gardencorev1beta1.LastOperationStateSucceeded)
	assertCondition(ctx, t, key, seedmanagementv1alpha1.ManagedSeedShootReconciled, metav1.ConditionTrue, ReasonShootReconcileSucceed)
	assertCondition(ctx, t, key, seedmanagementv1alpha1.ManagedSeedSeedRegistered, metav1.ConditionTrue, ReasonSeedRegistered)

	seed, err := getSeed(ctx, name)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"foo": "bar", membership.LabelManagedSeedNamespace: ns}, seed.Labels)
	assert.Equal(t, map[string]string{"example.com/note": "from the template"}, seed.Annotations)
	assert.Equal(t, "europe-west1", seed.Spec.Provider.Region)
	assert.Equal(t, []string{"a", "b", "c"}, seed.Spec.Provider.Zones)
	assert.Empty(t, seed.OwnerReferences, "a cluster-scoped seed takes no namespaced owner")
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		seed, err := getSeed(ctx, name)
		if !assert.NoError(c, err) {
			return
		}
		assert.Equal(c, "250", quantity(seed.Status.Capacity, "shoots"), "a seedTemplate gets the default capacity")
		assert.Equal(c, "250", quantity(seed.Status.Allocatable, "shoots"))
		if assert.NotNil(c, seed.Status.LastOperation) {
			assert.Equal(c, gardencorev1beta1.LastOperationTypeReconcile, seed.Status.LastOperation.Type)
			assert.Equal(c, gardencorev1beta1.LastOperationStateSucceeded, seed.Status.LastOperation.State)
		}
		assert.Equal(c, seed.Generation, seed.Status.ObservedGeneration)
		assert.Equal(c, "0", quantity(seed.Status.Usage, "shoots"), "the lifecycle controller counts usage")
		assert.NotNil(c, meta.FindStatusCondition(seed.Status.Conditions, gardencorev1beta1.SeedGardenletReady), "the lifecycle controller judges every seed")
	}, eventually, tick)

	got := &seedmanagementv1alpha1.ManagedSeed{}
	require.NoError(t, env.Client.Get(ctx, key, got))
	assert.Contains(t, got.Finalizers, Finalizer)
	assert.Equal(t, got.Generation, got.Status.ObservedGeneration)
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		assert.Contains(c, eventReasons(ctx, c, ms, corev1.EventTypeNormal), string(ReasonSeedRegistered))
	}, eventually, tick)
}

func TestSeedFromGardenletConfigGetsItsResourcesAndSetLabels(t *testing.T) {
	ctx := context.Background()
	ns, name := namespace(ctx, t, "gardenlet"), testenv.Unique("set-a")
	ms := gardenletManagedSeed(ns, name, &seedmanagementv1alpha1.ResourcesConfiguration{
		Capacity: corev1.ResourceList{"shoots": resourceMust("100"), "persistent-volumes": resourceMust("200")},
		Reserved: corev1.ResourceList{"persistent-volumes": resourceMust("3")},
	})
	ms.Labels = map[string]string{seedmanagementv1alpha1.LabelManagedSeedSet: "set-a"}
	key := client.ObjectKeyFromObject(ms)
	reconciledShoot(ctx, t, ns, name, gardencorev1beta1.LastOperationStateSucceeded)
	require.NoError(t, env.Client.Create(ctx, ms))

	assertCondition(ctx, t, key, seedmanagementv1alpha1.ManagedSeedSeedRegistered, metav1.ConditionTrue, ReasonSeedRegistered)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		seed, err := getSeed(ctx, name)
		if !assert.NoError(c, err) {
			return
		}
		assert.Equal(c, map[string]string{
			"from":                               "gardenlet",
			membership.LabelManagedSeedNamespace: ns,
			seedmanagementv1alpha1.LabelManagedSeedSet:          "set-a",
			seedmanagementv1alpha1.LabelManagedSeedSetNamespace: ns,
		}, seed.Labels)
		assert.Equal(c, "eu-west-1", seed.Spec.Provider.Region)
		assert.Equal(c, "100", quantity(seed.Status.Capacity, "shoots"))
		assert.Equal(c, "200", quantity(seed.Status.Capacity, "persistent-volumes"))
		assert.Equal(c, "100", quantity(seed.Status.Allocatable, "shoots"))
		assert.Equal(c, "197", quantity(seed.Status.Allocatable, "persistent-volumes"))
	}, eventually, tick)

	// A change of the configured resources changes capacity and allocatable.
	require.NoError(t, env.Client.Get(ctx, key, ms))
	ms.Spec.Gardenlet.Config.Resources = &seedmanagementv1alpha1.ResourcesConfiguration{
		Capacity: corev1.ResourceList{"shoots": resourceMust("30")},
		Reserved: corev1.ResourceList{"shoots": resourceMust("5")},
	}
	require.NoError(t, env.Client.Update(ctx, ms))
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		seed, err := getSeed(ctx, name)
		if !assert.NoError(c, err) {
			return
		}
		assert.Equal(c, "30", quantity(seed.Status.Capacity, "shoots"))
		assert.Equal(c, "25", quantity(seed.Status.Allocatable, "shoots"))
		assert.Equal(c, "<none>", quantity(seed.Status.Capacity, "persistent-volumes"), "a resource no longer configured is gone")
		assert.Equal(c, "<none>", quantity(seed.Status.Allocatable, "persistent-volumes"))
	}, eventually, tick)
}

func TestTemplateChangeUpdatesTheSeed(t *testing.T) {
	ctx := context.Background()
	ns, name := namespace(ctx, t, "update"), testenv.Unique("update")
	ms := templateManagedSeed(ns, name, "europe-west1")
	key := client.ObjectKeyFromObject(ms)
	reconciledShoot(ctx, t, ns, name, gardencorev1beta1.LastOperationStateSucceeded)
	require.NoError(t, env.Client.Create(ctx, ms))
	assertCondition(ctx, t, key, seedmanagementv1alpha1.ManagedSeedSeedRegistered, metav1.ConditionTrue, ReasonSeedRegistered)

	require.NoError(t, env.Client.Get(ctx, key, ms))
	ms.Spec.SeedTemplate.Labels = map[string]string{"baz": "qux"}
	ms.Spec.SeedTemplate.Spec.Taints = []gardencorev1beta1.SeedTaint{{Key: "seed.gardener.cloud/protected"}}
	ms.Spec.SeedTemplate.Spec.Provider.Zones = []string{"a", "b", "c", "d"}
	require.NoError(t, env.Client.Update(ctx, ms))

	require.EventuallyWithT(t, func(c *assert.CollectT) {
		seed, err := getSeed(ctx, name)
		if !assert.NoError(c, err) {
			return
		}
		assert.Equal(c, map[string]string{"baz": "qux", membership.LabelManagedSeedNamespace: ns}, seed.Labels, "labels follow the template, removed ones go")
		assert.Equal(c, []gardencorev1beta1.SeedTaint{{Key: "seed.gardener.cloud/protected"}}, seed.Spec.Taints)
		assert.Equal(c, []string{"a", "b", "c", "d"}, seed.Spec.Provider.Zones)
		assert.Equal(c, seed.Generation, seed.Status.ObservedGeneration)
	}, eventually, tick)
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		assert.Contains(c, eventReasons(ctx, c, ms, corev1.EventTypeNormal), EventSeedUpdated.Reason())
	}, eventually, tick)
}

func TestDeletionWaitsUntilNoShootUsesTheSeed(t *testing.T) {
	ctx := context.Background()
	ns, name := namespace(ctx, t, "delete"), testenv.Unique("delete")
	tenants := namespace(ctx, t, "tenants")
	ms := templateManagedSeed(ns, name, "europe-west1")
	key := client.ObjectKeyFromObject(ms)
	ownShoot := reconciledShoot(ctx, t, ns, name, gardencorev1beta1.LastOperationStateSucceeded)
	require.NoError(t, env.Client.Create(ctx, ms))
	assertCondition(ctx, t, key, seedmanagementv1alpha1.ManagedSeedSeedRegistered, metav1.ConditionTrue, ReasonSeedRegistered)

	tenant := builders.MakeShoot(tenants, "tenant").SeedName(name).Obj()
	require.NoError(t, env.Client.Create(ctx, tenant))
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		seed, err := getSeed(ctx, name)
		if assert.NoError(c, err) {
			assert.Equal(c, "1", quantity(seed.Status.Usage, "shoots"))
		}
	}, eventually, tick, "the index has seen the tenant")

	require.NoError(t, env.Client.Delete(ctx, ms))
	assertCondition(ctx, t, key, seedmanagementv1alpha1.ManagedSeedSeedRegistered, metav1.ConditionFalse, ReasonDeletionBlocked)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		if cond := condition(ctx, c, key, seedmanagementv1alpha1.ManagedSeedSeedRegistered); cond != nil {
			assert.Contains(c, cond.Message, "1 shoot")
			assert.Contains(c, cond.Message, tenants+"/tenant")
		}
		assert.Contains(c, eventReasons(ctx, c, ms, corev1.EventTypeWarning), string(ReasonDeletionBlocked))
	}, eventually, tick)
	seed, err := getSeed(ctx, name)
	require.NoError(t, err, "the seed stays while a shoot uses it")
	assert.Nil(t, seed.DeletionTimestamp)

	require.NoError(t, env.Client.Delete(ctx, tenant))
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		_, err := getSeed(ctx, name)
		assert.True(c, apierrors.IsNotFound(err), "seed gone once empty: %v", err)
		err = env.Client.Get(ctx, key, &seedmanagementv1alpha1.ManagedSeed{})
		assert.True(c, apierrors.IsNotFound(err), "ManagedSeed released once its seed is gone: %v", err)
	}, eventually, tick)
	assert.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(ownShoot), &gardencorev1beta1.Shoot{}), "the shoot is left to its owner")
}

func TestSeedOfAnotherOwnerIsNeverTaken(t *testing.T) {
	ctx := context.Background()
	ns, name := namespace(ctx, t, "conflict"), testenv.Unique("conflict")
	require.NoError(t, env.Client.Create(ctx, builders.MakeSeed(name).Labels("hand", "made").Obj()))
	ms := templateManagedSeed(ns, name, "europe-west1")
	key := client.ObjectKeyFromObject(ms)
	reconciledShoot(ctx, t, ns, name, gardencorev1beta1.LastOperationStateSucceeded)
	require.NoError(t, env.Client.Create(ctx, ms))
	assertCondition(ctx, t, key, seedmanagementv1alpha1.ManagedSeedSeedRegistered, metav1.ConditionFalse, ReasonSeedConflict)

	require.NoError(t, env.Client.Delete(ctx, ms))
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		err := env.Client.Get(ctx, key, &seedmanagementv1alpha1.ManagedSeed{})
		assert.True(c, apierrors.IsNotFound(err), "ManagedSeed released: %v", err)
	}, eventually, tick)
	seed, err := getSeed(ctx, name)
	require.NoError(t, err, "someone else's seed is never deleted")
	assert.Equal(t, map[string]string{"hand": "made"}, seed.Labels, "nor changed")
}
