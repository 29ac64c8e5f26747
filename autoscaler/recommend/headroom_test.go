package recommend

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHeadroomReplicas(t *testing.T) {
	tests := []struct {
		name         string
		seeds        []Seed
		perSeed      float64
		current      int32
		headroom     float64
		wantKnown    bool
		wantReplicas int32
		wantFree     float64
	}{
		{name: "enough free slots: the replicas stay", seeds: seeds(100, 50, 50), perSeed: 100, current: 2, headroom: 20,
			wantKnown: true, wantReplicas: 2, wantFree: 100},
		{name: "exactly the headroom free", seeds: seeds(100, 90, 90), perSeed: 100, current: 2, headroom: 20,
			wantKnown: true, wantReplicas: 2, wantFree: 20},
		{name: "one slot short asks for a seed", seeds: seeds(100, 90, 91), perSeed: 100, current: 2, headroom: 20,
			wantKnown: true, wantReplicas: 3, wantFree: 19},
		{name: "a large burst asks for several", seeds: seeds(100, 100, 100), perSeed: 100, current: 2, headroom: 250,
			wantKnown: true, wantReplicas: 5, wantFree: 0},
		{name: "new seeds are sized as a new replica", seeds: seeds(100, 100, 100), perSeed: 40, current: 2, headroom: 50,
			wantKnown: true, wantReplicas: 4, wantFree: 0},
		{name: "spare seeds may go while the headroom stays", seeds: seeds(100, 90, 90, 0, 0, 0), perSeed: 100, current: 5, headroom: 20,
			wantKnown: true, wantReplicas: 2, wantFree: 320},
		{name: "a seed over its allocatable has no free slot, not a negative one", seeds: seeds(100, 120, 90), perSeed: 100, current: 2, headroom: 20,
			wantKnown: true, wantReplicas: 3, wantFree: 10},
		{name: "a seed that is not ready offers nothing and counts no replica", seeds: unready(seeds(100, 90, 90, 0), 2), perSeed: 100, current: 3, headroom: 20,
			wantKnown: true, wantReplicas: 2, wantFree: 20},
		{name: "a bootstrapping replica does not ask for another", seeds: unready(seeds(100, 95, 95, -1), 2), perSeed: 100, current: 3, headroom: 20,
			wantKnown: true, wantReplicas: 3, wantFree: 10},
		{name: "a seed being deleted counts not", seeds: deleting(seeds(100, 90, 0), 1), perSeed: 100, current: 2, headroom: 20,
			wantKnown: true, wantReplicas: 2, wantFree: 10},
		{name: "from zero", current: 0, perSeed: 100, headroom: 20,
			wantKnown: true, wantReplicas: 1, wantFree: 0},
		{name: "size of a new seed from the ready seeds", seeds: seeds(50, 50, 50), current: 2, headroom: 60,
			wantKnown: true, wantReplicas: 4, wantFree: 0},
		// A seed without a sample never causes a change: as empty on a scale-out, as full on
		// a scale-in.
		{name: "without a sample, empty would still scale out", seeds: seeds(100, 100, 100, -1), perSeed: 100, current: 3, headroom: 150,
			wantKnown: true, wantReplicas: 4, wantFree: 0},
		{name: "without a sample, full would still scale in", seeds: seeds(100, 0, 0, 0, -1), perSeed: 100, current: 4, headroom: 20,
			wantKnown: true, wantReplicas: 2, wantFree: 300},
		{name: "without a sample, in between: the replicas stay", seeds: seeds(100, 90, 90, -1), perSeed: 100, current: 3, headroom: 20,
			wantKnown: true, wantReplicas: 3, wantFree: 20},
		{name: "no ready seed with a sample: unknown", seeds: seeds(100, -1, -1), perSeed: 100, current: 2, headroom: 20},
		{name: "size of a seed unknown: unknown", seeds: unready(seeds(100, -1), 0), current: 1, headroom: 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HeadroomReplicas(Demand{Seeds: tt.seeds, AllocatablePerSeed: tt.perSeed}, tt.current, tt.headroom)
			assert.Equal(t, tt.wantKnown, got.Known, got.Message)
			assert.NotEmpty(t, got.Message)
			if !tt.wantKnown {
				return
			}
			assert.Equal(t, tt.wantReplicas, got.Replicas, got.Message)
			assert.Equal(t, tt.wantFree, got.Free)
		})
	}
}

// The headroom's replicas are a lower bound on the metrics' proposal, still bounded by
// maxReplicas, and recorded for status.
func TestDecideHeadroom(t *testing.T) {
	// 2 seeds at 70% of 100 against a target of 70%: the metric holds 2.
	hot := func() Input {
		in := input(2, 1, 10, shootsMetric(70, 70, 70))
		in.Demand.AllocatablePerSeed = 100
		return in
	}
	t.Run("without headroom", func(t *testing.T) {
		d := Decide(hot())
		assert.Equal(t, int32(2), d.DesiredReplicas)
		assert.Nil(t, d.Headroom)
	})
	t.Run("the headroom wins over the metric", func(t *testing.T) {
		in := hot()
		in.Headroom = 120 // 60 free: 60 more need one seed
		d := Decide(in)
		assert.Equal(t, int32(3), d.DesiredReplicas)
		require.NotNil(t, d.Headroom)
		assert.Equal(t, int32(3), d.Headroom.Replicas)
		assert.Equal(t, "a headroom of 120 shoots needs 3 replicas: 60 free on 2 ready seeds, 100 shoots per seed added or removed", d.Reason)
	})
	t.Run("the metric wins over the headroom", func(t *testing.T) {
		in := hot()
		in.Metrics = []Metric{shootsMetric(35, 70, 70)}
		in.Headroom = 20
		d := Decide(in)
		assert.Equal(t, int32(4), d.DesiredReplicas)
		assert.Equal(t, int32(2), d.Headroom.Replicas)
	})
	t.Run("bounded by maxReplicas", func(t *testing.T) {
		in := hot()
		in.MaxReplicas = 4
		in.Headroom = 1000
		d := Decide(in)
		assert.Equal(t, int32(4), d.DesiredReplicas)
		assert.Equal(t, int32(12), d.Headroom.Replicas)
		assert.Equal(t, ReasonTooManyReplicas, d.ScalingLimited.Reason)
	})
	t.Run("holds a scale-in the metric wants", func(t *testing.T) {
		in := input(4, 1, 10, shootsMetric(70, 60, 60, 0, 0))
		in.Demand.AllocatablePerSeed = 100
		in.Recommendations = []Recommendation{{At: t0.Add(-time.Hour), Replicas: 4}}
		assert.Equal(t, int32(2), Decide(in).DesiredReplicas, "the metric alone")
		in.Headroom = 150 // 80 free on the two busy seeds, 280 on all four
		d := Decide(in)
		assert.Equal(t, int32(3), d.DesiredReplicas, d.Reason)
	})
}
