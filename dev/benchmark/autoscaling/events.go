package autoscaling

import (
	"container/heap"
	"time"
)

// eventKind is what happens at an event. At equal times events happen in the order of
// their kinds below, and events of one kind in the order they were pushed: the end of the
// run first, so nothing at its very end counts, then the trace, the landscape, the loop
// that watches it, the timeline, and the long-lived workload.
type eventKind int

const (
	// eventEnd ends the run.
	eventEnd eventKind = iota
	// eventDemandChange is the next shoot the trace creates or deletes.
	eventDemandChange
	// eventSeedReady is a seed done provisioning.
	eventSeedReady
	// eventScrape is Prometheus sampling usage and pending shoots.
	eventScrape
	// eventDecide is the autoscaler deciding.
	eventDecide
	// eventPoint is a minute of the timeline.
	eventPoint
	// eventArrive is a long-lived workload's shoot being created.
	eventArrive
	// eventExpire is a long-lived workload's shoot reaching the end of its lifetime.
	eventExpire
	// eventMigrated is the end of a shoot's control plane migration.
	eventMigrated
)

// event is one thing that happens at a time of the simulated clock, with what it
// happens to.
type event struct {
	at   time.Duration
	kind eventKind
	// every is the period of a recurring event (scrape, decision, timeline point).
	every time.Duration
	// minute and change are the trace's minute and the change within it
	// (eventDemandChange).
	minute, change int
	// seed becomes ready (eventSeedReady).
	seed *seed
	// shoot expires or ends its migration (eventExpire, eventMigrated).
	shoot *shoot
	// arrival is the shoot to create (eventArrive).
	arrival arrival
	// seq is when the event was pushed: the tie-break of events of one kind at one time.
	seq uint64
}

// eventQueue is the run's events, earliest first: by time, then kind, then the order they
// were pushed, so that a run replays the same way every time.
type eventQueue struct {
	events eventHeap
	pushed uint64
}

// Push adds an event.
func (q *eventQueue) Push(e event) {
	e.seq = q.pushed
	q.pushed++
	heap.Push(&q.events, e)
}

// Pop removes and returns the earliest event; false when none is left.
func (q *eventQueue) Pop() (event, bool) {
	if len(q.events) == 0 {
		return event{}, false
	}
	return heap.Pop(&q.events).(event), true
}

// eventHeap is the container/heap behind eventQueue.
type eventHeap []event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.at != b.at {
		return a.at < b.at
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
