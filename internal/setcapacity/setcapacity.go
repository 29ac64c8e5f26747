// Package setcapacity answers how many shoots the seed of a new replica of a ManagedSeedSet
// takes: the one answer the scheduler's pending-fit and the SeedAutoscaler both use; and
// what a registered seed advertises (SeedResources), the one answer of the seed controller
// and the simulated gardenlets.
package setcapacity

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/quantity"
)

// Annotation is the set's capacity hint for shoots, as Cluster API's scale-from-zero
// capacity annotations: it wins over the template.
const Annotation = seedmanagementv1alpha1.AnnotationCapacityPrefix + gardencorev1beta1.ResourceShoots

// DefaultShoots is the shoots a seed takes when nothing configures them: Gardener's
// gardenlet default, and the seed controller's and the scheduler's.
const DefaultShoots = 250

// Shoots is the shoots a new replica's seed takes and where that number comes from.
type Shoots struct {
	Shoots int64
	// Source names where Shoots comes from, for messages.
	Source string
}

// InvalidAnnotationError says that the capacity annotation is there but not a number of
// shoots; the answer then comes from what the set would say without it.
type InvalidAnnotationError struct {
	Set, Value string
	// Instead names where the answer came from.
	Instead string
}

func (e *InvalidAnnotationError) Error() string {
	return fmt.Sprintf("annotation %s=%q of ManagedSeedSet %s is not a whole number of shoots (0 or more, such as \"250\"): it is ignored, and new replicas are sized from %s; correct or remove it",
		Annotation, e.Value, e.Set, e.Instead)
}

// NewReplicaShoots returns the allocatable shoots of a new replica's seed: the set's
// capacity annotation, else the template's gardenlet resources (capacity − reserved, as
// the seed controller computes), else defaultShoots. An annotation that is not a whole
// number of 0 or more is ignored, and returned as an *InvalidAnnotationError beside the
// answer without it, so that every reader gives the same answer.
func NewReplicaShoots(set *seedmanagementv1alpha1.ManagedSeedSet, defaultShoots int64) (Shoots, error) {
	fromTemplate := templateShoots(set, defaultShoots)
	v, ok := set.Annotations[Annotation]
	if !ok {
		return fromTemplate, nil
	}
	n, ok := parseShoots(v)
	if !ok {
		return fromTemplate, &InvalidAnnotationError{Set: set.Namespace + "/" + set.Name, Value: v, Instead: fromTemplate.Source}
	}
	return Shoots{Shoots: n, Source: "annotation " + Annotation}, nil
}

// parseShoots reads a whole number of 0 or more shoots: digits, or a quantity such as 1k.
// Digits first: a quantity of 19 digits is kept as a decimal, which AsInt64 refuses.
func parseShoots(v string) (int64, bool) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, n >= 0
	}
	q, err := quantity.Parse(v)
	if err != nil {
		return 0, false
	}
	n, whole := q.AsInt64()
	return n, whole && n >= 0
}

func templateShoots(set *seedmanagementv1alpha1.ManagedSeedSet, defaultShoots int64) Shoots {
	if g := set.Spec.Template.Spec.Gardenlet; g != nil && g.Config != nil && g.Config.Resources != nil {
		if c, ok := g.Config.Resources.Capacity[gardencorev1beta1.ResourceShoots]; ok {
			allocatable := c.Value()
			if r, ok := g.Config.Resources.Reserved[gardencorev1beta1.ResourceShoots]; ok {
				allocatable -= r.Value()
			}
			return Shoots{Shoots: max(allocatable, 0), Source: "the template's gardenlet.config.resources"}
		}
	}
	return Shoots{Shoots: defaultShoots, Source: fmt.Sprintf("the default of %d shoots per seed", defaultShoots)}
}

// SeedResources computes a seed's status.capacity and status.allocatable as GEP-13 says:
// capacity is resources.capacity, allocatable is capacity minus resources.reserved per
// resource. Every resource of defaults that the configuration lacks is added with its
// default, so a seedTemplate (no configuration) or a gardenlet configuration without
// shoots still gets a shoots capacity. Reserved amounts of resources without a capacity
// are ignored (the CRD rejects them), and allocatable never goes below zero.
func SeedResources(cfg *seedmanagementv1alpha1.ResourcesConfiguration, defaults corev1.ResourceList) (capacity, allocatable corev1.ResourceList) {
	capacity = corev1.ResourceList{}
	for name, q := range defaults {
		capacity[name] = q.DeepCopy()
	}
	var reserved corev1.ResourceList
	if cfg != nil {
		for name, q := range cfg.Capacity {
			capacity[name] = q.DeepCopy()
		}
		reserved = cfg.Reserved
	}
	allocatable = corev1.ResourceList{}
	for name, q := range capacity {
		a := q.DeepCopy()
		if r, ok := reserved[name]; ok {
			a.Sub(r)
			if a.Sign() < 0 {
				a = *resource.NewQuantity(0, q.Format)
			}
		}
		allocatable[name] = a
	}
	return capacity, allocatable
}
