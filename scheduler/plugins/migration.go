package plugins

import (
	"slices"
	"strings"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/framework"
)

// Migration keeps, for a shoot whose control plane moves from another seed
// (Input.MigratingFrom), the seeds gardener-apiserver lets it move to: both seeds have a
// backup (the control plane's etcd is restored from it), both have the same internal
// domain, and a shoot under a default domain of the seed it leaves goes only to a seed that
// serves that default domain too. A first placement passes.
type Migration struct{}

// Name is the plugin's name in configurations, events and metrics.
func (Migration) Name() string { return "Migration" }

// Filter implements framework.FilterPlugin: nil when seed passes, else why not.
func (Migration) Filter(in *framework.Input, seed *framework.SeedInfo) *framework.Status {
	from := in.MigratingFrom
	if from == nil || from.Name == seed.Name {
		return nil
	}
	if from.Spec.Backup == nil {
		return framework.Reject(ReasonMigrationWithoutBackup, "the shoot's control plane cannot leave seed %s: it has no spec.backup to restore the control plane from", from.Name)
	}
	if seed.Spec.Backup == nil {
		return framework.Reject(ReasonMigrationWithoutBackup, "has no spec.backup, which a control plane moving from seed %s needs", from.Name)
	}
	if old, seedDomain := internalDomain(from), internalDomain(seed.Seed); old != seedDomain {
		return framework.Reject(ReasonInternalDomainMismatch, "its internal domain (spec.dns.internal) is %s, that of seed %s, which the shoot's control plane leaves, %s: a control plane moves only between seeds of the same internal domain",
			orNone(seedDomain), from.Name, orNone(old))
	}
	domain := shootDomain(in.Shoot)
	if domain == "" {
		return nil
	}
	for _, d := range defaultDomains(from) {
		if !strings.HasSuffix(domain, "."+d) {
			continue
		}
		// Gardener checks the first default domain of the old seed the shoot is below.
		if defaults := defaultDomains(seed.Seed); !slices.Contains(defaults, d) {
			return framework.Reject(ReasonDefaultDomainMismatch, "does not serve the default domain %s of the shoot's domain %s, which seed %s serves (the seed's spec.dns.defaults: [%s])",
				d, domain, from.Name, strings.Join(defaults, ", "))
		}
		return nil
	}
	return nil
}

func orNone(domain string) string {
	if domain == "" {
		return "none"
	}
	return domain
}

// MigrationDistance keeps, for a control plane a drain moves (Input.LimitMigrationDistance),
// the seeds whose region is within the distance threshold of the region of the seed it
// leaves, as gardener-apiserver judges a live control plane migration: the distance of the
// region config of the shoot's cloud profile from the old seed's region to the new seed's,
// against the config's threshold (migration.gardener.cloud/inter-region-distance-threshold,
// 180 by default). A seed in the same region, a region the config gives no distance for and
// a shoot annotated migration.gardener.cloud/allow-distant-regions=true pass: only measured
// distances are judged.
type MigrationDistance struct{}

// Name is the plugin's name in configurations, events and metrics.
func (MigrationDistance) Name() string { return "MigrationDistance" }

// Filter implements framework.FilterPlugin: nil when seed passes, else why not.
func (MigrationDistance) Filter(in *framework.Input, seed *framework.SeedInfo) *framework.Status {
	from := in.MigratingFrom
	if !in.LimitMigrationDistance || from == nil || from.Name == seed.Name || in.RegionConfig == nil ||
		from.Spec.Provider.Region == seed.Spec.Provider.Region || in.Shoot.Annotations[gardencorev1beta1.AnnotationAllowDistantRegions] == "true" {
		return nil
	}
	threshold, err := in.RegionConfig.Threshold()
	if err != nil {
		return framework.Reject(ReasonMigrationTooFar, "%v: a control plane leaves seed %s for another region only within the threshold", err, from.Name)
	}
	table, err := in.RegionConfig.Distances(from.Spec.Provider.Region)
	if err != nil {
		return framework.Reject(ReasonMigrationTooFar, "%v", err)
	}
	d, ok := table[seed.Spec.Provider.Region]
	if !ok || d <= threshold {
		return nil
	}
	return framework.Reject(ReasonMigrationTooFar,
		"region %s is at distance %d from region %s of seed %s, which the control plane leaves: farther than the threshold %d of region config %s "+
			"(annotate the shoot %s=true to allow it)",
		seed.Spec.Provider.Region, d, from.Spec.Provider.Region, from.Name, threshold, in.RegionConfig.Source, gardencorev1beta1.AnnotationAllowDistantRegions)
}
