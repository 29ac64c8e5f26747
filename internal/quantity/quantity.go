// Package quantity parses resource quantities from text seedscaler did not write (an
// annotation, a field of an object read unstructured) without the cost resource.ParseQuantity
// has for huge decimal exponents: an exponent beyond int32 wraps around and rounding the
// result runs for hours ("92E3372036854775807"), and one of tens of millions makes every
// comparison take seconds.
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
// exponent ("1e3", "5E-2") is beyond ±MaxExponent before parsing it.
func Parse(s string) (resource.Quantity, error) {
	if i := strings.LastIndexAny(s, "eE"); i >= 0 && isExponent(s[i+1:]) {
		if exp, err := strconv.ParseInt(s[i+1:], 10, 64); err != nil || exp > MaxExponent || exp < -MaxExponent {
			return resource.Quantity{}, fmt.Errorf("quantity %q: the exponent %s is beyond ±%d", s, s[i+1:], MaxExponent)
		}
	}
	return resource.ParseQuantity(s)
}

// isExponent reports whether s is the exponent of a decimal exponent suffix: an optional
// sign and digits. "E" alone is the exa suffix and "Ei" the exbi suffix.
func isExponent(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}
