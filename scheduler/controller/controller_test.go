package controller

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/event"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/setcapacity"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

func TestResponsible(t *testing.T) {
	cases := []struct {
		name      string
		shoot     *gardencorev1beta1.Shoot
		scheduler string
		want      bool
	}{
		{"no schedulerName is default-scheduler's", builders.MakeShoot("p", "a").Obj(), "default-scheduler", true},
		{"empty schedulerName is default-scheduler's", builders.MakeShoot("p", "a").SchedulerName("").Obj(), "default-scheduler", true},
		{"named default-scheduler", builders.MakeShoot("p", "a").SchedulerName("default-scheduler").Obj(), "default-scheduler", true},
		{"another scheduler's", builders.MakeShoot("p", "a").SchedulerName("other").Obj(), "default-scheduler", false},
		{"ours by name", builders.MakeShoot("p", "a").SchedulerName("mine").Obj(), "mine", true},
		{"no schedulerName is not a custom scheduler's", builders.MakeShoot("p", "a").Obj(), "mine", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, Responsible(c.shoot, c.scheduler))
		})
	}
}

func TestBackoffDoublesUpToTheCap(t *testing.T) {
	var got []time.Duration
	for failures := 1; failures <= 7; failures++ {
		got = append(got, Backoff(failures, time.Second, 20*time.Second))
	}
	assert.Equal(t, []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 20 * time.Second, 20 * time.Second}, got)
	assert.Equal(t, 3*time.Second, Backoff(1, 3*time.Second, 3*time.Second), "base equal to the cap")
	assert.Equal(t, 5*time.Minute, Backoff(1000, time.Second, 5*time.Minute), "many failures do not overflow")
}

func TestPredicate(t *testing.T) {
	cfg := &config.SchedulerConfiguration{}
	config.Default(cfg)
	p := (&Reconciler{Config: cfg}).predicate()
	unbound := builders.MakeShoot("p", "a").Obj()
	unbound.Generation = 1
	bound := builders.MakeShoot("p", "a").SeedName("s").Obj()
	bound.Generation = 2
	foreign := builders.MakeShoot("p", "a").SchedulerName("other").Obj()
	statusOnly := unbound.DeepCopy()
	statusOnly.Status.LastOperation = &gardencorev1beta1.LastOperation{Type: gardencorev1beta1.LastOperationTypeCreate, State: gardencorev1beta1.LastOperationStatePending}
	specChanged := unbound.DeepCopy()
	specChanged.Generation = 2
	deleting := unbound.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}

	assert.True(t, p.Create(event.CreateEvent{Object: unbound}), "a new unbound shoot")
	assert.False(t, p.Create(event.CreateEvent{Object: bound}), "a new shoot with a preset seedName")
	assert.False(t, p.Create(event.CreateEvent{Object: foreign}), "another scheduler's shoot")
	assert.True(t, p.Update(event.UpdateEvent{ObjectOld: unbound, ObjectNew: bound}), "the bind: forget backoff and pending-fit")
	assert.False(t, p.Update(event.UpdateEvent{ObjectOld: unbound, ObjectNew: statusOnly}), "our own lastOperation patch must not undo the backoff")
	assert.True(t, p.Update(event.UpdateEvent{ObjectOld: unbound, ObjectNew: specChanged}), "a changed spec is decided at once")
	assert.True(t, p.Update(event.UpdateEvent{ObjectOld: unbound, ObjectNew: deleting}))
	assert.False(t, p.Update(event.UpdateEvent{ObjectOld: foreign, ObjectNew: foreign}))
	assert.True(t, p.Delete(event.DeleteEvent{Object: unbound}))
	assert.False(t, p.Delete(event.DeleteEvent{Object: foreign}))
}

