package forecast

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/seedscaler/seedscaler/autoscaler/recommend"
)

func known(v float64) Value { return Value{Demand: v, Known: true} }

func TestCheck(t *testing.T) {
	cases := []struct {
		name     string
		forecast Value
		demand   float64
		want     Reason
	}{
		{"missing", Value{}, 100, ReasonMissing},
		{"NaN", known(math.NaN()), 100, ReasonNotFinite},
		{"+Inf", known(math.Inf(1)), 100, ReasonNotFinite},
		{"-Inf", known(math.Inf(-1)), 100, ReasonNotFinite},
		{"negative", known(-1), 100, ReasonNegative},
		{"more than ten times the demand", known(1001), 100, ReasonAbsurd},
		{"ten times the demand", known(1000), 100, ""},
		{"zero", known(0), 100, ""},
		{"a nearly empty set may forecast up to ten seeds at the target", known(350), 2, ""},
		{"but not more", known(351), 2, ReasonAbsurd},
		{"an unknown demand counts as one seed", known(400), math.NaN(), ReasonAbsurd},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, msg := Check(c.forecast, c.demand, 35)
			assert.Equal(t, c.want, got)
			assert.Equal(t, c.want == "", msg == "", "a rejection says why: %q", msg)
		})
	}
}

func TestCombine(t *testing.T) {
	now := t0.Add(time.Hour)
	b := recommend.Behavior{ScaleUp: recommend.DefaultScaleUp(), ScaleDown: recommend.DefaultScaleDown()}
	base := Input{
		Now: now, CurrentReplicas: 5, MaxReplicas: 20, Behavior: b,
		Demand: 175, PerSeedAtTarget: 35,
	}
	with := func(f func(*Input)) Input { in := base; f(&in); return in }
	cases := []struct {
		name     string
		in       Input
		desired  int32
		forecast int32
		reason   Reason
	}{
		{"scale-out ahead of the demand", with(func(in *Input) { in.Reactive = 5; in.Forecast = known(280) }), 8, 8, ReasonScaledOutAhead},
		{"the reactive scale-out wins when it is larger", with(func(in *Input) { in.Reactive = 9; in.Forecast = known(280) }), 9, 8, ReasonReactiveWins},
		{"a forecast below the demand never scales in", with(func(in *Input) { in.Reactive = 5; in.Forecast = known(35) }), 5, 1, ReasonReactiveWins},
		{"a scale-in the lead time would undo is held", with(func(in *Input) { in.Reactive = 3; in.Forecast = known(175) }), 5, 5, ReasonHeldScaleIn},
		{"a scale-in is held where the forecast needs it", with(func(in *Input) { in.Reactive = 3; in.Forecast = known(140) }), 4, 4, ReasonHeldScaleIn},
		{"a scale-in the forecast agrees with goes ahead", with(func(in *Input) {
			in.Reactive = 3
			in.Forecast = known(70)
			in.Behavior.ScaleDown.StabilizationWindow = 0
		}), 3, 2, ReasonReactiveWins},
		{"the forecast's scale-down window holds its earlier recommendation", with(func(in *Input) {
			in.Reactive = 3
			in.Forecast = known(70)
			in.History = []recommend.Recommendation{{At: now.Add(-time.Minute), Replicas: 5}}
		}), 5, 5, ReasonHeldScaleIn},
		{"a forecast on a scale-in that asks for more than current scales out", with(func(in *Input) { in.Reactive = 4; in.Forecast = known(245) }), 7, 7, ReasonScaledOutAhead},
		{"never above maxReplicas", with(func(in *Input) { in.Reactive = 5; in.MaxReplicas = 8; in.Forecast = known(1750) }), 8, 8, ReasonScaledOutAhead},
		{"the default policies double at most", with(func(in *Input) { in.Reactive = 5; in.Forecast = known(1750) }), 10, 10, ReasonScaledOutAhead},
		{"maxReplicas below current: the forecast holds nothing above it", with(func(in *Input) {
			in.CurrentReplicas, in.MaxReplicas, in.Reactive = 12, 10, 10
			in.Forecast = known(700)
		}), 10, 10, ReasonReactiveWins},
		{"the scale-up policies bound the forecast", with(func(in *Input) {
			in.Reactive = 5
			in.Forecast = known(1000)
			in.Behavior.ScaleUp.Policies = []recommend.Policy{{Type: recommend.PolicyReplicas, Value: 2, Period: time.Minute}}
			in.ScaleEvents = []recommend.ScaleEvent{{At: now.Add(-30 * time.Second), Change: 1}}
		}), 6, 6, ReasonScaledOutAhead},
		{"the scale-up window delays the forecast as the reactive", with(func(in *Input) {
			in.Reactive = 5
			in.Forecast = known(280)
			in.Behavior.ScaleUp.StabilizationWindow = 3 * time.Minute
			in.History = []recommend.Recommendation{{At: now.Add(-time.Minute), Replicas: 6}}
		}), 6, 6, ReasonScaledOutAhead},
		{"missing: the reactive decision stands", with(func(in *Input) { in.Reactive = 7 }), 7, -1, ReasonMissing},
		{"missing never blocks a reactive scale-in", with(func(in *Input) { in.Reactive = 3 }), 3, -1, ReasonMissing},
		{"NaN never blocks a reactive scale-out", with(func(in *Input) { in.Reactive = 7; in.Forecast = known(math.NaN()) }), 7, -1, ReasonNotFinite},
		{"+Inf", with(func(in *Input) { in.Reactive = 7; in.Forecast = known(math.Inf(1)) }), 7, -1, ReasonNotFinite},
		{"negative", with(func(in *Input) { in.Reactive = 3; in.Forecast = known(-10) }), 3, -1, ReasonNegative},
		{"absurd: not even capped to maxReplicas", with(func(in *Input) { in.Reactive = 5; in.Forecast = known(1751) }), 5, -1, ReasonAbsurd},
		{"switched off for inaccuracy", with(func(in *Input) { in.Reactive = 3; in.Forecast = known(280); in.Disabled = true }), 3, -1, ReasonInaccurate},
		{"no size of a seed", with(func(in *Input) { in.Reactive = 5; in.Forecast = known(280); in.PerSeedAtTarget = 0 }), 5, -1, ReasonNoSeedSize},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Combine(c.in)
			assert.Equal(t, c.desired, got.Desired, got.Message)
			assert.Equal(t, c.forecast, got.Forecast)
			assert.Equal(t, c.reason, got.Reason)
			assert.NotEmpty(t, got.Message)
			assert.GreaterOrEqual(t, got.Desired, c.in.Reactive, "never below the reactive decision")
			assert.LessOrEqual(t, got.Desired, max(c.in.MaxReplicas, c.in.Reactive), "never above maxReplicas")
		})
	}
}

