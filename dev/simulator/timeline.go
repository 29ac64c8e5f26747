package simulator

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// Sample is the landscape at one instant of the simulation.
type Sample struct {
	// Elapsed is the simulated time since the start.
	Elapsed time.Duration
	// Wanted is the number of tenant shoots the demand asks for.
	Wanted int
	// Tenants is the number of tenant shoots that exist and are not being deleted.
	Tenants int
	// Shoots is the number of all shoots (tenants' and replicas') not being deleted.
	Shoots int
	// Bound is the number of shoots with spec.seedName set, deleting ones included: they
	// still occupy their seed.
	Bound int
	// Pending is the number of shoots not being deleted that have no seed yet.
	Pending int
	// Failed is the number of shoots whose last operation failed.
	Failed int
	// Seeds and SeedsReady count all seeds and those with GardenletReady True.
	Seeds, SeedsReady int
	// Allocatable is the sum of the allocatable shoots of the ready seeds.
	Allocatable int64
	// Utilization is the share of Allocatable that shoots use: the shoots bound to the ready
	// seeds with allocatable shoots, divided by Allocatable; 0 without allocatable shoots.
	// Shoots on seeds without allocatable shoots (unlimited, such as a root seed) do not count.
	Utilization float64
}

// TakeSample counts a landscape; desired is what the demand wants at elapsed.
func TakeSample(elapsed time.Duration, desired map[string]int, shoots []gardencorev1beta1.Shoot, seeds []gardencorev1beta1.Seed) Sample {
	smp := Sample{Elapsed: elapsed, Wanted: Total(desired), Seeds: len(seeds)}
	perSeed := map[string]int{}
	for i := range shoots {
		sh := &shoots[i]
		bound := sh.Spec.SeedName != nil && *sh.Spec.SeedName != ""
		if bound {
			smp.Bound++
		}
		// Usage as the scheduler and the exporter count it: a migrating shoot on both seeds.
		for _, seed := range usage.SeedNames(sh) {
			perSeed[seed]++
		}
		if op := sh.Status.LastOperation; op != nil && op.State == gardencorev1beta1.LastOperationStateFailed {
			smp.Failed++
		}
		if sh.DeletionTimestamp != nil {
			continue
		}
		smp.Shoots++
		if IsTenant(sh) {
			smp.Tenants++
		}
		if !bound {
			smp.Pending++
		}
	}
	used := 0
	for i := range seeds {
		if !meta.IsStatusConditionTrue(seeds[i].Status.Conditions, gardencorev1beta1.SeedGardenletReady) {
			continue
		}
		smp.SeedsReady++
		if q, ok := seeds[i].Status.Allocatable[gardencorev1beta1.ResourceShoots]; ok {
			smp.Allocatable += q.Value()
			used += perSeed[seeds[i].Name]
		}
	}
	if smp.Allocatable > 0 {
		smp.Utilization = float64(used) / float64(smp.Allocatable)
	}
	return smp
}

// record appends a sample to the timeline and prints its progress line.
func (s *Simulator) record(smp Sample) {
	s.mu.Lock()
	s.timeline = append(s.timeline, smp)
	s.mu.Unlock()
	if s.Progress != nil {
		// Progress lines are for a human watching; a failed write must not stop the run.
		_, _ = fmt.Fprintln(s.Progress, smp.ProgressLine())
	}
}

// Timeline returns a copy of the samples taken so far; safe to call while Run runs.
func (s *Simulator) Timeline() []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sample(nil), s.timeline...)
}

// ProgressLine is the sample as one line for a terminal.
func (smp Sample) ProgressLine() string {
	return fmt.Sprintf("sim %-9s wanted %4d  tenants %4d  bound %4d  pending %4d  failed %3d  seeds ready %3d/%-3d  utilization %5.1f%%",
		smp.Elapsed.Truncate(time.Second), smp.Wanted, smp.Tenants, smp.Bound, smp.Pending, smp.Failed, smp.SeedsReady, smp.Seeds, 100*smp.Utilization)
}

// TimelineColumns returns the columns of the timeline CSV, in order.
func TimelineColumns() []string {
	return []string{"elapsed_seconds", "wanted", "tenants", "shoots", "bound", "pending", "failed",
		"seeds", "seeds_ready", "allocatable", "utilization"}
}

// WriteTimelineCSV writes samples as CSV with a header of TimelineColumns.
func WriteTimelineCSV(w io.Writer, samples []Sample) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(TimelineColumns()); err != nil {
		return err
	}
	for _, smp := range samples {
		row := []string{
			strconv.FormatInt(int64(smp.Elapsed/time.Second), 10),
			strconv.Itoa(smp.Wanted), strconv.Itoa(smp.Tenants), strconv.Itoa(smp.Shoots), strconv.Itoa(smp.Bound),
			strconv.Itoa(smp.Pending), strconv.Itoa(smp.Failed), strconv.Itoa(smp.Seeds), strconv.Itoa(smp.SeedsReady),
			strconv.FormatInt(smp.Allocatable, 10), strconv.FormatFloat(smp.Utilization, 'f', 4, 64),
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
