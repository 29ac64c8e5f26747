package recommend

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// shootsMetric is a Utilization metric on shoots over seeds of 100 allocatable shoots.
func shootsMetric(percent int32, usage ...float64) Metric {
	return Metric{Key: "resource/shoots", Resource: "shoots", Target: Target{UtilizationPercent: percent}, Seeds: seeds(100, usage...)}
}

// input is a decision with the default behavior, nothing pending and every seed removable.
func input(current, minR, maxR int32, m ...Metric) Input {
	in := Input{
		Now: t0, CurrentReplicas: current, MinReplicas: minR, MaxReplicas: maxR,
		Behavior: BehaviorFromSpec(nil), Metrics: m, RemovableReplicas: current,
		Demand: Demand{PendingKnown: true, Target: Target{UtilizationPercent: 100}},
	}
	if len(m) > 0 {
		in.Demand.Seeds, in.Demand.Target = m[0].Seeds, m[0].Target
	}
	return in
}

// autoscaler plays the controller over a sequence of observations: it decides, scales to
// the decision and records the scale event, keeping the history as status would.
type autoscaler struct {
	clock   *clocktesting.FakeClock
	in      Input
	history []int32
}

func newAutoscaler(in Input) *autoscaler {
	return &autoscaler{clock: clocktesting.NewFakeClock(t0), in: in}
}

// step advances the clock, lets metrics change, and decides.
func (a *autoscaler) step(after time.Duration, metrics ...Metric) Decision {
	a.clock.Step(after)
	a.in.Now = a.clock.Now()
	if len(metrics) > 0 {
		a.in.Metrics = metrics
		a.in.Demand.Seeds = metrics[0].Seeds
	}
	d := Decide(a.in)
	a.in.Recommendations, a.in.MetricFailures = d.Recommendations, d.MetricFailures
	if change := d.DesiredReplicas - a.in.CurrentReplicas; change != 0 {
		a.in.ScaleEvents = RecordScaleEvent(a.in.Now, change, a.in.Behavior, a.in.ScaleEvents)
		a.in.CurrentReplicas = d.DesiredReplicas
		a.in.ScaledToZero = d.DesiredReplicas == 0
	}
	a.in.RemovableReplicas = a.in.CurrentReplicas
	a.history = append(a.history, a.in.CurrentReplicas)
	return d
}

func TestDecideLargestMetricWins(t *testing.T) {
	in := input(2, 1, 10, shootsMetric(50, 50, 50),
		Metric{Key: "resource/backups", Resource: "backups", Target: Target{UtilizationPercent: 50}, Seeds: seeds(10, 10, 10)})
	d := Decide(in)
	assert.Equal(t, int32(4), d.DesiredReplicas)
	assert.Equal(t, "50%/50%, 100%/50%", Targets(d.Metrics))
	assert.Equal(t, "resource/backups is 100% of target 50%", d.Reason)
}

func TestDecideDefaultScaleUpPolicies(t *testing.T) {
	// Demand far above the target: 4 seeds or 100% per 15 s, whichever is more.
	a := newAutoscaler(input(1, 1, 100, shootsMetric(10, 100)))
	hot := func(n int32) Metric {
		u := make([]float64, n)
		for i := range u {
			u[i] = 100
		}
		return shootsMetric(10, u...)
	}
	a.step(0)
	assert.Equal(t, int32(5), a.in.CurrentReplicas, "1 + 4 seeds beats 100%")
	d := a.step(5*time.Second, hot(5))
	assert.Equal(t, int32(5), a.in.CurrentReplicas, "the period has not passed")
	assert.Equal(t, ReasonScaleUpLimit, d.ScalingLimited.Reason)
	a.step(11*time.Second, hot(5))
	assert.Equal(t, int32(10), a.in.CurrentReplicas, "100% of 5 beats 4 seeds")
	a.step(15*time.Second, hot(10))
	assert.Equal(t, int32(20), a.in.CurrentReplicas)
}

