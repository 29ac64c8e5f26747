package framework

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
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

func TestParseCIDRAnswersAsParsePrefix(t *testing.T) {
	for _, text := range []string{"10.0.0.0/16", "2001:db8::/64", "", "10.0.0.0", "not-a-cidr", "10.0.0.0/33"} {
		want, err := netip.ParsePrefix(text)
		if err != nil {
			want = netip.Prefix{} // overlaps nothing
		}
		assert.Equal(t, CIDR{Text: text, Prefix: want}, ParseCIDR(text), "ParseCIDR(%q)", text)
	}
}

func TestShootNetworksAreParsedOncePerInput(t *testing.T) {
	shoot := &gardencorev1beta1.Shoot{}
	shoot.Spec.Networking = &gardencorev1beta1.Networking{Nodes: ptr.To("10.250.0.0/16"), Services: ptr.To("bogus")}
	in := &Input{Shoot: shoot}
	want := [3]CIDR{{"10.250.0.0/16", netip.MustParsePrefix("10.250.0.0/16")}, {}, {Text: "bogus"}}
	assert.Equal(t, want, in.ShootNetworks())
	shoot.Spec.Networking.Nodes = ptr.To("10.1.0.0/16")
	assert.Equal(t, want, in.ShootNetworks(), "parsed on the first call, for the rest of the decision")

	assert.Equal(t, [3]CIDR{}, (&Input{Shoot: &gardencorev1beta1.Shoot{}}).ShootNetworks(), "a shoot without networking")
}
