package plugins

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// networkProblem is one problem of a rejection by the networks filter: the shoot's network
// by name and CIDR, and what it overlaps.
const networkProblem = `shoot (nodes|pods|services) \S+ overlaps [^,]+`

var networkProblems = regexp.MustCompile(`^` + networkProblem + `(, ` + networkProblem + `)*$`)

// FuzzNetworks feeds the networks filter any CIDR text of shoot and seed, as an IPv4 or
// IPv6 shoot, with or without workers: it never panics, and a rejection names every
// network of the shoot it is about and what that overlaps. Text that is no CIDR overlaps
// nothing (the API server validates networks).
func FuzzNetworks(f *testing.F) {
	// The networks of examples/landscape: the seed's, its shoot defaults, and a shoot's.
	f.Add("10.180.0.0/16", "100.128.0.0/11", "100.72.0.0/13", "10.250.0.0/16", "100.96.0.0/11", "100.64.0.0/13", "100.128.0.0/11", "100.72.0.0/13", false, true)
	f.Add("", "240.0.0.0/4", "", "10.250.0.0/16", "100.96.0.0/11", "100.64.0.0/13", "244.0.0.0/16", "243.0.0.0/16", false, true)
	f.Add("2001:db8:1::/48", "", "fd00:10::/108", "2001:db8:2::/48", "2001:db8::/32", "fd00:10::/112", "2001:db8:5::/48", "fd00:10::/120", true, false)
	f.Add("fd8f:6d53:b97a:1::/112", "x", "10.0.0.0/33", "::/0", "0.0.0.0/0", "", "", "", true, true)
	f.Fuzz(func(t *testing.T, nodes, pods, services, seedNodes, seedPods, seedServices, defaultPods, defaultServices string, ipv6, workers bool) {
		shoot := builders.MakeShoot("p", "a")
		if ipv6 {
			shoot.IPFamilies(gardencorev1beta1.IPFamilyIPv6)
		}
		if workers {
			shoot.Worker("w")
		}
		seed := builders.MakeSeed("s").Networks(seedNodes, seedPods, seedServices).ShootDefaults(defaultPods, defaultServices)
		in := &framework.Input{Shoot: shoot.Networks(nodes, pods, services).Obj(), Usage: usageOf(map[string]int{})}
		st := Networks{}.Filter(in, NewSeedInfo(seed.Obj()))
		if st == nil {
			return
		}
		require.Equal(t, ReasonNetworksOverlap, st.Reason)
		assert.Regexp(t, networkProblems, st.Message)
	})
}