func TestDecideScaleDownWindowAndPolicy(t *testing.T) {
	custom := input(10, 1, 20, shootsMetric(50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50))
	custom.Behavior.ScaleDown.Policies = []Policy{{Type: PolicyReplicas, Value: 2, Period: 60 * time.Second}}
	a := newAutoscaler(custom)
	a.step(0)
	assert.Equal(t, int32(10), a.in.CurrentReplicas)
	cold := shootsMetric(50, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10)
	// The recommendation drops to 2 but the 300 s window holds the highest (10).
	for range 19 {
		d := a.step(15*time.Second, cold)
		require.Equal(t, int32(10), a.in.CurrentReplicas)
		assert.Equal(t, ReasonScaleDownStabilized, d.AbleToScale.Reason)
	}
	d := a.step(15*time.Second, cold)
	assert.Equal(t, int32(8), a.in.CurrentReplicas, "after the window, at most 2 per 60 s")
	assert.Equal(t, ReasonScaleDownLimit, d.ScalingLimited.Reason)
	a.step(30*time.Second, shootsMetric(50, 10, 10, 10, 10, 10, 10, 10, 10))
	assert.Equal(t, int32(8), a.in.CurrentReplicas, "still inside the policy period")
	a.step(30*time.Second, shootsMetric(50, 10, 10, 10, 10, 10, 10, 10, 10))
	assert.Equal(t, int32(6), a.in.CurrentReplicas)
}

func TestDecideScaleUpStabilization(t *testing.T) {
	in := input(2, 1, 10, shootsMetric(50, 50, 50))
	in.Behavior.ScaleUp.StabilizationWindow = 60 * time.Second
	a := newAutoscaler(in)
	a.step(0)
	// A spike for one sample is not enough: the lowest recommendation of 60 s wins.
	d := a.step(15*time.Second, shootsMetric(50, 100, 100))
	assert.Equal(t, int32(2), a.in.CurrentReplicas)
	assert.Equal(t, ReasonScaleUpStabilized, d.AbleToScale.Reason)
	for range 4 {
		a.step(15*time.Second, shootsMetric(50, 100, 100))
	}
	assert.Equal(t, int32(4), a.in.CurrentReplicas, "sustained for the whole window")
}

func TestDecideSelectPolicyMinAndDisabled(t *testing.T) {
	in := input(4, 1, 100, shootsMetric(10, 100, 100, 100, 100))
	in.Behavior.ScaleUp.SelectPolicy = SelectMin
	assert.Equal(t, int32(8), Decide(in).DesiredReplicas, "min of +4 and +100% is 8")
	in.Behavior.ScaleUp.SelectPolicy = SelectDisabled
	d := Decide(in)
	assert.Equal(t, int32(4), d.DesiredReplicas)
	assert.Equal(t, ReasonScaleUpLimit, d.ScalingLimited.Reason)
}

func TestDecideMinMax(t *testing.T) {
	d := Decide(input(12, 1, 10, shootsMetric(50, 50, 50)))
	assert.Equal(t, int32(10), d.DesiredReplicas)
	assert.Equal(t, ReasonTooManyReplicas, d.ScalingLimited.Reason)

	d = Decide(input(1, 3, 10, shootsMetric(50, 0)))
	assert.Equal(t, int32(3), d.DesiredReplicas)
	assert.Equal(t, ReasonTooFewReplicas, d.ScalingLimited.Reason)

	d = Decide(input(8, 1, 10, shootsMetric(10, 100, 100, 100, 100, 100, 100, 100, 100)))
	assert.Equal(t, int32(10), d.DesiredReplicas)
	assert.Equal(t, ReasonTooManyReplicas, d.ScalingLimited.Reason)
}

