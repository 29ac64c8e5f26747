package autoscaling

import (
	"time"
)

// Point is one minute of a run's timeline.
type Point struct {
	Minute int
	// Demand is the shoots wanted, Pending those without a seed.
	Demand, Pending int
	// Seeds is every seed paid for (provisioning or ready); Capacity the allocatable
	// shoots of the ready ones.
	Seeds, Capacity int
}

// Result is one run's figures.
type Result struct {
	Policy Policy
	// TargetPercent is the target utilization.
	TargetPercent int32
	// ShootMinutesPending is the time shoots spent without a seed, added up.
	ShootMinutesPending float64
	// P50Bind and P99Bind: time from a shoot's creation to its bind, over the shoots
	// created during the run (one still pending at the end counts with its wait so far).
	P50Bind, P99Bind time.Duration
	// SpikeP99Bind and SpikeMaxBind are P99Bind and the longest wait over the SpikeShoots
	// shoots created during the trace's spike.
	SpikeP99Bind, SpikeMaxBind time.Duration
	SpikeShoots                int
	// Headroom is the run's Config.Headroom.
	Headroom int
	// SeedHours is the time seeds existed, provisioning included, added up.
	SeedHours float64
	// OracleSeedHours is what the fewest seeds that hold the demand at every instant cost:
	// ceil(demand / allocatable per seed), provisioned exactly in time.
	OracleSeedHours float64
	// AtTargetSeedHours is what a set held exactly at the target utilization costs: at
	// every instant ceil(demand / (allocatable per seed × target)) seeds, at least one,
	// provisioned exactly in time. Consolidation drains only onto seeds that stay at or
	// below the target, so this is about as low as it can take a set (the autoscaler's
	// tolerance lets a set sit up to 10% above its target).
	AtTargetSeedHours float64
	// ScaleEvents counts the changes of replicas.
	ScaleEvents int
	// Migrations, Drains and CanceledDrains count what consolidation did; Overcommits the
	// times a seed held more than its allocatable (a migrating shoot counts on both seeds);
	// ProtectedMoved the opted-out shoots that were moved. The last two must stay 0.
	Migrations, Drains, CanceledDrains, Overcommits, ProtectedMoved int
	// MigratedWeight is the disruption of the migrations: the sum of the moved shoots'
	// migration weights (recommend.MigrationWeight).
	MigratedWeight float64
	// DrainStarts are when consolidation started each drain, and MigrationStarts each
	// migration, from the start of the run.
	DrainStarts, MigrationStarts []time.Duration
	// AboveNeeds is how long the set kept seeds it did not need: the decision was held back
	// by too few removable seeds (ScalingLimited, TooFewRemovableSeeds), what consolidation
	// waits out and drains away.
	AboveNeeds time.Duration
	// MeanShoots is the mean number of shoots over the run, and Duration its length.
	MeanShoots float64
	Duration   time.Duration
	// Timeline has one point per minute.
	Timeline []Point
}

// SeedHoursOverOracle is SeedHours − OracleSeedHours; below 0 when shoots waited instead.
func (r Result) SeedHoursOverOracle() float64 { return r.SeedHours - r.OracleSeedHours }