func TestCombineRecordsTheForecastForItsWindows(t *testing.T) {
	b := recommend.Behavior{ScaleUp: recommend.DefaultScaleUp(), ScaleDown: recommend.DefaultScaleDown()}
	in := Input{Now: t0, CurrentReplicas: 5, MaxReplicas: 20, Behavior: b, Reactive: 5, Demand: 175, PerSeedAtTarget: 35, Forecast: known(280)}
	first := Combine(in)
	assert.Equal(t, []recommend.Recommendation{{At: t0, Replicas: 8}}, first.History)

	// A minute later, with 8 replicas, the forecast falls to 4: its scale-down window holds 8.
	in.Now, in.CurrentReplicas, in.Reactive, in.Forecast, in.History = t0.Add(time.Minute), 8, 5, known(140), first.History
	second := Combine(in)
	assert.Equal(t, int32(8), second.Desired)
	assert.Equal(t, ReasonHeldScaleIn, second.Reason)
}

func TestAccuracy(t *testing.T) {
	a := Accuracy{Threshold: 0.5, Window: 10 * time.Minute, Floor: 35}
	type step struct {
		at        time.Duration
		predicted Value
		actual    float64
		off       bool
		reason    Reason
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"on target stays on", []step{
			{0, known(100), 100, false, ReasonAccurate},
			{5 * time.Minute, known(140), 100, false, ReasonAccurate},
			{20 * time.Minute, known(60), 100, false, ReasonAccurate},
		}},
		{"off target for less than the window stays on", []step{
			{0, known(200), 100, false, ReasonDeviating},
			{9 * time.Minute, known(200), 100, false, ReasonDeviating},
			{10 * time.Minute, known(100), 100, false, ReasonAccurate},
			{19 * time.Minute, known(200), 100, false, ReasonDeviating},
		}},
		{"off target for the window turns off, on target for the window turns back on", []step{
			{0, known(200), 100, false, ReasonDeviating},
			{10 * time.Minute, known(10), 100, true, ReasonInaccurate},
			{15 * time.Minute, known(100), 100, true, ReasonInaccurate},
			{20 * time.Minute, known(300), 100, true, ReasonInaccurate},
			{25 * time.Minute, known(100), 100, true, ReasonInaccurate},
			{35 * time.Minute, known(110), 100, false, ReasonAccurate},
		}},
		{"nothing to judge keeps the state", []step{
			{0, known(200), 100, false, ReasonDeviating},
			{5 * time.Minute, Value{}, 100, false, ReasonDeviating},
			{10 * time.Minute, known(100), math.NaN(), false, ReasonDeviating},
			{11 * time.Minute, known(200), 100, true, ReasonInaccurate},
		}},
		{"a small demand is judged against the floor", []step{
			{0, known(15), 1, false, ReasonAccurate},
			{20 * time.Minute, known(15), 1, false, ReasonAccurate},
		}},
		{"a forecast that is not a number is off target", []step{
			{0, known(math.NaN()), 100, false, ReasonDeviating},
			{10 * time.Minute, known(math.NaN()), 100, true, ReasonInaccurate},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s AccuracyState
			for i, st := range c.steps {
				var reason Reason
				var msg string
				s, reason, msg = a.Observe(s, t0.Add(st.at), st.predicted, st.actual)
				assert.Equal(t, st.off, s.Off, "step %d: %s", i, msg)
				assert.Equal(t, st.reason, reason, "step %d: %s", i, msg)
				assert.NotEmpty(t, msg)
			}
		})
	}
}