func TestDecidePendingDemand(t *testing.T) {
	in := input(2, 1, 10, shootsMetric(50, 50, 50))
	in.Demand.Pending = 60
	d := Decide(in)
	assert.Equal(t, int32(4), d.DesiredReplicas, "ceil((100 + 60) / (100 × 50%)) = 4, though utilization is at target")
	assert.Contains(t, d.Reason, "60 pending shoots")

	in.Demand.Pending = 0
	assert.Equal(t, int32(2), Decide(in).DesiredReplicas)
}

func TestDecidePendingShootsNeedNewSeeds(t *testing.T) {
	// 3 seeds at 20% and 5 shoots that none of them accepts: utilization alone would scale
	// in (and be held by TooFewRemovableSeeds for ever); the pending shoots need a new seed.
	in := input(3, 1, 10, shootsMetric(70, 20, 20, 20))
	in.Recommendations = []Recommendation{{At: t0.Add(-time.Hour), Replicas: 3}}
	in.RemovableReplicas = 0
	in.Demand.Pending, in.Demand.AllocatablePerSeed = 5, 100
	d := Decide(in)
	assert.Equal(t, int32(4), d.DesiredReplicas, d.Reason)
	assert.Equal(t, "5 pending shoots fit no seed of the target and need 1 new replicas (100 allocatable shoots per new seed at target 70%)", d.Reason)
	assert.NotEqual(t, ReasonTooFewRemovableSeeds, d.ScalingLimited.Reason)

	// The next evaluation, with the new replica not registered yet: nothing more.
	in.CurrentReplicas = 4
	in.ScaleEvents = []ScaleEvent{{At: t0, Change: 1}}
	in.Now = t0.Add(15 * time.Second)
	assert.Equal(t, int32(4), Decide(in).DesiredReplicas, "the replica on its way takes the pending shoots")
}

func TestDecideFromZero(t *testing.T) {
	zero := func() Input {
		in := input(0, 0, 10, Metric{Key: "resource/shoots", Resource: "shoots", Target: Target{UtilizationPercent: 50}})
		in.Demand = Demand{PendingKnown: true, Target: Target{UtilizationPercent: 50}, AllocatablePerSeed: 40, AllocatableSource: "annotation"}
		in.ScaledToZero = true
		return in
	}
	t.Run("no demand stays at zero", func(t *testing.T) {
		d := Decide(zero())
		assert.Equal(t, int32(0), d.DesiredReplicas)
		assert.Equal(t, metav1.ConditionTrue, d.ScalingActive.Status, d.ScalingActive.Message)
	})
	t.Run("pending demand sized by the hint", func(t *testing.T) {
		in := zero()
		in.Demand.Pending = 50
		assert.Equal(t, int32(3), Decide(in).DesiredReplicas, "ceil(50 / (40 × 50%))")
	})
	t.Run("pending demand without any size starts one seed", func(t *testing.T) {
		in := zero()
		in.Demand.Pending, in.Demand.AllocatablePerSeed = 7, 0
		d := Decide(in)
		assert.Equal(t, int32(1), d.DesiredReplicas)
		assert.Equal(t, metav1.ConditionFalse, d.ScalingActive.Status)
	})
	t.Run("a Percent-only scale-up policy still starts from zero", func(t *testing.T) {
		in := zero()
		in.Demand.Pending = 1
		in.Behavior.ScaleUp.Policies = []Policy{{Type: PolicyPercent, Value: 100, Period: 15 * time.Second}}
		assert.Equal(t, int32(1), Decide(in).DesiredReplicas)
	})
	t.Run("unknown pending demand holds zero", func(t *testing.T) {
		in := zero()
		in.Demand.PendingKnown = false
		d := Decide(in)
		assert.Equal(t, int32(0), d.DesiredReplicas)
		assert.Equal(t, ReasonFailedGetPendingMetric, d.ScalingActive.Reason)
	})
	t.Run("a human-set zero with minReplicas 1 is left alone", func(t *testing.T) {
		in := zero()
		in.MinReplicas, in.ScaledToZero, in.Demand.Pending = 1, false, 50
		d := Decide(in)
		assert.Equal(t, int32(0), d.DesiredReplicas)
		assert.Equal(t, ReasonScalingDisabled, d.ScalingActive.Reason)
	})
}

