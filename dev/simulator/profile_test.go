package simulator

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func dur(d time.Duration) metav1.Duration { return metav1.Duration{Duration: d} }

func TestRampDesired(t *testing.T) {
	up := RampProfile{From: 0, To: 100, Start: dur(time.Hour), Over: dur(4 * time.Hour)}
	down := RampProfile{From: 40, To: 10, Over: dur(time.Hour)}
	tests := []struct {
		p    RampProfile
		at   time.Duration
		want int
	}{
		{up, 0, 0},
		{up, time.Hour, 0},
		{up, 2 * time.Hour, 25},
		{up, 3 * time.Hour, 50},
		{up, 5 * time.Hour, 100},
		{up, 50 * time.Hour, 100},
		{down, 30 * time.Minute, 25},
		{down, 2 * time.Hour, 10},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, RampDesired(tt.p, tt.at), "%+v at %s", tt.p, tt.at)
	}
}

func TestStepDesired(t *testing.T) {
	steps := []StepPoint{{At: dur(10 * time.Minute), Shoots: 5}, {At: dur(time.Hour), Shoots: 20}, {At: dur(2 * time.Hour), Shoots: 0}}
	for at, want := range map[time.Duration]int{
		0: 0, 10 * time.Minute: 5, 59 * time.Minute: 5, time.Hour: 20, 90 * time.Minute: 20, 2 * time.Hour: 0, 10 * time.Hour: 0,
	} {
		assert.Equal(t, want, StepDesired(steps, at), "at %s", at)
	}
}

func TestSineDesired(t *testing.T) {
	p := SineProfile{Min: 10, Max: 110, Period: dur(24 * time.Hour), PeakAt: &metav1.Duration{Duration: 15 * time.Hour}}
	for at, want := range map[time.Duration]int{
		15 * time.Hour: 110, // peak
		3 * time.Hour:  10,  // trough, half a period away
		9 * time.Hour:  60,  // halfway down
		21 * time.Hour: 60,  // halfway up again
		39 * time.Hour: 110, // the next day's peak
		0:              25,  // 10 + 100·(1+cos(-15/24·2π))/2 = 24.9
	} {
		assert.Equal(t, want, SineDesired(p, at), "at %s", at)
	}
}

func TestDesiredByProfile(t *testing.T) {
	replay, err := ParseReplay(strings.NewReader("offset,gcp/europe-west1,aws/eu-central-1\n30m,1,2\n1h,3,0\n"))
	require.NoError(t, err)
	tests := []struct {
		d    DemandConfig
		at   time.Duration
		want map[string]int
	}{
		{DemandConfig{Profile: ProfileConstant, Constant: &ConstantProfile{Shoots: 7}}, 3 * time.Hour, map[string]int{AnyLocation: 7}},
		{DemandConfig{Profile: ProfileRamp, Ramp: &RampProfile{To: 10, Over: dur(time.Hour)}}, 30 * time.Minute, map[string]int{AnyLocation: 5}},
		{DemandConfig{Profile: ProfileStep, Steps: []StepPoint{{At: dur(0), Shoots: 4}}}, time.Minute, map[string]int{AnyLocation: 4}},
		{DemandConfig{Profile: ProfileReplay, Replay: &ReplayProfile{Data: replay}}, 10 * time.Minute, map[string]int{"gcp/europe-west1": 0, "aws/eu-central-1": 0}},
		{DemandConfig{Profile: ProfileReplay, Replay: &ReplayProfile{Data: replay}}, 30 * time.Minute, map[string]int{"gcp/europe-west1": 1, "aws/eu-central-1": 2}},
		{DemandConfig{Profile: ProfileReplay, Replay: &ReplayProfile{Data: replay}}, 59 * time.Minute, map[string]int{"gcp/europe-west1": 1, "aws/eu-central-1": 2}},
		{DemandConfig{Profile: ProfileReplay, Replay: &ReplayProfile{Data: replay}}, 5 * time.Hour, map[string]int{"gcp/europe-west1": 3, "aws/eu-central-1": 0}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Desired(&tt.d, tt.at), "%s at %s", tt.d.Profile, tt.at)
	}
}

func TestParseReplayOffsets(t *testing.T) {
	r, err := ParseReplay(strings.NewReader("offset, gcp/a\n0,1\n90,2\n2h,3\n"))
	require.NoError(t, err)
	assert.Equal(t, []ReplayPoint{{At: 0, Shoots: []int{1}}, {At: 90 * time.Second, Shoots: []int{2}}, {At: 2 * time.Hour, Shoots: []int{3}}}, r.Points)
}

func TestDrawLifetime(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	_, finite := DrawLifetime(Lifetime{Distribution: DistributionForever}, r)
	assert.False(t, finite)

	uniform := Lifetime{Distribution: DistributionUniform, Min: dur(time.Hour), Max: dur(2 * time.Hour)}
	exp := Lifetime{Distribution: DistributionExponential, Mean: dur(time.Hour)}
	var sum time.Duration
	const n = 4000
	for range n {
		d, ok := DrawLifetime(uniform, r)
		require.True(t, ok)
		require.GreaterOrEqual(t, d, time.Hour)
		require.Less(t, d, 2*time.Hour)
		e, _ := DrawLifetime(exp, r)
		require.GreaterOrEqual(t, e, time.Duration(0))
		sum += e
	}
	assert.InDelta(t, time.Hour.Seconds(), (sum / n).Seconds(), 0.1*time.Hour.Seconds(), "the exponential draws average to the mean")
}

func TestPickWeighted(t *testing.T) {
	w := []float64{1, 0, 3}
	assert.Equal(t, 0, PickWeighted(w, 0))
	assert.Equal(t, 0, PickWeighted(w, 0.24))
	assert.Equal(t, 2, PickWeighted(w, 0.25))
	assert.Equal(t, 2, PickWeighted(w, 0.999))
	assert.Equal(t, 0, PickWeighted([]float64{0, 0}, 0.5))
}

func TestJittered(t *testing.T) {
	assert.Equal(t, 80*time.Second, Jittered(100*time.Second, 0.2, 0))
	assert.Equal(t, 100*time.Second, Jittered(100*time.Second, 0.2, 0.5))
	assert.Equal(t, 100*time.Second, Jittered(100*time.Second, 0, 0.9))
}
