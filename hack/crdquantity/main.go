// Command crdquantity bounds every resource.Quantity in the CRDs controller-gen wrote: at
// most MaxLength characters, and a decimal exponent of at most 3 digits. `make generate`
// runs it after controller-gen.
//
// Every part decodes the quantities of the objects it reads with resource.ParseQuantity,
// which never returns for an exponent beyond int32 and compares for seconds with one of
// tens of millions: one stored object with such a quantity would stall every informer of
// its kind. controller-gen's pattern for a quantity takes any exponent, and no marker
// reaches the values of a map such as a ResourceList, nor a quantity of Kubernetes' own
// types (a gardenlet's pod resources in a ManagedSeed). So every quantity is bounded here
// alike. The fields of seedscaler's own types also carry CEL rules that say the bound in
// words; those rules fit the kube-apiserver's CEL cost budget only over strings of a
// known length, which MaxLength gives them.
//
//	go run ./hack/crdquantity FILE...
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

// MaxLength is the most characters of a quantity: "1.5k" needs 4, and 64 hold every
// quantity of an int64 with room for a fraction.
const MaxLength = 64

// quantityPattern is the pattern controller-gen writes for a resource.Quantity: its
// exponent may have any number of digits, and even a fraction, which ParseQuantity refuses.
const quantityPattern = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`

// BoundedPattern is quantityPattern with an exponent of 1 to 3 digits: 1e3 and 5E-2, not
// 1e1000 nor 1e3.5.
const BoundedPattern = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?[0-9]{1,3}))?$`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "crdquantity:", err)
		os.Exit(1)
	}
}

// run bounds the quantities of every file and fails when none has any: then
// controller-gen's pattern for a quantity changed, and quantityPattern must follow.
func run(files []string) error {
	found := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		out, n, err := bound(data)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		found += n
		if err := os.WriteFile(file, out, 0o644); err != nil {
			return err
		}
	}
	if found == 0 {
		return errors.New("no quantity found: does controller-gen still write the pattern " + quantityPattern + "?")
	}
	return nil
}

// bound bounds every quantity schema of a CRD that controller-gen wrote, and returns the
// CRD written as controller-gen writes it, and how many quantities it holds.
func bound(data []byte) ([]byte, int, error) {
	var crd map[string]any
	if err := yaml.Unmarshal(data, &crd); err != nil {
		return nil, 0, err
	}
	n := boundSchemas(crd)
	out, err := yaml.Marshal(crd)
	if err != nil {
		return nil, 0, err
	}
	return append([]byte("---\n"), bytes.TrimPrefix(out, []byte("---\n"))...), n, nil
}

// boundSchemas walks a decoded YAML value and bounds the quantity schemas in it.
func boundSchemas(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		if isQuantity(v) {
			v["pattern"] = BoundedPattern
			if l, ok := v["maxLength"].(float64); !ok || l > MaxLength {
				v["maxLength"] = MaxLength
			}
			n++
		}
		for _, child := range v {
			n += boundSchemas(child)
		}
	case []any:
		for _, child := range v {
			n += boundSchemas(child)
		}
	}
	return n
}

// isQuantity reports whether a schema is the one controller-gen writes for a
// resource.Quantity, bounded or not.
func isQuantity(schema map[string]any) bool {
	intOrString, _ := schema["x-kubernetes-int-or-string"].(bool)
	pattern, _ := schema["pattern"].(string)
	return intOrString && (pattern == quantityPattern || pattern == BoundedPattern)
}
