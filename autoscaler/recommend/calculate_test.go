package recommend

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seeds builds ready seeds with the given allocatable and usage; a negative usage means
// the seed has no metric.
func seeds(allocatable float64, usage ...float64) []Seed {
	out := make([]Seed, 0, len(usage))
	for i, u := range usage {
		s := Seed{Name: string(rune('a' + i)), Ready: true, Allocatable: allocatable}
		if u >= 0 {
			s.Usage, s.HasUsage = u, true
		}
		out = append(out, s)
	}
	return out
}

func unready(s []Seed, idx ...int) []Seed {
	for _, i := range idx {
		s[i].Ready = false
	}
	return s
}

func deleting(s []Seed, idx ...int) []Seed {
	for _, i := range idx {
		s[i].Deleting = true
	}
	return s
}

var defaultTol = Tolerances{Up: DefaultTolerance, Down: DefaultTolerance}

// The cases of HPA's replica calculator tests for resource utilization, with pods become
// seeds and CPU requests become allocatable shoots (1000m request → 1000 shoots).
func TestCalculateReplicasHPACases(t *testing.T) {
	cases := []struct {
		name            string
		current         int32
		seeds           []Seed
		target          Target
		tol             Tolerances
		wantReplicas    int32
		wantUtilization int32
	}{
		{name: "scale up", current: 3, seeds: seeds(1000, 300, 500, 700),
			target: Target{UtilizationPercent: 30}, wantReplicas: 5, wantUtilization: 50},
		// HPA counts an unready pod's CPU as 0 on a scale-up (it is starting) and leaves it
		// out on a scale-down. Shoots on a NotReady seed are real: they count as usage; only
		// the seed's capacity is unavailable. HPA would give 4, 3 and 2 below.
		{name: "scale up, the shoots of an unready seed count, its capacity does not", current: 3, seeds: unready(seeds(1000, 300, 500, 700), 0),
			target: Target{UtilizationPercent: 30}, wantReplicas: 5, wantUtilization: 75},
		{name: "scale up, two unready seeds: their shoots need seeds at the target too", current: 3, seeds: unready(seeds(1000, 400, 500, 700), 1, 2),
			target: Target{UtilizationPercent: 30}, wantReplicas: 6, wantUtilization: 160},
		{name: "9/9/9/0 shoots on 10-shoot seeds at 70%, the third NotReady: no scale-in", current: 4, seeds: unready(seeds(10, 9, 9, 9, 0), 2),
			target: Target{UtilizationPercent: 70}, wantReplicas: 4, wantUtilization: 90},
		{name: "scale down", current: 5, seeds: seeds(1000, 100, 300, 500, 250, 250),
			target: Target{UtilizationPercent: 50}, wantReplicas: 3, wantUtilization: 28},
		{name: "scale up ignores deleting seeds (TestReplicaCalcScaleUpIgnoresDeletionPods)", current: 2,
			seeds:  deleting(unready(seeds(1000, 500, 700, 100, 100), 2, 3), 2, 3),
			target: Target{UtilizationPercent: 30}, wantReplicas: 4, wantUtilization: 60},
		{name: "a ready, empty seed being deleted does not dilute the ratio", current: 3,
			seeds:  deleting(seeds(100, 73, 73, 74, 0), 3),
			target: Target{UtilizationPercent: 70}, wantReplicas: 3, wantUtilization: 73},
		{name: "more seeds than replicas (a scale-in in flight): utilization below target never scales out", current: 3,
			seeds:  seeds(100, 73, 73, 74, 0),
			target: Target{UtilizationPercent: 70}, wantReplicas: 3, wantUtilization: 55},
		{name: "scale down counts the shoots of unready seeds", current: 5, seeds: unready(seeds(1000, 100, 300, 500, 250, 250), 3, 4),
			target: Target{UtilizationPercent: 50}, wantReplicas: 5, wantUtilization: 46},
		{name: "within tolerance", current: 3, seeds: []Seed{
			{Name: "a", Ready: true, Allocatable: 900, Usage: 1010, HasUsage: true},
			{Name: "b", Ready: true, Allocatable: 1000, Usage: 1030, HasUsage: true},
			{Name: "c", Ready: true, Allocatable: 1100, Usage: 1020, HasUsage: true},
		}, target: Target{UtilizationPercent: 100}, wantReplicas: 3, wantUtilization: 102},
		{name: "missing metric, at target exactly: no change", current: 2, seeds: seeds(1000, 1000, -1),
			target: Target{UtilizationPercent: 100}, wantReplicas: 2, wantUtilization: 100},
		{name: "missing metric, above target: the missing seed as empty brings it within tolerance", current: 2, seeds: seeds(1000, 1900, -1),
			target: Target{UtilizationPercent: 100}, wantReplicas: 2, wantUtilization: 190},
		{name: "missing metric, below target: the missing seed as full keeps the count", current: 2, seeds: seeds(1000, 600, -1),
			target: Target{UtilizationPercent: 100}, wantReplicas: 2, wantUtilization: 60},
		{name: "missing metric, far above target: scale up counting it empty", current: 2, seeds: seeds(1000, 2000, -1),
			target: Target{UtilizationPercent: 50}, wantReplicas: 4, wantUtilization: 200},
		{name: "missing metric, far below target: counted full it reverses the direction", current: 2, seeds: seeds(1000, 100, -1),
			target: Target{UtilizationPercent: 50}, wantReplicas: 2, wantUtilization: 10},
		{name: "missing metrics of several seeds, scale down only as far as full seeds allow", current: 4, seeds: seeds(100, 0, 0, 0, -1),
			target: Target{UtilizationPercent: 100}, wantReplicas: 1, wantUtilization: 0},
		{name: "average value scale up", current: 3, seeds: seeds(1000, 300, 500, 700),
			target: Target{AverageValue: 300}, wantReplicas: 5, wantUtilization: 50},
		{name: "average value scale down", current: 5, seeds: seeds(1000, 100, 300, 500, 250, 250),
			target: Target{AverageValue: 500}, wantReplicas: 3, wantUtilization: 28},
		{name: "average value within tolerance", current: 4, seeds: seeds(100, 40, 40, 41, 41),
			target: Target{AverageValue: 40}, wantReplicas: 4, wantUtilization: 40},
		{name: "seeds of different sizes weigh by allocatable", current: 2, seeds: []Seed{
			{Name: "small", Ready: true, Allocatable: 100, Usage: 100, HasUsage: true},
			{Name: "large", Ready: true, Allocatable: 300, Usage: 100, HasUsage: true},
		}, target: Target{UtilizationPercent: 50}, wantReplicas: 2, wantUtilization: 50},
		{name: "a seed without allocatable is ignored", current: 2, seeds: []Seed{
			{Name: "a", Ready: true, Allocatable: 100, Usage: 90, HasUsage: true},
			{Name: "b", Ready: true, Usage: 0, HasUsage: true},
		}, target: Target{UtilizationPercent: 50}, wantReplicas: 2, wantUtilization: 90},
		{name: "empty seeds at utilization target scale to zero", current: 1, seeds: seeds(100, 0),
			target: Target{UtilizationPercent: 50}, wantReplicas: 0, wantUtilization: 0},
		{name: "no float noise: 60 of 200 at 30% stays 2", current: 2, seeds: seeds(100, 30, 30),
			target: Target{UtilizationPercent: 30}, wantReplicas: 2, wantUtilization: 30},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tol := tc.tol
			if tol == (Tolerances{}) {
				tol = defaultTol
			}
			c, err := CalculateReplicas(tc.current, tc.seeds, tc.target, tol)
			require.NoError(t, err)
			assert.Equal(t, tc.wantReplicas, c.Replicas)
			assert.Equal(t, tc.wantUtilization, int32(c.Usage*100/c.Allocatable))
		})
	}
}