func TestDecideToZeroOnlyAfterWindowAndWhenEmpty(t *testing.T) {
	in := input(1, 0, 5, shootsMetric(50, 20))
	a := newAutoscaler(in)
	a.step(0)
	empty := shootsMetric(50, 0)
	for range 19 {
		a.step(15*time.Second, empty)
		require.Equal(t, int32(1), a.in.CurrentReplicas)
	}
	// The window has passed, but the seed is not removable (say, protected).
	a.in.RemovableReplicas = 0
	a.clock.Step(15 * time.Second)
	a.in.Now = a.clock.Now()
	a.in.Metrics = []Metric{empty}
	d := Decide(a.in)
	assert.Equal(t, int32(1), d.DesiredReplicas)
	assert.Equal(t, ReasonTooFewRemovableSeeds, d.ScalingLimited.Reason)
	// Removable: to zero.
	a.in.RemovableReplicas = 1
	d = Decide(a.in)
	assert.Equal(t, int32(0), d.DesiredReplicas)
}

func TestDecideScaleInLimitedByRemovableSeeds(t *testing.T) {
	in := input(6, 1, 10, shootsMetric(50, 10, 10, 10, 10, 10, 10))
	in.Recommendations = []Recommendation{{At: t0.Add(-time.Hour), Replicas: 6}}
	in.RemovableReplicas = 2
	d := Decide(in)
	assert.Equal(t, int32(4), d.DesiredReplicas)
	assert.Equal(t, ReasonTooFewRemovableSeeds, d.ScalingLimited.Reason)
	assert.Equal(t, "scaling in to 2 replicas needs 4 seeds removed, but only 2 can be removed (empty and not protected from deletion); holding at 4",
		d.ScalingLimited.Message)
}

func TestDecideMissingMetrics(t *testing.T) {
	old := []Recommendation{{At: t0.Add(-time.Hour), Replicas: 4}}
	t.Run("a seed without a fresh sample does not hold a scale-in: it counts as full (HPA)", func(t *testing.T) {
		in := input(4, 1, 10, shootsMetric(50, 0, 0, 0, -1))
		in.Recommendations = old
		d := Decide(in)
		assert.Equal(t, int32(2), d.DesiredReplicas, "the missing seed full: ceil(100 × 4 / 200)")
		assert.Equal(t, metav1.ConditionTrue, d.ScalingActive.Status, d.ScalingActive.Message)
		assert.Equal(t, ReasonValidMetricFound, d.ScalingActive.Reason)
		assert.Contains(t, d.ScalingActive.Message, "1 of 4 seeds have no fresh metric")
	})
	t.Run("a seed without a fresh sample for good still lets the set scale in", func(t *testing.T) {
		a := newAutoscaler(input(4, 1, 10, shootsMetric(50, 0, 0, 0, -1)))
		for range 40 {
			a.step(15 * time.Second)
		}
		assert.Equal(t, int32(2), a.in.CurrentReplicas, "the missing seed keeps one seed's worth at the target, no more")
	})
	t.Run("partial metrics scale out on what is known", func(t *testing.T) {
		in := input(4, 1, 10, shootsMetric(50, 100, 100, 100, -1))
		d := Decide(in)
		assert.Equal(t, int32(6), d.DesiredReplicas, "the missing seed counts as empty: ceil(300 × 4 / 200)")
		assert.Equal(t, metav1.ConditionTrue, d.ScalingActive.Status, d.ScalingActive.Message)
	})
	t.Run("no metric at all holds", func(t *testing.T) {
		in := input(4, 1, 10, Metric{Key: "resource/shoots", Resource: "shoots", Target: Target{UtilizationPercent: 50}, FetchError: "the adapter is unavailable"})
		in.Demand.Seeds = nil
		in.Recommendations = old
		d := Decide(in)
		assert.Equal(t, int32(4), d.DesiredReplicas)
		assert.Equal(t, ReasonFailedGetResourceMetric, d.ScalingActive.Reason)
		assert.Equal(t, old, d.Recommendations, "nothing recorded from nothing known")
		assert.Equal(t, map[string]MetricFailure{"resource/shoots": {Since: t0}}, d.MetricFailures)
		assert.Equal(t, "<unknown>/50%", Targets(d.Metrics))
	})
	t.Run("unknown pending demand holds a scale-in", func(t *testing.T) {
		in := input(4, 1, 10, shootsMetric(50, 0, 0, 0, 0))
		in.Recommendations = old
		in.Demand.PendingKnown = false
		d := Decide(in)
		assert.Equal(t, int32(4), d.DesiredReplicas)
		assert.Equal(t, ReasonFailedGetPendingMetric, d.ScalingActive.Reason)
	})
}

