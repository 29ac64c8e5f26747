package autoscaling

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The queue gives events back by time, at equal times by kind, and events of one kind at
// one time in the order they were pushed.
func TestEventQueueOrder(t *testing.T) {
	first, second := &shoot{weight: 1}, &shoot{weight: 2}
	tests := []struct {
		name   string
		pushed []event
		want   []event
	}{
		{"none", nil, nil},
		{
			"by time",
			[]event{{at: 3 * time.Second, kind: eventScrape}, {at: time.Second, kind: eventMigrated}, {at: 2 * time.Second, kind: eventEnd}},
			[]event{{at: time.Second, kind: eventMigrated}, {at: 2 * time.Second, kind: eventEnd}, {at: 3 * time.Second, kind: eventScrape}},
		},
		{
			"at one time by kind: the end first, the landscape before the autoscaler sees it",
			[]event{{at: time.Minute, kind: eventPoint}, {at: time.Minute, kind: eventDecide}, {at: time.Minute, kind: eventScrape},
				{at: time.Minute, kind: eventSeedReady}, {at: time.Minute, kind: eventDemandChange}, {at: time.Minute, kind: eventEnd}},
			[]event{{at: time.Minute, kind: eventEnd}, {at: time.Minute, kind: eventDemandChange}, {at: time.Minute, kind: eventSeedReady},
				{at: time.Minute, kind: eventScrape}, {at: time.Minute, kind: eventDecide}, {at: time.Minute, kind: eventPoint}},
		},
		{
			"one kind at one time in the order pushed",
			[]event{{at: time.Minute, kind: eventExpire, shoot: second}, {at: time.Second, kind: eventArrive},
				{at: time.Minute, kind: eventExpire, shoot: first}, {at: time.Minute, kind: eventArrive}},
			[]event{{at: time.Second, kind: eventArrive}, {at: time.Minute, kind: eventArrive},
				{at: time.Minute, kind: eventExpire, shoot: second}, {at: time.Minute, kind: eventExpire, shoot: first}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q eventQueue
			for _, e := range tt.pushed {
				q.Push(e)
			}
			var got []event
			for {
				e, ok := q.Pop()
				if !ok {
					break
				}
				e.seq = 0 // the order is what counts
				got = append(got, e)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
