package v1beta1

// Annotations of draining seeds and migrating control planes.
const (
	// AnnotationDrain set to "true" on a Seed, or on the ManagedSeed that registers it,
	// cordons the seed (no new shoots) and migrates its shoots' control planes to other
	// seeds, a few at a time.
	AnnotationDrain = "seedscaler.io/drain"
	// AnnotationDrainReason says why a seed is drained, e.g. "consolidation" when the
	// SeedAutoscaler chose it; informational.
	AnnotationDrainReason = "seedscaler.io/drain-reason"
	// DrainReasonConsolidation is the AnnotationDrainReason of a seed the SeedAutoscaler
	// drains to consolidate its set.
	DrainReasonConsolidation = "consolidation"
	// AnnotationMigration set to "disabled" on a Shoot keeps its control plane where it
	// is: a drain never moves it.
	AnnotationMigration = "seedscaler.io/migration"
	// MigrationDisabled is the AnnotationMigration value that opts a shoot out.
	MigrationDisabled = "disabled"
	// AnnotationMigratedAt on a Shoot is when (RFC 3339) a drain last started to migrate its
	// control plane; consolidation does not move a shoot again within its cool-down.
	AnnotationMigratedAt = "seedscaler.io/migrated-at"
	// AnnotationMigrationWeight on a Shoot is what moving its control plane costs
	// consolidation, a decimal from 0 to 100 ("0.5"), in place of the default: 1, or 0.2 for
	// a highly available control plane.
	AnnotationMigrationWeight = "seedscaler.io/migration-weight"
	// AnnotationAllowDistantRegions set to "true" on a Shoot lets a drain move its control
	// plane farther than the region config's distance threshold (Gardener's annotation for
	// live migrations).
	AnnotationAllowDistantRegions = "migration.gardener.cloud/allow-distant-regions"

	// SeedDrained is the Seed condition a drain reports its progress in: False while
	// shoots remain (reason Draining, or DrainStuck naming the shoots that have nowhere
	// to go), True once no shoot is left (reason DrainComplete).
	SeedDrained = "Drained"
)

// Draining reports whether annotations ask for a drain.
func Draining(annotations map[string]string) bool {
	return annotations[AnnotationDrain] == "true"
}
