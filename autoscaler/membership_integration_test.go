//go:build integration

package autoscaler_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/scale"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// gardenerScales is the real scale client serving a ManagedSeedSet's scale as
// gardener-apiserver does: its selector is computed from the set's spec.selector. The CRD
// the tests install serves status.selector, which a set of Gardener's does not have.
type gardenerScales struct {
	scale.ScalesGetter
	reader client.Reader
}

func (s gardenerScales) Scales(namespace string) scale.ScaleInterface {
	return gardenerScale{ScaleInterface: s.ScalesGetter.Scales(namespace), reader: s.reader, namespace: namespace}
}

type gardenerScale struct {
	scale.ScaleInterface
	reader    client.Reader
	namespace string
}

func (s gardenerScale) Get(ctx context.Context, gr schema.GroupResource, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error) {
	sc, err := s.ScaleInterface.Get(ctx, gr, name, opts)
	if err != nil || gr != (schema.GroupResource{Group: seedmanagementv1alpha1.GroupVersion.Group, Resource: "managedseedsets"}) {
		return sc, err
	}
	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	if err := s.reader.Get(ctx, client.ObjectKey{Namespace: s.namespace, Name: name}, set); err != nil {
		return nil, err
	}
	selector, err := metav1.LabelSelectorAsSelector(set.Spec.Selector.AsMetav1())
	if err != nil {
		return nil, err
	}
	sc.Status.Selector = selector.String()
	return sc, nil
}

// createGardenerSet creates the GEP's example ManagedSeedSet under the fixture's name as
// Gardener's controller keeps it: status.replicas, and no status.selector.
func (f *fixture) createGardenerSet(replicas int32) *seedmanagementv1alpha1.ManagedSeedSet {
	f.t.Helper()
	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(f.t, testenv.ReadExample("managedseedset.yaml", set))
	set.Name, set.Namespace = f.name, f.ns
	set.Spec.Replicas = ptr.To(replicas)
	set.Spec.Selector.MatchLabels["set"] = seedmanagementv1alpha1.LabelValue(f.name)
	set.Spec.Template.Labels["set"] = f.name
	set.Spec.ShootTemplate.Labels["set"] = f.name
	set.Spec.Template.Spec.SeedTemplate.Labels["set"] = f.name
	require.NoError(f.t, env.Client.Create(f.ctx, set))
	set.Status.Replicas = replicas
	require.NoError(f.t, env.Client.Status().Update(f.ctx, set))
	require.Empty(f.t, set.Status.Selector)
	return set
}

// addGardenerReplica creates a replica's ManagedSeed as Gardener's controller makes it (the
// template's labels, a controller reference to the set, no set label) and its ready Seed
// with the seed template's labels only and 100 allocatable shoots, shoots of them used.
func (f *fixture) addGardenerReplica(set *seedmanagementv1alpha1.ManagedSeedSet, name string, shoots float64) {
	f.t.Helper()
	ms := &seedmanagementv1alpha1.ManagedSeed{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: set.Namespace, Labels: set.Spec.Template.Labels,
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, seedmanagementv1alpha1.GroupVersion.WithKind("ManagedSeedSet"))},
	}}
	ms.Spec = *set.Spec.Template.Spec.DeepCopy()
	ms.Spec.Shoot = &seedmanagementv1alpha1.Shoot{Name: name}
	require.NoError(f.t, env.Client.Create(f.ctx, ms))
	var labels []string
	for k, v := range set.Spec.Template.Spec.SeedTemplate.Labels {
		labels = append(labels, k, v)
	}
	f.addSeed(name, shoots, labels...)
}

// A ManagedSeedSet of Gardener's has no status.selector and its replicas no set label: the
// autoscaler finds its seeds through the selector of its scale (which gardener-apiserver
// computes from spec.selector) and is woken by a change of one of its seeds, with no
// periodic evaluation to fall back on.
func TestGardenerSetIsEvaluatedOnAChangeOfItsSeed(t *testing.T) {
	f := newFixture(t, "gardener-set")
	set := f.createGardenerSet(2)
	f.addGardenerReplica(set, replicaName(f.name, 0), 40)
	f.addGardenerReplica(set, replicaName(f.name, 1), 40)
	f.metrics.setPending(f.name, 0)
	f.createAutoscaler(1, 10, 50, nil)
	f.startWith(func(mgr manager.Manager, r *autoscaler.Reconciler) {
		dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
		require.NoError(f.t, err)
		scales, err := scale.NewForConfig(env.Config, mgr.GetRESTMapper(), dynamic.LegacyAPIPathResolverFunc, scale.NewDiscoveryScaleKindResolver(dc))
		require.NoError(f.t, err)
		r.Scales = gardenerScales{ScalesGetter: scales, reader: mgr.GetAPIReader()}
		r.SyncPeriod = time.Hour
	})
	f.waitForTargets("40%/50%")
	sa := f.get()
	assert.Equal(t, int32(2), sa.Status.DesiredReplicas)
	assert.Equal(t, "ManagedSeedSet/"+f.name, sa.Status.Reference)

	// One seed's allocatable drops to 60: 80 shoots over 160 places.
	seed := &gardencorev1beta1.Seed{}
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKey{Name: replicaName(f.name, 1)}, seed))
	seed.Status.Allocatable = corev1.ResourceList{gardencorev1beta1.ResourceShoots: resource.MustParse("60")}
	require.NoError(t, env.Client.Status().Update(f.ctx, seed))
	f.waitForTargets("50%/50%")
	assert.Equal(t, int32(2), f.specReplicas(), "at the target: no change")
}
