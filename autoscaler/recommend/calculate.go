package recommend

import (
	"fmt"
	"math"
)

// DefaultTolerance is the relative deviation from the target that causes no scaling.
const DefaultTolerance = 0.1

// Tolerances are the per-direction tolerances of KEP-4951.
type Tolerances struct {
	Up, Down float64
}

// within says whether a usage ratio causes no scaling.
func (t Tolerances) within(ratio float64) bool {
	return 1-t.Down <= ratio && ratio <= 1+t.Up
}

// ceilReplicas rounds a replica count up, ignoring floating-point noise below 1e-9 so that
// 2.0000000000000004 seeds are 2, not 3.
func ceilReplicas(x float64) int32 {
	if x <= 0 {
		return 0
	}
	c := math.Ceil(x - 1e-9)
	if c > math.MaxInt32 {
		return math.MaxInt32
	}
	return int32(c)
}

// targetPerSeed is the usage a seed with the given allocatable has at the target.
func (t Target) perSeed(allocatable float64) float64 {
	if t.AverageValue > 0 {
		return t.AverageValue
	}
	return allocatable * float64(t.UtilizationPercent) / 100
}

// PerSeed is the usage a seed with the given allocatable has at the target.
func (t Target) PerSeed(allocatable float64) float64 { return t.perSeed(allocatable) }

// usageWhenMissing is what a seed without a metric counts as on a scale-in: full, or the
// target when the target is above 100% (HPA's rule for missing pods).
func (t Target) usageWhenMissing(allocatable float64) float64 {
	if t.AverageValue > 0 {
		return t.AverageValue
	}
	return allocatable * math.Max(100, float64(t.UtilizationPercent)) / 100
}

// String renders the target as in kubectl's TARGETS column: "50%" or "100".
func (t Target) String() string {
	if t.AverageValue > 0 {
		return formatValue(t.AverageValue)
	}
	return fmt.Sprintf("%d%%", t.UtilizationPercent)
}

func formatValue(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.3g", v)
}

// Calculation is the outcome of the replica calculation for one metric.
type Calculation struct {
	// Replicas proposed.
	Replicas int32
	// UsageRatio is usage over usage at the target, over the measured seeds (before the
	// missing seeds are accounted for).
	UsageRatio float64
	// Usage is the sum over the measured seeds and the unready seeds with a sample;
	// Allocatable the sum over the measured seeds only.
	Usage, Allocatable float64
	// Measured, Missing and Ignored count seeds: with a metric and ready, ready without a
	// metric, and unready or without allocatable (their shoots count, their capacity not).
	// Seeds being deleted are in none of them.
	Measured, Missing, Ignored int
}

// ErrNoMeasurableSeed says that none of the target's seeds is ready with a known usage.
type ErrNoMeasurableSeed struct{ Seeds, Missing, Ignored int }

func (e *ErrNoMeasurableSeed) Error() string {
	return fmt.Sprintf("none of the %d seeds is ready with a usage metric (%d without a metric, %d not ready or without allocatable)",
		e.Seeds, e.Missing, e.Ignored)
}