func TestDecideFallback(t *testing.T) {
	failing := Metric{Key: "resource/shoots", Resource: "shoots", Target: Target{UtilizationPercent: 50}, FetchError: "unavailable",
		Fallback: &Fallback{FailureDuration: 2 * time.Minute, Replicas: 6}}
	in := input(3, 1, 10, failing)
	in.Demand.Seeds = nil
	a := newAutoscaler(in)
	a.step(0)
	assert.Equal(t, int32(3), a.in.CurrentReplicas)
	a.step(time.Minute)
	assert.Equal(t, int32(3), a.in.CurrentReplicas, "not failing long enough")
	d := a.step(time.Minute)
	assert.Equal(t, int32(6), a.in.CurrentReplicas, "the fallback raises")
	assert.Equal(t, ReasonFallbackActive, d.ScalingActive.Reason)
	assert.Equal(t, MetricFailure{Since: t0, FallbackSince: t0.Add(2 * time.Minute), FallbackReplicas: 6}, d.MetricFailures["resource/shoots"])

	// A fallback below the current replicas never lowers them; it applies since it began.
	failing.Fallback.Replicas = 1
	d = a.step(time.Minute, failing)
	assert.Equal(t, int32(6), a.in.CurrentReplicas)
	assert.Equal(t, MetricFailure{Since: t0, FallbackSince: t0.Add(2 * time.Minute), FallbackReplicas: 6}, d.MetricFailures["resource/shoots"])

	// The metric recovers: the failure is forgotten.
	d = a.step(time.Minute, shootsMetric(50, 50, 50, 50, 50, 50, 50))
	assert.Empty(t, d.MetricFailures)
	assert.Equal(t, metav1.ConditionTrue, d.ScalingActive.Status)
}

func TestFallbackProposal(t *testing.T) {
	tests := []struct {
		behavior     v1alpha1.FallbackBehavior
		current      int32
		wantReplicas int32
	}{
		{v1alpha1.StaticFallback, 2, 5},
		{v1alpha1.StaticFallback, 8, 5},
		{v1alpha1.CurrentReplicasFallback, 2, 2},
		{v1alpha1.CurrentReplicasFallback, 8, 8},
		{v1alpha1.CurrentReplicasIfHigherFallback, 2, 5},
		{v1alpha1.CurrentReplicasIfHigherFallback, 8, 8},
		{v1alpha1.CurrentReplicasIfLowerFallback, 2, 2},
		{v1alpha1.CurrentReplicasIfLowerFallback, 8, 5},
		{"", 2, 5}, // unset is the default, CurrentReplicasIfHigher
		{"", 8, 8},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s from %d", tt.behavior, tt.current), func(t *testing.T) {
			f := Fallback{Behavior: tt.behavior, Replicas: 5}
			assert.Equal(t, tt.wantReplicas, f.Proposal(tt.current))
		})
	}
}

