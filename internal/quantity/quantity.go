// Package quantity parses resource quantities from text seedscaler did not write (an
// annotation, a flag, a field of an object read unstructured) without the traps of
// resource.ParseQuantity: for a huge decimal exponent, an exponent beyond int32 wraps
// around and rounding the result runs for hours ("92E3372036854775807"), and one of tens of
// millions makes every comparison take seconds; and a quantity of many digits may be
// written back as another.
package quantity

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// MaxExponent bounds the decimal exponent of a quantity Parse takes, either way: float64's
// range, beyond which no quantity is a number seedscaler could use.
const MaxExponent = 308

// Parse parses a quantity as resource.ParseQuantity does, but refuses one whose decimal
// exponent ("1e3", "5E-2") is beyond ±MaxExponent, before parsing it and as the quantity is
// written (100000000E301 is 1e309), and one whose canonical form, the way it is written into
// an object, is a different quantity: resource.Quantity writes 1000000000000000000000 as "1".
func Parse(s string) (resource.Quantity, error) {
	if err := checkExponent(s); err != nil {
		return resource.Quantity{}, fmt.Errorf("quantity %q: %w", s, err)
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return resource.Quantity{}, err
	}
	written := q.String()
	if err := checkExponent(written); err != nil {
		return resource.Quantity{}, fmt.Errorf("quantity %q is %s: %w", s, written, err)
	}
	if back, err := resource.ParseQuantity(written); err != nil || back.Cmp(q) != 0 {
		return resource.Quantity{}, fmt.Errorf("quantity %q is written as %q, which is another quantity; write it with fewer digits, such as 1e21", s, written)
	}
	return q, nil
}

// checkExponent returns an error when s ends in a decimal exponent beyond ±MaxExponent.
func checkExponent(s string) error {
	i := strings.LastIndexAny(s, "eE")
	if i < 0 || !isExponent(s[i+1:]) {
		return nil
	}
	if exp, err := strconv.ParseInt(s[i+1:], 10, 64); err != nil || exp > MaxExponent || exp < -MaxExponent {
		return fmt.Errorf("the exponent %s is beyond ±%d", s[i+1:], MaxExponent)
	}
	return nil
}

// isExponent reports whether s is the exponent of a decimal exponent suffix: an optional
// sign and digits. "E" alone is the exa suffix and "Ei" the exbi suffix.
func isExponent(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}
