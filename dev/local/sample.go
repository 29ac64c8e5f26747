package local

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler/forecast"
	"github.com/seedscaler/seedscaler/internal/membership"
)

// Sample is the state of the landscape at one moment of a local run.
type Sample struct {
	// Elapsed is the wall time since the run started.
	Elapsed time.Duration
	// Demand is the number of tenant shoots (shoots that are not a ManagedSeedSet's replica).
	Demand int
	// Bound is the number of tenant shoots with a seed; Pending those without.
	Bound, Pending int
	// Seeds is the number of seeds with an allocatable shoot count; SeedsReady those of them
	// whose GardenletReady is True.
	Seeds, SeedsReady int
	// Allocatable is Σ allocatable shoots over ready seeds; Usage is Σ shoots on them.
	Allocatable, Usage int64
	// Overcommitted counts seeds holding more shoots than they can take (must stay 0).
	Overcommitted int
	// Replicas and DesiredReplicas of the watched ManagedSeedSet and its SeedAutoscaler.
	Replicas, DesiredReplicas int32
	// TargetUtilization of the SeedAutoscaler's first metric, in percent (0 if none).
	TargetUtilization int32
	// Targets is the SeedAutoscaler's TARGETS column, e.g. "45%/70%".
	Targets string
	// ScalingActive is the status of the SeedAutoscaler's ScalingActive condition.
	ScalingActive string
	// Ahead is what became of the SeedAutoscaler's forecast (status.scaleAhead.reason, its
	// AHEAD column), empty without scale-ahead; ForecastReplicas the replicas the forecast
	// asked for, 0 when it asked for none.
	Ahead            string
	ForecastReplicas int32
	// ScaledOutAhead counts the SeedAutoscaler's ScaledOutAhead events so far: the
	// scale-outs its forecast drove ahead of the reactive decision.
	ScaledOutAhead int
}

// Utilization is Usage / Allocatable over ready seeds, 0 without allocatable.
func (s Sample) Utilization() float64 {
	if s.Allocatable == 0 {
		return 0
	}
	return float64(s.Usage) / float64(s.Allocatable)
}

// takeSample computes a Sample from the objects of the landscape. counts are the shoots per
// seed (internal/usage). It takes no client and no clock.
func takeSample(elapsed time.Duration, shoots []gardencorev1beta1.Shoot, seeds []gardencorev1beta1.Seed,
	counts map[string]int, set *seedmanagementv1alpha1.ManagedSeedSet, sa *autoscalingv1alpha1.SeedAutoscaler) Sample {
	s := Sample{Elapsed: elapsed}
	for i := range shoots {
		if membership.IsReplica(&shoots[i]) {
			continue
		}
		s.Demand++
		if shoots[i].Spec.SeedName != nil && *shoots[i].Spec.SeedName != "" {
			s.Bound++
		} else {
			s.Pending++
		}
	}
	for i := range seeds {
		alloc, ok := seeds[i].Status.Allocatable[gardencorev1beta1.ResourceShoots]
		if !ok {
			continue // a seed without allocatable (the demo's root seed) takes any number
		}
		s.Seeds++
		used := int64(counts[seeds[i].Name])
		if used > alloc.Value() {
			s.Overcommitted++
		}
		if meta.IsStatusConditionTrue(seeds[i].Status.Conditions, gardencorev1beta1.SeedGardenletReady) {
			s.SeedsReady++
			s.Allocatable += alloc.Value()
			s.Usage += used
		}
	}
	if set != nil {
		s.Replicas = set.Status.Replicas
	}
	if sa != nil {
		s.DesiredReplicas = sa.Status.DesiredReplicas
		s.Targets = sa.Status.Targets
		if len(sa.Spec.Metrics) > 0 && sa.Spec.Metrics[0].Resource != nil && sa.Spec.Metrics[0].Resource.Target.AverageUtilization != nil {
			s.TargetUtilization = *sa.Spec.Metrics[0].Resource.Target.AverageUtilization
		}
		if c := meta.FindStatusCondition(sa.Status.Conditions, autoscalingv1alpha1.SeedAutoscalerScalingActive); c != nil {
			s.ScalingActive = string(c.Status)
		}
		if ahead := sa.Status.ScaleAhead; ahead != nil {
			s.Ahead = string(ahead.Reason)
			s.ForecastReplicas = ptr.Deref(ahead.ForecastReplicas, 0)
		}
	}
	return s
}