// A fallback that applies stands in for its metric, a scale-in included (KEDA's Static and
// CurrentReplicasIfLower), through the scale-down window; without one, an unavailable
// metric holds every scale-in.
func TestDecideFallbackBehaviors(t *testing.T) {
	tests := []struct {
		behavior    v1alpha1.FallbackBehavior
		wantDesired int32
		wantActive  controllerutils.Reason
	}{
		{behavior: "no fallback", wantDesired: 6, wantActive: ReasonFailedGetResourceMetric},
		{behavior: v1alpha1.StaticFallback, wantDesired: 2, wantActive: ReasonFallbackActive},
		{behavior: v1alpha1.CurrentReplicasFallback, wantDesired: 6, wantActive: ReasonFallbackActive},
		{behavior: v1alpha1.CurrentReplicasIfHigherFallback, wantDesired: 6, wantActive: ReasonFallbackActive},
		{behavior: v1alpha1.CurrentReplicasIfLowerFallback, wantDesired: 2, wantActive: ReasonFallbackActive},
	}
	for _, tt := range tests {
		t.Run(string(tt.behavior), func(t *testing.T) {
			failing := Metric{Key: "resource/shoots", Resource: "shoots", Target: Target{UtilizationPercent: 50}, FetchError: "unavailable"}
			if tt.behavior != "no fallback" {
				failing.Fallback = &Fallback{FailureDuration: time.Minute, Behavior: tt.behavior, Replicas: 2}
			}
			in := input(6, 1, 10, failing)
			in.Demand.Seeds = nil
			in.MetricFailures = map[string]MetricFailure{"resource/shoots": {Since: t0.Add(-10 * time.Minute)}}
			in.Recommendations = []Recommendation{{At: t0.Add(-time.Hour), Replicas: 6}}
			d := Decide(in)
			assert.Equal(t, tt.wantDesired, d.DesiredReplicas, d.Reason)
			assert.Equal(t, tt.wantActive, d.ScalingActive.Reason)
			if tt.behavior == "no fallback" {
				assert.Equal(t, MetricFailure{Since: t0.Add(-10 * time.Minute)}, d.MetricFailures["resource/shoots"])
				return
			}
			assert.Equal(t, t0, d.MetricFailures["resource/shoots"].FallbackSince, "applies from this evaluation on")
			assert.Contains(t, d.Reason, "resource/shoots has been unavailable since 2026-01-01T11:50:00Z, its fallback")

			// Within the scale-down window of a higher recommendation a lower fallback waits.
			in.Recommendations = []Recommendation{{At: t0.Add(-time.Minute), Replicas: 6}}
			assert.Equal(t, int32(6), Decide(in).DesiredReplicas)
		})
	}
}

func TestDecideRestartDecidesTheSame(t *testing.T) {
	// One autoscaler runs a sequence; another starts halfway from the first one's history
	// alone (as from status) and must decide exactly as the first goes on to.
	seq := []Metric{shootsMetric(50, 80, 80), shootsMetric(50, 80, 80, 80), shootsMetric(50, 10, 10, 10, 10)}
	a := newAutoscaler(input(2, 1, 10, seq[0]))
	a.step(0)
	a.step(15*time.Second, seq[1])
	restarted := a.in // what status holds
	var first, second []int32
	for range 30 {
		first = append(first, a.step(15*time.Second, seq[2]).DesiredReplicas)
	}
	b := &autoscaler{clock: clocktesting.NewFakeClock(a.clock.Now().Add(-30 * 15 * time.Second)), in: restarted}
	for range 30 {
		second = append(second, b.step(15*time.Second, seq[2]).DesiredReplicas)
	}
	assert.Equal(t, first, second)
	assert.Contains(t, first, int32(1), "it did scale down after the window")
}

func TestRecommendationsStayCompact(t *testing.T) {
	b := BehaviorFromSpec(nil)
	var recs []Recommendation
	now := t0
	for i := range 10000 {
		now = now.Add(time.Second)
		_, recs = Stabilize(now, 5, int32(5+i%3), b, recs)
	}
	assert.Len(t, recs, 3, "one per distinct replica count in the window")
	// Values older than the window drop out.
	_, recs = Stabilize(now.Add(10*time.Minute), 5, 7, b, recs)
	assert.Equal(t, []Recommendation{{At: now.Add(10 * time.Minute), Replicas: 7}}, recs)
}

