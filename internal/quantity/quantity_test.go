package quantity

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestParse(t *testing.T) {
	for _, s := range []string{"250", "1k", "1E", "1Ei", "1.5", "-3", "1e3", "5E-2", "1e308", "1e-308", "+2e+10", "100m"} {
		got, err := Parse(s)
		require.NoError(t, err, s)
		want := resource.MustParse(s)
		assert.Zero(t, want.Cmp(got), "%s: the quantity resource.ParseQuantity reads", s)
	}
	for s, want := range map[string]string{
		"92E3372036854775807":    `quantity "92E3372036854775807": the exponent 3372036854775807 is beyond ±308`,
		"1E40000000":             `the exponent 40000000 is beyond ±308`,
		"1e-2147483647":          `the exponent -2147483647 is beyond ±308`,
		"1e309":                  `the exponent 309 is beyond ±308`,
		"1e99999999999999999999": `the exponent 99999999999999999999 is beyond ±308`,
		"abc":                    `quantities must match the regular expression`,
		"":                       `quantities must match the regular expression`,
	} {
		_, err := Parse(s)
		assert.ErrorContains(t, err, want, s)
	}
}

// FuzzParse holds Parse to resource.ParseQuantity: it takes what that takes, the same, unless
// the exponent is out of bounds or the quantity would be written as another; it answers
// fast whatever the text, and what it takes reads back the same written out.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"250", "1k", "1E", "1Ei", "0.5", "-3", "1e3", "5E-2", "92E3372036854775807", "E40000000", "1e-2147483647", "1.5e308", ".5e-9",
		"1000000000000000000000", "9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		start := time.Now()
		q, err := Parse(s)
		if err != nil {
			assert.Contains(t, err.Error(), "quantit", "the error says it is about a quantity")
			return
		}
		// What a quantity is used for: compared, rounded to an integer, and as a float.
		_ = q.Cmp(resource.MustParse("250"))
		_, _ = q.AsInt64()
		_ = q.AsApproximateFloat64()
		_ = q.Value()
		assert.Less(t, time.Since(start), time.Second, "%q took long", s)
		written, err := Parse(q.String())
		require.NoError(t, err, "written as %q", q.String())
		assert.Zero(t, written.Cmp(q), "written as %q", q.String())
		want, err := resource.ParseQuantity(s)
		require.NoError(t, err, "Parse takes only what resource.ParseQuantity takes")
		assert.Zero(t, want.Cmp(q))
	})
}
