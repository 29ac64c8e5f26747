package framework

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func TestSelectorConvertsOncePerInput(t *testing.T) {
	in := &Input{}
	ls := &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
	first, err := in.Selector(ls)
	require.NoError(t, err)
	assert.True(t, first.Matches(labels.Set{"a": "b"}))
	second, err := in.Selector(ls)
	require.NoError(t, err)
	assert.Equal(t, first, second)
	assert.Len(t, in.selectors, 1, "the second call reuses the conversion")

	invalid := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}
	_, err = in.Selector(invalid)
	require.Error(t, err)
	_, again := in.Selector(invalid)
	assert.Equal(t, err, again, "a conversion error is remembered too")
}

func TestPrefixAnswersAsParsePrefix(t *testing.T) {
	in := &Input{}
	// More distinct strings than the memo holds, twice over, so that answers after an
	// eviction are checked too.
	cidrs := []string{"10.0.0.0/16", "2001:db8::/64", "", "10.0.0.0", "not-a-cidr", "10.0.0.0/33"}
	for i := range 2 * len(in.prefixes) {
		cidrs = append(cidrs, fmt.Sprintf("10.%d.0.0/16", i))
	}
	for range 2 {
		for _, s := range cidrs {
			want, err := netip.ParsePrefix(s)
			if err != nil {
				want = netip.Prefix{}
			}
			assert.Equal(t, want, in.Prefix(s), "Prefix(%q)", s)
		}
	}
}

func TestPrefixParsesRepeatedCIDRsOnce(t *testing.T) {
	in := &Input{}
	in.Prefix("10.250.0.0/16")
	in.Prefix("100.96.0.0/11")
	next := in.next
	assert.Equal(t, netip.MustParsePrefix("10.250.0.0/16"), in.Prefix("10.250.0.0/16"))
	assert.Equal(t, next, in.next, "a remembered CIDR takes no new slot")
}