func TestCalculateReplicasTolerance(t *testing.T) {
	cases := []struct {
		name  string
		usage float64 // of one seed with 100 allocatable at target 100%
		tol   Tolerances
		want  int32
	}{
		{name: "exactly at the upper edge: no scale", usage: 110, tol: defaultTol, want: 1},
		{name: "just above the upper edge: scale up", usage: 111, tol: defaultTol, want: 2},
		{name: "exactly at the lower edge: no scale", usage: 90, tol: defaultTol, want: 1},
		{name: "zero scale-up tolerance: any excess scales", usage: 101, tol: Tolerances{Up: 0, Down: 0.1}, want: 2},
		{name: "wide scale-up tolerance holds", usage: 140, tol: Tolerances{Up: 0.5, Down: 0.1}, want: 1},
		{name: "wide scale-down tolerance holds an empty seed", usage: 0, tol: Tolerances{Up: 0.1, Down: 1}, want: 1},
		{name: "just below the lower edge: scale down", usage: 89, tol: defaultTol, want: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := CalculateReplicas(1, seeds(100, tc.usage), Target{UtilizationPercent: 100}, tc.tol)
			require.NoError(t, err)
			assert.Equal(t, tc.want, c.Replicas)
		})
	}

	// Per direction on a set of ten: 5% below the target is a scale-in with a tight
	// scale-down tolerance, and nothing with the default.
	ten := seeds(100, 95, 95, 95, 95, 95, 95, 95, 95, 95, 95)
	c, err := CalculateReplicas(10, ten, Target{UtilizationPercent: 100}, Tolerances{Up: 0.1, Down: 0.01})
	require.NoError(t, err)
	assert.Equal(t, int32(10), c.Replicas, "ceil(9.5) is still 10")
	c, err = CalculateReplicas(10, seeds(100, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80), Target{UtilizationPercent: 100}, Tolerances{Up: 0.1, Down: 0.25})
	require.NoError(t, err)
	assert.Equal(t, int32(10), c.Replicas, "20% below is within a 25% scale-down tolerance")
	c, err = CalculateReplicas(10, seeds(100, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80), Target{UtilizationPercent: 100}, defaultTol)
	require.NoError(t, err)
	assert.Equal(t, int32(8), c.Replicas)
}

