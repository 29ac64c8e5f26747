package plugins

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/framework"
)

// Networks keeps seeds whose networks the shoot's can live with across the VPN between
// seed and shoot, as gardener-scheduler judges them since Gardener v1.125: IPv4 networks of
// shoot and seed may overlap (the VPN maps them into reserved ranges), an IPv6 network of
// the shoot must be disjoint from the seed's node, pod and service networks, and no
// network of the shoot may reach into the ranges the VPN reserves. The shoot's networks
// are those of spec.networking; a pod network it leaves empty is the seed's shoot default
// when the shoot has workers, a service network the seed's shoot default, either only when
// the default's IP family is among the shoot's ipFamilies (IPv4 when it names none). A
// shoot that reports status.networking (its cluster exists) is judged by those networks
// too, and must report a service network and, with workers, a pod network.
type Networks struct{}

// Name is the plugin's name in configurations, events and metrics.
func (Networks) Name() string { return "Networks" }

// Filter implements framework.FilterPlugin: nil when seed passes, else why not.
func (Networks) Filter(in *framework.Input, seed *framework.SeedInfo) *framework.Status {
	// This runs for every seed of every decision: the shoot's networks are parsed once per
	// decision, the seed's once per version of the seed.
	shoot := in.ShootNetworks()
	workerless := len(in.Shoot.Spec.Provider.Workers) == 0
	if pods := seed.ShootDefaults[0]; shoot[1].Text == "" && !workerless && inFamilies(in.Shoot, pods) {
		shoot[1] = pods
	}
	if services := seed.ShootDefaults[1]; shoot[2].Text == "" && inFamilies(in.Shoot, services) {
		shoot[2] = services
	}
	var problems []string
	for _, i := range checkOrder {
		problems = appendOverlaps(problems, networkNames[i], shoot[i], seed)
	}
	var missing []string
	if status := in.StatusNetworks(); status != nil {
		for _, i := range checkOrder {
			for _, n := range status[i] {
				problems = appendOverlaps(problems, "status.networking."+networkNames[i], n, seed)
			}
			if required := i == 2 || (i == 1 && !workerless); required && len(status[i]) == 0 {
				missing = append(missing, networkNames[i])
			}
		}
	}
	if len(missing) > 0 {
		return framework.Reject(ReasonShootNetworksMissing, "the shoot's status.networking has no %s network", strings.Join(missing, " and no "))
	}
	if len(problems) > 0 {
		return framework.Reject(ReasonNetworksOverlap, "%s", strings.Join(problems, ", "))
	}
	return nil
}

// networkNames name the networks of a shoot and a seed, in the order of
// Input.ShootNetworks and SeedInfo.Networks.
var networkNames = [3]string{"nodes", "pods", "services"}

// checkOrder is the order in which Gardener checks a shoot's networks: nodes, services, pods.
var checkOrder = [3]int{0, 2, 1}

// seedOrder is the order in which Gardener compares an IPv6 network of a shoot with the
// seed's networks: services, pods, nodes.
var seedOrder = [3]int{2, 1, 0}

// reservedRange is a range the VPN between seed and shoot takes for itself (Gardener's
// DefaultVPNRangeV6 and Reserved*Range constants): no network of a shoot may overlap it.
type reservedRange struct {
	name   string
	prefix netip.Prefix
}

// reservedIPv4 holds every IPv4 range of reservedRanges: a network outside it overlaps none
// of them, which spares the networks filter five checks per network and seed.
var reservedIPv4 = netip.MustParsePrefix("240.0.0.0/4")

var reservedRanges = []reservedRange{
	{"the default VPN network", netip.MustParsePrefix("fd8f:6d53:b97a:1::/96")},
	{"the reserved kube-apiserver mapping range", netip.MustParsePrefix("240.0.0.0/8")},
	{"the reserved seed pod network mapping range", netip.MustParsePrefix("241.0.0.0/8")},
	{"the reserved shoot node network mapping range", netip.MustParsePrefix("242.0.0.0/8")},
	{"the reserved shoot service network mapping range", netip.MustParsePrefix("243.0.0.0/8")},
	{"the reserved shoot pod network mapping range", netip.MustParsePrefix("244.0.0.0/8")},
}

// appendOverlaps appends what a network of the shoot overlaps that it must not: the seed's
// networks when it is IPv6, and the reserved ranges.
func appendOverlaps(problems []string, name string, n framework.CIDR, seed *framework.SeedInfo) []string {
	if !n.Prefix.IsValid() {
		return problems
	}
	if n.IPv6() {
		for _, j := range seedOrder {
			if s := seed.Networks[j]; s.Prefix.IsValid() && n.Prefix.Overlaps(s.Prefix) {
				problems = append(problems, fmt.Sprintf("shoot %s %s overlaps seed %s %s (IPv6 networks must be disjoint)", name, n.Text, networkNames[j], s.Text))
			}
		}
	}
	if n.IPv4() && !n.Prefix.Overlaps(reservedIPv4) {
		return problems
	}
	for _, r := range reservedRanges {
		if n.Prefix.Overlaps(r.prefix) {
			problems = append(problems, fmt.Sprintf("shoot %s %s overlaps %s %s", name, n.Text, r.name, r.prefix))
		}
	}
	return problems
}

// inFamilies says whether a network is valid and of one of the shoot's IP families (IPv4
// when spec.networking.ipFamilies names none).
func inFamilies(shoot *gardencorev1beta1.Shoot, n framework.CIDR) bool {
	if !n.Prefix.IsValid() {
		return false
	}
	family := gardencorev1beta1.IPFamilyIPv4
	if n.IPv6() {
		family = gardencorev1beta1.IPFamilyIPv6
	}
	var families []gardencorev1beta1.IPFamily
	if shoot.Spec.Networking != nil {
		families = shoot.Spec.Networking.IPFamilies
	}
	if len(families) == 0 {
		return family == gardencorev1beta1.IPFamilyIPv4
	}
	return slices.Contains(families, family)
}
