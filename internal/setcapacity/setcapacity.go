// Package setcapacity answers how many shoots the seed of a new replica of a ManagedSeedSet
// takes, and what such a seed costs per hour: the one answer the scheduler's pending-fit and
// the SeedAutoscaler both use; and what a registered seed advertises (SeedResources), the
// one answer of the seed controller and the simulated gardenlets.
package setcapacity

import (
	"fmt"
	"math/big"
	"regexp"
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

// UnknownParentError says that a new replica's gardenlet merges its configuration with the
// parent gardenlet's (mergeWithParent), the template does not name the shoots' capacity and
// reserved amounts itself, and the parent's seed is not registered: what the template lacks
// cannot be known, and the answer takes it from elsewhere.
type UnknownParentError struct {
	Set string
	// Parent is the seed the template's shootTemplate.spec.seedName names; empty when none.
	Parent string
	// Instead names where the answer came from.
	Instead string
}

func (e *UnknownParentError) Error() string {
	parent := "names no parent seed (shootTemplate.spec.seedName is empty)"
	if e.Parent != "" {
		parent = fmt.Sprintf("has parent seed %s (shootTemplate.spec.seedName), which is not registered", e.Parent)
	}
	return fmt.Sprintf("the replicas of ManagedSeedSet %s merge their gardenlet configuration with the parent gardenlet's (template.spec.gardenlet.mergeWithParent), and the set %s: new replicas are sized from %s; set template.spec.gardenlet.config.resources.capacity (and reserved) for shoots, or register the parent seed",
		e.Set, parent, e.Instead)
}

// NewReplicaShoots returns the allocatable shoots of a new replica's seed: the set's
// capacity annotation, else the template's gardenlet resources merged with the parent's
// (GardenletResources; capacity − reserved, as the gardenlet registers the seed), else
// defaultShoots. parent is the seed the replicas' shoots run on (ParentSeedName), nil when
// it is not registered. An annotation that is not a whole number of 0 or more is ignored,
// and returned as an *InvalidAnnotationError beside the answer without it, so that every
// reader gives the same answer; without an annotation, a template that needs its parent's
// resources when the parent is unknown returns an *UnknownParentError beside the answer.
func NewReplicaShoots(set *seedmanagementv1alpha1.ManagedSeedSet, parent *gardencorev1beta1.Seed, defaultShoots int64) (Shoots, error) {
	fromTemplate := templateShoots(set, parent, defaultShoots)
	v, ok := set.Annotations[Annotation]
	if !ok {
		if parent == nil && needsParent(set.Spec.Template.Spec.Gardenlet) {
			return fromTemplate, &UnknownParentError{Set: set.Namespace + "/" + set.Name, Parent: ParentSeedName(set), Instead: fromTemplate.Source}
		}
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

// PriceAnnotation is the set's price per seed-hour.
const PriceAnnotation = seedmanagementv1alpha1.AnnotationSeedHourPrice

// plainDecimal is the one form of a price: digits, optionally a point and more digits. No
// sign, exponent, NaN or infinity: a price reads as on an invoice, and every reader takes
// it exactly, without the rounding of a float.
var plainDecimal = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// InvalidPriceError says that the price annotation is there but not a price per seed-hour;
// the set then has no price.
type InvalidPriceError struct {
	Set, Value string
}

func (e *InvalidPriceError) Error() string {
	return fmt.Sprintf("annotation %s=%q of ManagedSeedSet %s is not a price per seed-hour (a plain decimal number of 0 or more, such as \"1.85\"): it is ignored, and the set ranks with the sets without a price when a pending shoot fits several; correct or remove it",
		PriceAnnotation, e.Value, e.Set)
}

// SeedHourPrice returns what a seed of the set costs per hour, exactly as its annotation
// says; nil when the set has none. An annotation that is not a plain decimal number of 0
// or more returns nil and an *InvalidPriceError.
func SeedHourPrice(set *seedmanagementv1alpha1.ManagedSeedSet) (*big.Rat, error) {
	v, ok := set.Annotations[PriceAnnotation]
	if !ok {
		return nil, nil
	}
	if !plainDecimal.MatchString(v) {
		return nil, &InvalidPriceError{Set: set.Namespace + "/" + set.Name, Value: v}
	}
	price, ok := new(big.Rat).SetString(v)
	if !ok {
		// Unreachable for a plain decimal; kept so that a failure never reads as free.
		return nil, &InvalidPriceError{Set: set.Namespace + "/" + set.Name, Value: v}
	}
	return price, nil
}

// Sizing sizes the new replicas of any set: the default shoots, and where the registered
// seeds are, among which each set's parent is found.
type Sizing struct {
	// DefaultShoots is what a seed takes when nothing configures it.
	DefaultShoots int64
	// Seed returns the registered seed of a name, nil when there is none; nil when the
	// reader knows no seeds (no parent is merged).
	Seed func(name string) *gardencorev1beta1.Seed
}

// NewReplicaShoots is NewReplicaShoots with the set's parent seed looked up.
func (s Sizing) NewReplicaShoots(set *seedmanagementv1alpha1.ManagedSeedSet) (Shoots, error) {
	var parent *gardencorev1beta1.Seed
	if name := ParentSeedName(set); name != "" && s.Seed != nil {
		parent = s.Seed(name)
	}
	return NewReplicaShoots(set, parent, s.DefaultShoots)
}

// ParentSeedName names the seed the shoots of a set's replicas run on: its gardenlet deploys
// the replicas' gardenlets, which merge their configuration with its own.
func ParentSeedName(set *seedmanagementv1alpha1.ManagedSeedSet) string {
	if name := set.Spec.ShootTemplate.Spec.SeedName; name != nil {
		return *name
	}
	return ""
}

func templateShoots(set *seedmanagementv1alpha1.ManagedSeedSet, parent *gardencorev1beta1.Seed, defaultShoots int64) Shoots {
	g := set.Spec.Template.Spec.Gardenlet
	resources := GardenletResources(g, parent)
	if resources == nil {
		return Shoots{Shoots: defaultShoots, Source: fmt.Sprintf("the default of %d shoots per seed", defaultShoots)}
	}
	c, ok := resources.Capacity[gardencorev1beta1.ResourceShoots]
	if !ok {
		return Shoots{Shoots: defaultShoots, Source: fmt.Sprintf("the default of %d shoots per seed", defaultShoots)}
	}
	allocatable := c.Value()
	if r, ok := resources.Reserved[gardencorev1beta1.ResourceShoots]; ok {
		allocatable -= r.Value()
	}
	source := "the template's gardenlet.config.resources"
	// What the template's own configuration lacks but the answer has came from the parent.
	own := ownResources(g)
	fromParent := own == nil || !hasShoots(own.Capacity) || (!hasShoots(own.Reserved) && hasShoots(resources.Reserved))
	if fromParent {
		source = fmt.Sprintf("the template's gardenlet.config.resources merged with those of parent seed %s (mergeWithParent)", parent.Name)
	}
	return Shoots{Shoots: max(allocatable, 0), Source: source}
}

// GardenletResources returns the resources a gardenlet that a ManagedSeed (or a set's
// template) deploys runs with: those of its configuration, and unless mergeWithParent is
// false, the parent gardenlet's for each capacity and reserved amount the configuration
// lacks, as Gardener merges a ManagedSeed's gardenlet configuration into the parent's. The
// garden holds no gardenlet configuration, but the parent's seed shows what its gardenlet
// runs with: status.capacity, and capacity − allocatable reserved. parent is the seed the
// ManagedSeed's shoot runs on, nil when unknown. Nil when neither says anything.
func GardenletResources(g *seedmanagementv1alpha1.Gardenlet, parent *gardencorev1beta1.Seed) *seedmanagementv1alpha1.ResourcesConfiguration {
	own := ownResources(g)
	merge := g != nil && (g.MergeWithParent == nil || *g.MergeWithParent) && parent != nil && len(parent.Status.Capacity) > 0
	if !merge {
		return own
	}
	merged := &seedmanagementv1alpha1.ResourcesConfiguration{Capacity: corev1.ResourceList{}, Reserved: corev1.ResourceList{}}
	if own != nil {
		for name, q := range own.Capacity {
			merged.Capacity[name] = q.DeepCopy()
		}
		for name, q := range own.Reserved {
			merged.Reserved[name] = q.DeepCopy()
		}
	}
	for name, c := range parent.Status.Capacity {
		if _, ok := merged.Capacity[name]; !ok {
			merged.Capacity[name] = c.DeepCopy()
		}
		if _, ok := merged.Reserved[name]; ok {
			continue
		}
		if a, ok := parent.Status.Allocatable[name]; ok {
			reserved := c.DeepCopy()
			reserved.Sub(a)
			if reserved.Sign() > 0 {
				merged.Reserved[name] = reserved
			}
		}
	}
	if len(merged.Reserved) == 0 {
		merged.Reserved = nil
	}
	return merged
}

// needsParent says whether a gardenlet merges its configuration with the parent's and lacks
// a shoots capacity of its own. (A lacking reserved amount, unknown, is taken as none.)
func needsParent(g *seedmanagementv1alpha1.Gardenlet) bool {
	if g == nil || (g.MergeWithParent != nil && !*g.MergeWithParent) {
		return false
	}
	own := ownResources(g)
	return own == nil || !hasShoots(own.Capacity)
}

func ownResources(g *seedmanagementv1alpha1.Gardenlet) *seedmanagementv1alpha1.ResourcesConfiguration {
	if g == nil || g.Config == nil {
		return nil
	}
	return g.Config.Resources
}

func hasShoots(l corev1.ResourceList) bool {
	_, ok := l[gardencorev1beta1.ResourceShoots]
	return ok
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
