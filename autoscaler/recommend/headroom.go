package recommend

import (
	"fmt"
	"math"
)

// HeadroomResult is what a headroom of free shoot slots asks for.
type HeadroomResult struct {
	// Known is false when the free slots or the size of a seed are unknown; then Replicas
	// proposes nothing.
	Known bool
	// Replicas is the fewest replicas that keep the headroom free.
	Replicas int32
	// Free is the free shoot slots across the ready seeds with a usage sample.
	Free float64
	// Message says how Replicas follows from the free slots, or why it is unknown.
	Message string
}

// HeadroomReplicas is the fewest replicas that keep headroom shoot slots free across the
// target's ready seeds: a utilization target is a share, and a burst of shoots created at
// once needs a count. Each ready seed offers its allocatable less its shoots; each replica
// added or removed counts as a new replica's allocatable (the size pending-fit uses, else
// the average of the ready seeds), so
//
//	replicas = ready seeds + ceil((headroom − free) / allocatable per new seed)
//
// which is below the ready seeds when they have slots to spare. Replicas whose seed is not
// ready yet count neither way: a seed that bootstraps does not ask for another. A ready
// seed without a usage sample counts as HPA counts a pod without metrics, so that it never
// causes a change: as empty when the headroom asks for more replicas than the current ones,
// as full when it asks for fewer; otherwise the current replicas stay.
func HeadroomReplicas(d Demand, current int32, headroom float64) HeadroomResult {
	var ready, measured int
	var free, allocatable, unmeasured float64
	for _, s := range d.Seeds {
		if s.Deleting || !s.Ready || s.Allocatable <= 0 {
			continue
		}
		ready++
		allocatable += s.Allocatable
		if !s.HasUsage {
			unmeasured += s.Allocatable
			continue
		}
		measured++
		free += math.Max(0, s.Allocatable-s.Usage)
	}
	perSeed := d.AllocatablePerSeed
	if perSeed <= 0 && ready > 0 {
		perSeed = allocatable / float64(ready)
	}
	switch {
	case perSeed <= 0:
		return HeadroomResult{Message: fmt.Sprintf("a headroom of %g shoots asks for nothing: the allocatable shoots of a new seed are unknown (%s)",
			headroom, orDefault(d.AllocatableSource, "no ready seed to measure, no capacity annotation, no template resources"))}
	case ready > 0 && measured == 0:
		return HeadroomResult{Message: fmt.Sprintf("a headroom of %g shoots asks for nothing: none of the %d ready seeds has a usage sample", headroom, ready)}
	}

	replicasFor := func(free float64) int32 {
		return max(0, int32(ready)+int32(math.Ceil((headroom-free)/perSeed-1e-9)))
	}
	full, empty := replicasFor(free), replicasFor(free+unmeasured)
	r := HeadroomResult{Known: true, Free: free, Replicas: current}
	switch {
	case empty > current:
		r.Replicas = empty
	case full < current:
		r.Replicas = full
	}
	r.Message = fmt.Sprintf("a headroom of %g shoots needs %d replicas: %g free on %d ready seeds, %g shoots per seed added or removed",
		headroom, r.Replicas, free, ready, perSeed)
	if unmeasured > 0 {
		r.Message += fmt.Sprintf("; %d ready seeds without a usage sample count as empty on a scale-out, as full on a scale-in", ready-measured)
	}
	return r
}