func TestTemplateSeedAllocatable(t *testing.T) {
	spec := builders.MakeSeed("x").Obj().Spec
	withGardenlet := func(capacity, reserved string) *seedmanagementv1alpha1.ManagedSeedSet {
		set := managedSeedSet("garden", "g", spec, "")
		delete(set.Annotations, seedmanagementv1alpha1.AnnotationCapacityPrefix+gardencorev1beta1.ResourceShoots)
		seedConfig := set.Spec.Template.Spec.SeedTemplate
		set.Spec.Template.Spec.SeedTemplate = nil
		resources := &seedmanagementv1alpha1.ResourcesConfiguration{Capacity: corev1.ResourceList{gardencorev1beta1.ResourceShoots: resource.MustParse(capacity)}}
		if reserved != "" {
			resources.Reserved = corev1.ResourceList{gardencorev1beta1.ResourceShoots: resource.MustParse(reserved)}
		}
		set.Spec.Template.Spec.Gardenlet = &seedmanagementv1alpha1.Gardenlet{Config: &seedmanagementv1alpha1.GardenletConfiguration{
			SeedConfig: seedConfig, Resources: resources,
		}}
		return set
	}
	annotated := withGardenlet("100", "10")
	annotated.Annotations = map[string]string{seedmanagementv1alpha1.AnnotationCapacityPrefix + gardencorev1beta1.ResourceShoots: "7"}
	noTemplate := managedSeedSet("garden", "n", spec, "5")
	noTemplate.Spec.Template.Spec.SeedTemplate = nil

	cases := []struct {
		name string
		set  *seedmanagementv1alpha1.ManagedSeedSet
		want int64
	}{
		{"annotation on a seedTemplate set", managedSeedSet("garden", "a", spec, "5"), 5},
		{"annotation wins over gardenlet resources", annotated, 7},
		{"gardenlet capacity less reserved", withGardenlet("100", "10"), 90},
		{"gardenlet capacity without reserved", withGardenlet("40", ""), 40},
		{"nothing says: the default", func() *seedmanagementv1alpha1.ManagedSeedSet {
			s := managedSeedSet("garden", "d", spec, "")
			s.Annotations = nil
			return s
		}(), 250},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			seed, ok := TemplateSeed(c.set, setcapacity.Sizing{DefaultShoots: 250})
			require.True(t, ok)
			q := seed.Status.Allocatable[gardencorev1beta1.ResourceShoots]
			assert.Equal(t, c.want, q.Value())
			assert.Equal(t, spec.Provider, seed.Spec.Provider)
		})
	}
	_, ok := TemplateSeed(noTemplate, setcapacity.Sizing{DefaultShoots: 250})
	assert.False(t, ok, "a template without seedTemplate or gardenlet seedConfig names no seed")
}

// managedSeedSet is a set whose new replicas register seeds of spec, taking capacity shoots.
func managedSeedSet(namespace, name string, spec gardencorev1beta1.SeedSpec, capacity string) *seedmanagementv1alpha1.ManagedSeedSet {
	labels := map[string]string{"set": name, labelShootsAllowed: "allowed"}
	return &seedmanagementv1alpha1.ManagedSeedSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Annotations: map[string]string{
			seedmanagementv1alpha1.AnnotationCapacityPrefix + gardencorev1beta1.ResourceShoots: capacity,
		}},
		Spec: seedmanagementv1alpha1.ManagedSeedSetSpec{
			Replicas: ptr.To[int32](0),
			Selector: seedmanagementv1alpha1.LabelSelector{MatchLabels: map[string]seedmanagementv1alpha1.LabelValue{"set": seedmanagementv1alpha1.LabelValue(name)}},
			Template: seedmanagementv1alpha1.ManagedSeedTemplate{
				ObjectMetaTemplate: gardencorev1beta1.ObjectMetaTemplate{Labels: labels},
				Spec: seedmanagementv1alpha1.ManagedSeedSpec{SeedTemplate: &gardencorev1beta1.SeedTemplate{
					ObjectMetaTemplate: gardencorev1beta1.ObjectMetaTemplate{Labels: labels},
					Spec:               spec,
				}},
			},
			ShootTemplate: gardencorev1beta1.ShootTemplate{
				ObjectMetaTemplate: gardencorev1beta1.ObjectMetaTemplate{Labels: labels},
				Spec: gardencorev1beta1.ShootSpec{
					Provider: gardencorev1beta1.Provider{Type: spec.Provider.Type},
					Region:   spec.Provider.Region,
				},
			},
		},
	}
}

const (
	labelShootsAllowed = "seed.gardener.cloud/shoots"
	taintProtected     = "seed.gardener.cloud/protected"
	euAccessOnly       = "eu-access-only"
)
