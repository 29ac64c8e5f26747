// Package setcapacity answers how many shoots the seed of a new replica of a ManagedSeedSet
// takes: the one answer the scheduler's pending-fit and the SeedAutoscaler both use.
package setcapacity

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
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
	q, err := resource.ParseQuantity(v)
	n, whole := q.AsInt64()
	if err != nil || !whole || n < 0 {
		return fromTemplate, &InvalidAnnotationError{Set: set.Namespace + "/" + set.Name, Value: v, Instead: fromTemplate.Source}
	}
	return Shoots{Shoots: n, Source: "annotation " + Annotation}, nil
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
