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

func TestStatusNetworksAreParsedOncePerInput(t *testing.T) {
	shoot := &gardencorev1beta1.Shoot{}
	assert.Nil(t, (&Input{Shoot: shoot}).StatusNetworks(), "a shoot without status.networking")
	shoot.Status.Networking = &gardencorev1beta1.NetworkingStatus{Nodes: []string{"10.250.0.0/16", "2001:db8::/64"}, Services: []string{"100.64.0.0/13"}}
	in := &Input{Shoot: shoot}
	want := &[3][]CIDR{
		{ParseCIDR("10.250.0.0/16"), ParseCIDR("2001:db8::/64")},
		nil,
		{ParseCIDR("100.64.0.0/13")},
	}
	assert.Equal(t, want, in.StatusNetworks())
	shoot.Status.Networking.Pods = []string{"100.96.0.0/11"}
	assert.Equal(t, want, in.StatusNetworks(), "parsed on the first call, for the rest of the decision")
}

func TestCIDRFamily(t *testing.T) {
	cases := []struct {
		text       string
		ipv4, ipv6 bool
	}{
		{"10.0.0.0/8", true, false},
		{"2001:db8::/32", false, true},
		{"::ffff:10.0.0.0/104", true, false}, // IPv4-mapped: IPv4, as Gardener counts it
		{"", false, false},
		{"bogus", false, false},
	}
	for _, c := range cases {
		n := ParseCIDR(c.text)
		assert.Equal(t, c.ipv4, n.IPv4(), "%q IPv4", c.text)
		assert.Equal(t, c.ipv6, n.IPv6(), "%q IPv6", c.text)
	}
}

type rejectAll struct{ name string }

func (r rejectAll) Name() string { return r.name }
func (r rejectAll) Filter(*Input, *SeedInfo) *Status {
	return Reject(Reason(r.name), "rejected")
}

// preferOnly keeps the named seed when it is among the seeds, as a preference keeps what it
// prefers.
type preferOnly struct{ seed string }

func (preferOnly) Name() string { return "PreferOnly" }
func (p preferOnly) Prefer(_ *Input, seeds []*SeedInfo) []*Status {
	out := make([]*Status, len(seeds))
	for i, s := range seeds {
		if s.Name != p.seed {
			out[i] = Reject("NotPreferred", "not %s", p.seed)
		}
	}
	return out
}

// Preferences narrow the seeds that passed the filters, before the strategy, and their
// rejections are ordered between the filters' and the strategy's.
func TestPreferencesNarrowTheFeasibleSeeds(t *testing.T) {
	seed := func(name string) *SeedInfo {
		return &SeedInfo{Seed: &gardencorev1beta1.Seed{ObjectMeta: metav1.ObjectMeta{Name: name}}}
	}
	p := &Profile{Preferences: []PreferencePlugin{preferOnly{"b"}}}
	in := &Input{Shoot: &gardencorev1beta1.Shoot{}, Usage: func(*SeedInfo) int { return 0 }}
	res := p.Schedule(in, []*SeedInfo{seed("a"), seed("b")})
	require.NotNil(t, res.Seed)
	assert.Equal(t, "b", res.Seed.Name, "a would win the tie by name, but the preference drops it")
	require.Len(t, res.Rejections, 1)
	assert.Equal(t, Rejection{Seed: "a", Plugin: "PreferOnly", Stage: 0, Status: Status{Reason: "NotPreferred", Message: "not b"}}, res.Rejections[0])
	assert.Equal(t, []*SeedInfo{seed("b")}, p.Prefer(in, []*SeedInfo{seed("a"), seed("b")}))

	p.Filters = []FilterPlugin{rejectAll{"Nothing"}}
	res = p.Schedule(in, []*SeedInfo{seed("a")})
	assert.Nil(t, res.Seed)
	assert.Equal(t, "0/1 seeds are available:\nNothing: 1 seed(s): rejected (a)", res.Message(), "no preference runs on no seeds")
}
