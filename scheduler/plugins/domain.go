package plugins

import (
	"strings"

	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/framework"
)

// Domain keeps, for a shoot whose spec.dns.domain is below a default domain some seed
// serves (Input.UsesDefaultDomain), the seeds that serve it there: a seed with a default
// domain d (spec.dns.defaults) the shoot's domain is named under as <shoot>.<project>.<d>.
// A shoot with its own domain, or none, goes to any seed.
type Domain struct{}

// Name is the plugin's name in configurations, events and metrics.
func (Domain) Name() string { return "Domain" }

// Filter implements framework.FilterPlugin: nil when seed passes, else why not.
func (Domain) Filter(in *framework.Input, seed *framework.SeedInfo) *framework.Status {
	domain := shootDomain(in.Shoot)
	if domain == "" || !in.UsesDefaultDomain {
		return nil
	}
	defaults := defaultDomains(seed.Seed)
	for _, d := range defaults {
		if servesUnder(in.Shoot, domain, d) {
			return nil
		}
	}
	return framework.Reject(ReasonDomainNotServed, "serves no default domain the shoot's domain %s is named under as <shoot>.<project>.<default domain> (the seed's spec.dns.defaults: [%s])",
		domain, strings.Join(defaults, ", "))
}

// UsesDefaultDomain says whether the shoot's spec.dns.domain is below a default domain one
// of the seeds serves (Input.UsesDefaultDomain). Gardener's scheduler asks this of the seeds
// left by its earlier filters; seedscaler asks it of every seed it knows, so that a shoot
// under a default domain never lands on a seed that does not serve it.
func UsesDefaultDomain(shoot *gardencorev1beta1.Shoot, seeds []*framework.SeedInfo) bool {
	domain := shootDomain(shoot)
	if domain == "" {
		return false
	}
	for _, seed := range seeds {
		for _, d := range defaultDomains(seed.Seed) {
			if strings.HasSuffix(domain, "."+d) {
				return true
			}
		}
	}
	return false
}

// servesUnder says whether a shoot's domain is <shoot>.<project>.<d>. The project is not
// known here (seedscaler has no Project kind): any single DNS label counts, since
// gardener-apiserver admits a shoot under a default domain only with its project's name there.
func servesUnder(shoot *gardencorev1beta1.Shoot, domain, d string) bool {
	rest, ok := strings.CutSuffix(domain, "."+d)
	if !ok {
		return false
	}
	project, ok := strings.CutPrefix(rest, shoot.Name+".")
	return ok && project != "" && !strings.Contains(project, ".")
}

func shootDomain(shoot *gardencorev1beta1.Shoot) string {
	if shoot.Spec.DNS == nil {
		return ""
	}
	return ptr.Deref(shoot.Spec.DNS.Domain, "")
}

// defaultDomains are the domains of a seed's spec.dns.defaults, in order.
func defaultDomains(seed *gardencorev1beta1.Seed) []string {
	if seed.Spec.DNS == nil {
		return nil
	}
	out := make([]string, len(seed.Spec.DNS.Defaults))
	for i, d := range seed.Spec.DNS.Defaults {
		out[i] = d.Domain
	}
	return out
}

// internalDomain is the domain of a seed's spec.dns.internal; empty without one.
func internalDomain(seed *gardencorev1beta1.Seed) string {
	if seed.Spec.DNS == nil || seed.Spec.DNS.Internal == nil {
		return ""
	}
	return seed.Spec.DNS.Internal.Domain
}
