package managedseed

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	// Named apart: the package's tests have a helper called quantity.
	qty "github.com/seedscaler/seedscaler/internal/quantity"
)

// DefaultShootCapacity is the shoots capacity of a seed whose ManagedSeed configures none,
// as in Gardener's gardenlet chart.
const DefaultShootCapacity = 250

// DefaultResources are the resources of a seed whose ManagedSeed configures none.
func DefaultResources() corev1.ResourceList {
	return corev1.ResourceList{gardencorev1beta1.ResourceShoots: *resource.NewQuantity(DefaultShootCapacity, resource.DecimalSI)}
}

// ParseDefaultCapacity parses the --default-seed-capacity flag: a bare quantity is the
// shoots capacity ("250"), otherwise comma-separated name=quantity pairs
// ("shoots=250,persistent-volumes=200"). It names the part it cannot read.
func ParseDefaultCapacity(value string) (corev1.ResourceList, error) {
	list := corev1.ResourceList{}
	for _, item := range strings.Split(value, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, amount, found := strings.Cut(item, "=")
		if !found {
			name, amount = gardencorev1beta1.ResourceShoots, item
		}
		name, amount = strings.TrimSpace(name), strings.TrimSpace(amount)
		if name == "" {
			return nil, fmt.Errorf("%q has no resource name: give a number of shoots such as 250, or pairs such as shoots=250", item)
		}
		if _, dup := list[corev1.ResourceName(name)]; dup {
			return nil, fmt.Errorf("%q repeats resource %s (a bare quantity is shoots): give each resource once", item, name)
		}
		q, err := qty.Parse(amount)
		if err != nil {
			return nil, fmt.Errorf("%q: %s is not a quantity (%w): give a number of shoots such as 250, or pairs such as shoots=250", item, amount, err)
		}
		if q.Sign() < 0 {
			return nil, fmt.Errorf("%q is negative: a capacity is zero or more", item)
		}
		list[corev1.ResourceName(name)] = q
	}
	return list, nil
}