// CalculateReplicas is the HPA replica calculation over seeds. The usage ratio is the usage
// of the seeds over the usage at the target of the ready, measured ones (Σusage/Σallocatable
// over the target utilization, or Σusage over averageValue per seed); within the tolerance
// the current replicas stay. Shoots on an unready seed count as usage, but its capacity is
// unavailable; a seed being deleted counts not at all. Seeds without a metric count as full
// on a scale-in and as empty on a scale-out; when that reverses the direction or brings the
// ratio within the tolerance, the current replicas stay.
func CalculateReplicas(current int32, seeds []Seed, target Target, tol Tolerances) (Calculation, error) {
	var (
		c                      Calculation
		usage, atTarget        float64
		missing                []Seed
		measuredUsageAtMissing float64
	)
	for _, s := range seeds {
		switch {
		case s.Deleting:
			// On its way out, as HPA ignores pods being deleted: neither its usage nor its
			// capacity says anything about the replicas to come.
			continue
		case !s.Ready || (target.AverageValue <= 0 && s.Allocatable <= 0):
			// HPA leaves unready pods out (CPU of a starting pod says little). The shoots
			// on a NotReady seed are real and stay there: what is unavailable is the seed's
			// room for more.
			c.Ignored++
			if s.HasUsage {
				usage += s.Usage
			}
		case !s.HasUsage:
			missing = append(missing, s)
		default:
			c.Measured++
			usage += s.Usage
			c.Allocatable += s.Allocatable
			atTarget += target.perSeed(s.Allocatable)
		}
	}
	c.Usage, c.Missing = usage, len(missing)
	if c.Measured == 0 {
		return c, &ErrNoMeasurableSeed{Seeds: c.Missing + c.Ignored, Missing: c.Missing, Ignored: c.Ignored}
	}
	ratio := usage / atTarget
	c.UsageRatio = ratio

	if len(missing) == 0 {
		if tol.within(ratio) {
			c.Replicas = current
			return c, nil
		}
		c.Replicas = sameDirection(current, ratio, ceilReplicas(usage*float64(c.Measured)/atTarget))
		return c, nil
	}

	counted := c.Measured
	newUsage, newAtTarget := usage, atTarget
	if ratio != 1 {
		// At exactly the target, seeds without a metric change nothing (HPA).
		for _, s := range missing {
			counted++
			newAtTarget += target.perSeed(s.Allocatable)
			if ratio < 1 {
				measuredUsageAtMissing += target.usageWhenMissing(s.Allocatable)
			}
		}
	}
	newUsage += measuredUsageAtMissing
	newRatio := newUsage / newAtTarget
	if tol.within(newRatio) || (ratio < 1 && newRatio > 1) || (ratio > 1 && newRatio < 1) {
		c.Replicas = current
		return c, nil
	}
	c.Replicas = sameDirection(current, newRatio, ceilReplicas(newUsage*float64(counted)/newAtTarget))
	return c, nil
}

// sameDirection keeps a proposal from contradicting the ratio it came from: usage below the
// target never scales out, usage above it never scales in. They disagree when more seeds
// are measured than the target has replicas, as while a scale-in is under way.
func sameDirection(current int32, ratio float64, replicas int32) int32 {
	if (ratio < 1 && replicas > current) || (ratio > 1 && replicas < current) {
		return current
	}
	return replicas
}

// PendingReplicas is the replicas the target needs for its pending shoots. A pending shoot
// fits no seed of the target, so the headroom of its seeds cannot take it: it needs a new
// replica, sized at the target of a new seed's allocatable (the set's, as the scheduler
// sized the pending-fit; else the average of the ready seeds). Replicas that host no shoot
// yet (not registered, not Ready, or empty) take pending shoots as soon as the scheduler
// retries them, and so do the new replicas that seeds above their target ask for; hence
// the larger of
//
//	current + ceil(pending / per new seed at target) − replicas without shoots
//	ceil((Σusage + pending) / per new seed at target)
//
// It returns ok=false when the allocatable per new seed is unknown; replicas then asks for
// one new replica unless one without shoots is there already.
func PendingReplicas(d Demand, current int32) (replicas int32, allocatablePerSeed float64, ok bool) {
	var allocatable, usage float64
	ready, hosting := 0, int32(0)
	for _, s := range d.Seeds {
		if s.Deleting {
			continue
		}
		if s.Ready && s.Allocatable > 0 {
			ready++
			allocatable += s.Allocatable
		}
		if s.HasUsage {
			usage += s.Usage
		}
		empty := (s.HasUsage && s.Usage == 0) || (!s.HasUsage && !s.Ready)
		if !empty {
			hosting++
		}
	}
	withoutShoots := max(0, current-hosting)
	perSeed := d.AllocatablePerSeed
	if perSeed <= 0 && ready > 0 {
		perSeed = allocatable / float64(ready)
	}
	atTarget := d.Target.perSeed(perSeed)
	if atTarget <= 0 {
		return current + max(0, 1-withoutShoots), perSeed, false
	}
	newSeeds := current + max(0, ceilReplicas(d.Pending/atTarget)-withoutShoots)
	return max(newSeeds, ceilReplicas((usage+d.Pending)/atTarget)), perSeed, true
}