// countScaledOutAhead counts the ScaledOutAhead events regarding the SeedAutoscaler sa; an
// event repeated as a series counts each time.
func countScaledOutAhead(evs []eventsv1.Event, sa *autoscalingv1alpha1.SeedAutoscaler) int {
	n := 0
	for i := range evs {
		ev := &evs[i]
		if ev.Reason != string(forecast.ReasonScaledOutAhead) || ev.Regarding.Kind != "SeedAutoscaler" ||
			ev.Regarding.Namespace != sa.Namespace || ev.Regarding.Name != sa.Name {
			continue
		}
		n++
		if ev.Series != nil && ev.Series.Count > 1 {
			n += int(ev.Series.Count) - 1
		}
	}
	return n
}

// waitTracker measures how long tenant shoots waited for a seed: from creation to the first
// sample that saw them bound (so at the sampling interval's resolution).
type waitTracker struct {
	seen  map[string]bool
	waits []time.Duration
}

func newWaitTracker() *waitTracker { return &waitTracker{seen: map[string]bool{}} }

func (w *waitTracker) observe(now time.Time, shoots []gardencorev1beta1.Shoot) {
	for i := range shoots {
		sh := &shoots[i]
		if membership.IsReplica(sh) || sh.Spec.SeedName == nil || *sh.Spec.SeedName == "" || w.seen[string(sh.UID)] {
			continue
		}
		w.seen[string(sh.UID)] = true
		wait := now.Sub(sh.CreationTimestamp.Time)
		if wait < 0 {
			wait = 0
		}
		w.waits = append(w.waits, wait)
	}
}

// scaleEvent is a change of the watched set's desired replicas.
type scaleEvent struct {
	Elapsed  time.Duration
	From, To int32
}

func (e scaleEvent) String() string {
	return fmt.Sprintf("%d → %d at %s", e.From, e.To, e.Elapsed.Truncate(time.Second))
}

// renderView renders the live view: the current state and the recent samples as a table.
func renderView(header []string, samples []Sample, events []scaleEvent, rows int) string {
	var b strings.Builder
	for _, h := range header {
		b.WriteString(h + "\n")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "%8s %7s %6s %8s %11s %17s %9s %7s %8s %-14s %5s\n",
		"TIME", "DEMAND", "BOUND", "PENDING", "SEEDS READY", "UTILIZATION/TARGET", "REPLICAS", "DESIRED", "FORECAST", "AHEAD", "OVER")
	start := 0
	if len(samples) > rows {
		start = len(samples) - rows
	}
	for _, s := range samples[start:] {
		target := "-"
		if s.TargetUtilization > 0 {
			target = fmt.Sprintf("%d%%", s.TargetUtilization)
		}
		forecastReplicas, ahead := "-", "-"
		if s.ForecastReplicas > 0 {
			forecastReplicas = strconv.Itoa(int(s.ForecastReplicas))
		}
		if s.Ahead != "" {
			ahead = s.Ahead
		}
		fmt.Fprintf(&b, "%8s %7d %6d %8d %5d/%-5d %11s %9d %7d %8s %-14s %5d\n",
			s.Elapsed.Truncate(time.Second), s.Demand, s.Bound, s.Pending, s.SeedsReady, s.Seeds,
			fmt.Sprintf("%.0f%%/%s", 100*s.Utilization(), target), s.Replicas, s.DesiredReplicas,
			forecastReplicas, ahead, s.Overcommitted)
	}
	last, ahead := "none yet", 0
	if len(events) > 0 {
		last = events[len(events)-1].String()
	}
	if len(samples) > 0 {
		ahead = samples[len(samples)-1].ScaledOutAhead
	}
	fmt.Fprintf(&b, "\nlast scale event: %s   scale events: %d   scaled out ahead of demand: %d\n", last, len(events), ahead)
	return b.String()
}

// sortedWaits returns the waits sorted ascending.
func sortedWaits(waits []time.Duration) []time.Duration {
	out := append([]time.Duration(nil), waits...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