func TestDecideShootsOnNotReadySeedsAreDemand(t *testing.T) {
	// 9/9/9/0 shoots on four 10-shoot seeds at 70%, the third seed NotReady, long after any
	// window: its 9 shoots still need a seed at the target, so the set keeps its 4 replicas.
	m := Metric{Key: "resource/shoots", Resource: "shoots", Target: Target{UtilizationPercent: 70}, Seeds: unready(seeds(10, 9, 9, 9, 0), 2)}
	in := input(4, 1, 10, m)
	in.Recommendations = []Recommendation{{At: t0.Add(-time.Hour), Replicas: 4}}
	d := Decide(in)
	assert.Equal(t, int32(4), d.DesiredReplicas, d.Reason)
	assert.Equal(t, "90%/70%", Targets(d.Metrics), "27 shoots over the 30 allocatable of the Ready seeds")
}

func TestDecideBootstrappingSeedsAreNoMetricFailure(t *testing.T) {
	// A set scaled 0 → 1 for one pending shoot, with a fallback of 5m/3: until its seed is
	// registered and Ready there is nothing to measure, which is not a failed fetch.
	bootstrapping := func(s []Seed) Input {
		m := Metric{Key: "resource/shoots", Resource: "shoots", Target: Target{UtilizationPercent: 50}, Seeds: s,
			Fallback: &Fallback{FailureDuration: 5 * time.Minute, Replicas: 3}}
		in := input(1, 0, 10, m)
		in.Demand = Demand{PendingKnown: true, Pending: 1, Seeds: s, Target: m.Target, AllocatablePerSeed: 40}
		return in
	}
	for name, s := range map[string][]Seed{
		"no seed registered yet":          nil,
		"a registered seed not Ready yet": unready(seeds(40, -1), 0),
	} {
		t.Run(name, func(t *testing.T) {
			a := newAutoscaler(bootstrapping(s))
			for range 40 { // 10 minutes
				d := a.step(15 * time.Second)
				require.Equal(t, int32(1), a.in.CurrentReplicas, d.Reason)
				require.Equal(t, metav1.ConditionTrue, d.ScalingActive.Status, d.ScalingActive.Message)
				assert.Equal(t, ReasonWaitingForSeeds, d.ScalingActive.Reason)
				assert.Empty(t, d.MetricFailures, "bootstrapping never counts toward failureDurationSeconds")
			}
		})
	}
	t.Run("ready seeds without any sample are a failure", func(t *testing.T) {
		a := newAutoscaler(bootstrapping(seeds(40, -1)))
		a.step(0)
		d := a.step(5 * time.Minute)
		assert.Equal(t, int32(3), a.in.CurrentReplicas, "the fallback applies once the metric failed for 5m")
		assert.Equal(t, ReasonFallbackActive, d.ScalingActive.Reason)
	})
}

