// Package stats holds the small statistics the benchmarks report with.
package stats

import (
	"math"
	"time"
)

// Percentile is the nearest-rank percentile of sorted durations: the smallest value that at
// least p (0 to 1) of them do not exceed; 0 without any.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p*float64(len(sorted)) - 1e-9))
	return sorted[min(max(rank, 1), len(sorted))-1]
}
