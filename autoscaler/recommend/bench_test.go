package recommend

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkDecide is one decision over a set of n seeds with two metrics, pending demand,
// a few seeds without metrics and a full stabilization history.
func BenchmarkDecide(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("seeds=%d", n), func(b *testing.B) {
			shoots := make([]Seed, n)
			backups := make([]Seed, n)
			for i := range shoots {
				shoots[i] = Seed{Name: fmt.Sprintf("seed-%d", i), Ready: i%50 != 0, Allocatable: 250, Usage: float64(100 + i%150), HasUsage: i%97 != 0}
				backups[i] = Seed{Name: shoots[i].Name, Ready: true, Allocatable: 10, Usage: float64(i % 10), HasUsage: true}
			}
			in := Input{
				Now: t0, CurrentReplicas: int32(n), MinReplicas: 1, MaxReplicas: int32(2 * n),
				Behavior: BehaviorFromSpec(nil),
				Metrics: []Metric{
					{Key: "resource/shoots", Resource: "shoots", Target: Target{UtilizationPercent: 60}, Seeds: shoots},
					{Key: "resource/backups", Resource: "backups", Target: Target{AverageValue: 5}, Seeds: backups},
				},
				Demand:            Demand{Pending: 40, PendingKnown: true, Seeds: shoots, Target: Target{UtilizationPercent: 60}},
				RemovableReplicas: int32(n / 10),
			}
			for i := range 20 {
				in.Recommendations = append(in.Recommendations, Recommendation{At: t0.Add(-time.Duration(i) * 15 * time.Second), Replicas: int32(n + i)})
				in.ScaleEvents = append(in.ScaleEvents, ScaleEvent{At: t0.Add(-time.Duration(i) * time.Second), Change: 1})
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = Decide(in)
			}
		})
	}
}