func TestHoldDirections(t *testing.T) {
	// A decision that wants to move from 4 replicas to the given number.
	wants := func(replicas int32) Decision {
		return Decision{
			DesiredReplicas: replicas, Reason: "resource/shoots is 90% of target 50%",
			Recommendations: []Recommendation{{At: t0, Replicas: replicas}},
			ScalingLimited:  controllerutils.False(ReasonDesiredWithinRange, "within range"),
		}
	}
	in, out, both := PausedDirections{ScaleIn: true}, PausedDirections{ScaleOut: true}, PausedDirections{ScaleIn: true, ScaleOut: true}
	tests := []struct {
		name        string
		wanted      int32
		paused      PausedDirections
		wantDesired int32
		wantLimited controllerutils.Reason
	}{
		{"nothing paused, scale-in", 2, PausedDirections{}, 2, ReasonDesiredWithinRange},
		{"nothing paused, scale-out", 6, PausedDirections{}, 6, ReasonDesiredWithinRange},
		{"scale-in paused holds a scale-in", 2, in, 4, ReasonScaleInPaused},
		{"scale-in paused lets a scale-out through", 6, in, 6, ReasonDesiredWithinRange},
		{"scale-out paused holds a scale-out", 6, out, 4, ReasonScaleOutPaused},
		{"scale-out paused lets a scale-in through", 2, out, 2, ReasonDesiredWithinRange},
		{"both paused hold a scale-in", 2, both, 4, ReasonScaleInPaused},
		{"both paused hold a scale-out", 6, both, 4, ReasonScaleOutPaused},
		{"both paused, nothing to hold", 4, both, 4, ReasonDesiredWithinRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := HoldDirections(wants(tt.wanted), 4, tt.paused)
			assert.Equal(t, tt.wantDesired, d.DesiredReplicas)
			assert.Equal(t, tt.wantLimited, d.ScalingLimited.Reason)
			assert.Equal(t, []Recommendation{{At: t0, Replicas: tt.wanted}}, d.Recommendations, "the recommendation is recorded as decided")
			if tt.wantLimited != ReasonDesiredWithinRange {
				assert.True(t, d.ScalingLimited.IsTrue())
				assert.Contains(t, d.ScalingLimited.Message, fmt.Sprintf("the autoscaler wants %d replicas", tt.wanted))
				assert.Contains(t, d.ScalingLimited.Message, "holding at 4")
				assert.Contains(t, d.Reason, "resource/shoots is 90% of target 50%", "what drove the decision stays in its reason")
			}
		})
	}
}

// A configuration to fix turns ScalingActive False with a reason of its own, while the
// replicas are decided as without it; the first problem names the reason, the message
// carries every one, and a metric failure keeps its own reason with the problems appended.
func TestDecideReportsConfigurationProblems(t *testing.T) {
	const capacity = `annotation capacity.seedmanagement.gardener.cloud/shoots="abc" of ManagedSeedSet garden/eu is not a whole number of shoots`
	const price = `annotation seedmanagement.gardener.cloud/seed-hour-price="-1" of ManagedSeedSet garden/eu is not a price per seed-hour`
	healthy := input(2, 1, 10, shootsMetric(50, 80, 80))
	want := Decide(healthy)
	require.Equal(t, metav1.ConditionTrue, want.ScalingActive.Status, want.ScalingActive.Message)
	require.Equal(t, int32(4), want.DesiredReplicas, "ceil(160 × 2 / 100): the problems must not change it")

	cases := []struct {
		name     string
		demand   func(*Demand)
		pending  bool
		reason   controllerutils.Reason
		messages []string
	}{
		{name: "an invalid price", demand: func(d *Demand) { d.InvalidPriceAnnotation = price },
			pending: true, reason: ReasonInvalidPriceAnnotation, messages: []string{price}},
		{name: "an invalid capacity and price: the capacity leads", demand: func(d *Demand) {
			d.InvalidCapacityAnnotation, d.InvalidPriceAnnotation = capacity, price
		}, pending: true, reason: ReasonInvalidCapacityAnnotation, messages: []string{capacity, price}},
		{name: "a metric failure keeps its reason", demand: func(d *Demand) { d.InvalidPriceAnnotation = price },
			pending: false, reason: ReasonFailedGetPendingMetric, messages: []string{"scaling in is held", price}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := input(2, 1, 10, shootsMetric(50, 80, 80))
			in.Demand.PendingKnown = tc.pending
			tc.demand(&in.Demand)
			d := Decide(in)
			assert.Equal(t, want.DesiredReplicas, d.DesiredReplicas)
			assert.Equal(t, metav1.ConditionFalse, d.ScalingActive.Status)
			assert.Equal(t, tc.reason, d.ScalingActive.Reason)
			for _, m := range tc.messages {
				assert.Contains(t, d.ScalingActive.Message, m)
			}
		})
	}
}
