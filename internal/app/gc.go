package app

import (
	"os"
	"runtime/debug"
)

// MetricsPathGCPercent is the garbage collector's target (GOGC) of the two ends of a metrics
// list: the adapter and the autoscaler. Their live heaps are small, tens of megabytes, and
// every list over a thousand seeds leaves a megabyte or more of garbage, so with Go's
// default of 100 they collect every few lists. At 400 they collect
// a quarter as often, for a heap up to five times the live one: a list of 1,000 seeds cost
// the autoscaler 42% less CPU and the adapter 16% less (docs/performance.md, "Garbage
// collection, compression and caching"). GOMEMLIMIT, which the chart sets to the container's memory limit, still makes
// the runtime collect harder before the heap outgrows the limit. The exporter keeps Go's
// default: its live heap grows with the shoots (~50 MiB at 100,000), and at 400 it could
// reach five times that, past its budget of 300 MiB.
const MetricsPathGCPercent = 400

// SetGCPercent sets the garbage collector's target to percent, unless the GOGC environment
// variable sets one: an operator's GOGC always wins. It returns the target in effect.
func SetGCPercent(percent int) int {
	if os.Getenv("GOGC") != "" {
		return GCPercent()
	}
	debug.SetGCPercent(percent)
	return percent
}

// GCPercent is the garbage collector's target in effect. The runtime tells it only to a
// caller that sets another, so it is set and put back at once.
func GCPercent() int {
	percent := debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent
}