func TestCalculateReplicasNoMeasurableSeed(t *testing.T) {
	_, err := CalculateReplicas(2, seeds(100, -1, -1), Target{UtilizationPercent: 50}, defaultTol)
	require.Error(t, err)
	assert.EqualError(t, err, "none of the 2 seeds is ready with a usage metric (2 without a metric, 0 not ready or without allocatable)")
}

// Pending shoots fit no existing seed: they need new replicas, enough to hold them at the
// target of a new replica's allocatable, less the replicas that have no shoots yet (not
// registered, or empty), which the scheduler fills next.
func TestPendingReplicas(t *testing.T) {
	cases := []struct {
		name    string
		current int32
		demand  Demand
		want    int32
		wantOK  bool
		perSeed float64
	}{
		{name: "3 seeds at 20% plus 5 pending: headroom of seeds that refuse them does not count", current: 3,
			demand: Demand{Pending: 5, PendingKnown: true, Seeds: seeds(100, 20, 20, 20), Target: Target{UtilizationPercent: 70}, AllocatablePerSeed: 100},
			want:   4, wantOK: true, perSeed: 100},
		{name: "many pending: new replicas at the target", current: 3,
			demand: Demand{Pending: 150, PendingKnown: true, Seeds: seeds(100, 20, 20, 20), Target: Target{UtilizationPercent: 70}, AllocatablePerSeed: 100},
			want:   6, wantOK: true, perSeed: 100},
		{name: "a replica asked for and not registered yet takes them", current: 4,
			demand: Demand{Pending: 5, PendingKnown: true, Seeds: seeds(100, 20, 20, 20), Target: Target{UtilizationPercent: 70}, AllocatablePerSeed: 100},
			want:   4, wantOK: true, perSeed: 100},
		{name: "a new seed Ready and still empty takes them (the scheduler retries them)", current: 4,
			demand: Demand{Pending: 5, PendingKnown: true, Seeds: seeds(100, 20, 20, 20, 0), Target: Target{UtilizationPercent: 70}, AllocatablePerSeed: 100},
			want:   4, wantOK: true, perSeed: 100},
		{name: "a new seed NotReady and empty takes them", current: 4,
			demand: Demand{Pending: 5, PendingKnown: true, Seeds: unready(seeds(100, 20, 20, 20, -1), 3), Target: Target{UtilizationPercent: 70}, AllocatablePerSeed: 100},
			want:   4, wantOK: true, perSeed: 100},
		{name: "an empty seed takes as many as it holds, new replicas the rest", current: 4,
			demand: Demand{Pending: 100, PendingKnown: true, Seeds: seeds(100, 20, 20, 20, 0), Target: Target{UtilizationPercent: 70}, AllocatablePerSeed: 100},
			want:   5, wantOK: true, perSeed: 100},
		{name: "a seed above its target: the seeds its shoots need at the target take pending shoots too", current: 1,
			demand: Demand{Pending: 100, PendingKnown: true, Seeds: seeds(50, 50), Target: Target{UtilizationPercent: 70}, AllocatablePerSeed: 50},
			want:   5, wantOK: true, perSeed: 50},
		{name: "usage at the target plus pending", current: 2,
			demand: Demand{Pending: 30, PendingKnown: true, Seeds: seeds(100, 50, 50), Target: Target{UtilizationPercent: 50}},
			want:   3, wantOK: true, perSeed: 100},
		{name: "from zero with the hint", demand: Demand{Pending: 120, PendingKnown: true, AllocatablePerSeed: 100, Target: Target{UtilizationPercent: 60}},
			want: 2, wantOK: true, perSeed: 100},
		{name: "from zero, average value needs no allocatable", demand: Demand{Pending: 25, PendingKnown: true, Target: Target{AverageValue: 10}},
			want: 3, wantOK: true},
		{name: "from zero without any size", demand: Demand{Pending: 5, PendingKnown: true, Target: Target{UtilizationPercent: 50}},
			wantOK: false},
		{name: "a new replica's allocatable wins over the measured seeds", current: 1,
			demand: Demand{Pending: 10, PendingKnown: true, Seeds: seeds(20, 10), AllocatablePerSeed: 1000, Target: Target{UtilizationPercent: 100}},
			want:   2, wantOK: true, perSeed: 1000},
		{name: "without it, the measured seeds' average", current: 1,
			demand: Demand{Pending: 30, PendingKnown: true, Seeds: seeds(20, 10), Target: Target{UtilizationPercent: 100}},
			want:   3, wantOK: true, perSeed: 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, perSeed, ok := PendingReplicas(tc.demand, tc.current)
			assert.Equal(t, tc.wantOK, ok)
			if tc.wantOK {
				assert.Equal(t, tc.want, got)
				if tc.perSeed > 0 {
					assert.Equal(t, tc.perSeed, perSeed)
				}
			}
		})
	}
}
