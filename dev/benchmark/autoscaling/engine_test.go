package autoscaling

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tinyConfig is seeds of 10 shoots and a trace of 10 shoots, then 20 for an hour.
func tinyConfig() Config {
	shoots := []int{10}
	for range 60 {
		shoots = append(shoots, 20)
	}
	cfg := DefaultConfig(Trace{Shoots: shoots})
	cfg.AllocatablePerSeed = 10
	return cfg
}

// One seed of 10 holds the first minute's 10 shoots. During minute 1 ten more arrive, at
// 60, 66, ..., 114 s: the seed is full, so all ten pend. The scrape at 60 s sees the first
// pending shoot, the sync at 72 s sees that scrape (12 s old, past the 5 s cache) and asks
// for a second seed, which is ready 15 minutes later, at 972 s, and takes all ten. Until
// then the pending shoots ask for no third seed: the second one, not registered yet, has
// no shoots and takes them. The seasonal forecast changes nothing: it has no day behind it.
func TestTinyTraceByHand(t *testing.T) {
	cfg := tinyConfig()

	for _, policy := range []Policy{PolicyReactive, PolicySeasonal} {
		t.Run(string(policy), func(t *testing.T) {
			res, err := Run(cfg, policy, 100)
			require.NoError(t, err)

			// Waits 912, 906, ..., 858 s: 8,850 shoot-seconds.
			assert.InDelta(t, 8850.0/60, res.ShootMinutesPending, 1e-9)
			assert.Equal(t, 882*time.Second, res.P50Bind, "the 5th of 10 waits")
			assert.Equal(t, 912*time.Second, res.P99Bind)
			// Seed 1 for the 61 minutes of the trace, seed 2 from 72 s on.
			assert.InDelta(t, (3660.0+3660-72)/3600, res.SeedHours, 1e-9)
			// The oracle: one seed until the 11th shoot at 60 s, two after.
			assert.InDelta(t, (60.0+2*3600)/3600, res.OracleSeedHours, 1e-9)
			assert.InDelta(t, res.OracleSeedHours, res.AtTargetSeedHours, 1e-9, "at 100% the target is the oracle")
			assert.Equal(t, 1, res.ScaleEvents)
			require.Len(t, res.Timeline, 61)
			assert.Equal(t, Point{Minute: 10, Demand: 20, Pending: 10, Seeds: 2, Capacity: 10}, res.Timeline[10])
			assert.Equal(t, Point{Minute: 20, Demand: 20, Pending: 0, Seeds: 2, Capacity: 20}, res.Timeline[20])
		})
	}
}

// At a 50% target a seed of 10 holds 5 shoots: 2 seeds for the first minute's 10, 3 from
// the 11th shoot at 60 s, 4 from the 16th at 90 s, whatever the run does.
func TestAtTargetSeedHoursFollowTheDemand(t *testing.T) {
	res, err := Run(tinyConfig(), PolicyReactive, 50)
	require.NoError(t, err)
	assert.InDelta(t, (2*60.0+3*30+4*3570)/3600, res.AtTargetSeedHours, 1e-9)
}

// The event policy decides as soon as the sample is visible, at 65 s instead of 72 s, so
// every pending shoot waits 7 s less.
func TestEventPolicyDecidesWithoutTheSyncWait(t *testing.T) {
	cfg := tinyConfig()
	res, err := Run(cfg, PolicyEvent, 100)
	require.NoError(t, err)
	assert.InDelta(t, (8850.0-70)/60, res.ShootMinutesPending, 1e-9)
	assert.Equal(t, 905*time.Second, res.P99Bind)
}

func TestSameSeedSameCSV(t *testing.T) {
	week := BuiltinTrace(7)
	// Two days: enough for the seasonal forecast to have a day behind it.
	trace := Trace{Shoots: week.Shoots[:2*24*60]}
	cfg := DefaultConfig(trace)
	cfg.Deletion = DeleteRandom
	csvOf := func(workers int) string {
		res, err := RunAll(cfg, []Policy{PolicyReactive, PolicyAhead}, []int32{60, 90}, workers)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, WriteCSV(&b, res))
		return b.String()
	}
	first := csvOf(2)
	assert.Equal(t, first, csvOf(2))
	assert.Equal(t, first, csvOf(1), "however many runs at once")
	assert.Equal(t, strings.Join(CSVHeader, ","), strings.SplitN(first, "\n", 2)[0])
	assert.Equal(t, BuiltinTrace(7), week, "the trace is the seed's")
	assert.NotEqual(t, BuiltinTrace(8).Shoots, week.Shoots)
}

func TestBuiltinTraceHasItsShape(t *testing.T) {
	tr := BuiltinTrace(1)
	require.Equal(t, 7*24*60, tr.Minutes())
	at := func(day, hour int) int { return tr.Shoots[day*24*60+hour*60] }
	assert.InDelta(t, 300, at(0, 3), 30, "Monday night")
	assert.InDelta(t, 1000, at(0, 13), 60, "Monday afternoon")
	assert.InDelta(t, 550*1.08, at(5, 13), 60, "Saturday afternoon, after most of a week's growth")
	assert.Greater(t, at(4, 13), at(0, 13), "the demand grows over the week")
	spike := tr.Shoots[tr.SpikeFrom+10] - tr.Shoots[tr.SpikeFrom-1]
	assert.InDelta(t, 200, spike, 30, "the spike")
}

func TestHolidayLaunchTraceHasItsShape(t *testing.T) {
	tr := HolidayLaunchTrace(1)
	require.Equal(t, 7*24*60, tr.Minutes())
	at := func(day, hour int) int { return tr.Shoots[day*24*60+hour*60] }
	working := BuiltinTrace(1)
	assert.Equal(t, working.Shoots[:24*60], tr.Shoots[:24*60], "Monday is the working-day week's")
	assert.InDelta(t, 550, at(1, 13), 60, "the holiday, Tuesday, has a weekend's demand")
	assert.InDelta(t, 1000, at(2, 13), 70, "Wednesday is a working day again")
	assert.InDelta(t, at(2, 3)+200, at(3, 23)-5, 40, "the launch's 200 shoots stay through Thursday night")
	assert.InDelta(t, 200, at(4, 3)-at(2, 3), 40, "and through Friday's")
	assert.Zero(t, tr.SpikeTo, "the week has no spike")
}

func TestReadTrace(t *testing.T) {
	tr, err := ReadTrace(strings.NewReader("minute,shoots\n0,5\n1,7\n4,2\n"))
	require.NoError(t, err)
	assert.Equal(t, []int{5, 7, 7, 7, 2}, tr.Shoots, "a minute left out keeps the one before")

	for input, want := range map[string]string{
		"":                                         "reading the header",
		"min,shoots\n0,1\n1,2\n":                   `the header is "min,shoots", want minute,shoots`,
		"minute,shoots\n1,5\n2,5\n":                "the first minute is 1, want 0",
		"minute,shoots\n0,5\n0,6\n":                "minute 0 comes after minute 0",
		"minute,shoots\n0,5\n1,-1\n":               `line 3: shoots "-1" is not a whole number of 0 or more`,
		"minute,shoots\n0,5\nx,1\n":                `line 3: minute "x" is not a whole number of 0 or more`,
		"minute,shoots\n0,5\n":                     "at least two minutes",
		"minute,shoots\n0,5,9\n1,4\n":              "wrong number of fields",
		"minute,shoots\n0,5\n99999999999,1\n":      "line 3: minute 99999999999 is beyond a year (527040 minutes)",
		"minute,shoots\n0,5\n\"1\n\",6\n\"x\",1\n": `line 5: minute "x" is not a whole number`,
	} {
		_, err := ReadTrace(strings.NewReader(input))
		assert.ErrorContains(t, err, want, "input %q", input)
	}
}

func TestRunRefusesWhatItCannotModel(t *testing.T) {
	cfg := DefaultConfig(Trace{Shoots: []int{1, 2}})
	_, err := Run(cfg, "psychic", 70)
	assert.ErrorContains(t, err, `policy "psychic" is unknown`)
	_, err = Run(cfg, PolicyReactive, 0)
	assert.ErrorContains(t, err, "target utilization 0% must be positive")
	cfg.AllocatablePerSeed = 0
	_, err = Run(cfg, PolicyReactive, 70)
	assert.ErrorContains(t, err, "allocatable shoots per seed is 0")
}

func TestHeadlines(t *testing.T) {
	run := func(p Policy, target int32, p99 time.Duration, hours float64) Result {
		return Result{Policy: p, TargetPercent: target, P99Bind: p99, SeedHours: hours}
	}
	hs := Headlines([]Result{
		run(PolicyReactive, 50, 0, 300), run(PolicyReactive, 70, 60*time.Second, 200), run(PolicyReactive, 90, 61*time.Second, 100),
		run(PolicyAhead, 50, 0, 250), run(PolicyAhead, 90, 10*time.Second, 150),
		run(PolicyTrend, 50, 2*time.Minute, 300), run(PolicyTrend, 90, 5*time.Minute, 100),
	})
	require.Len(t, hs, 3)
	assert.Equal(t, Headline{Policy: PolicyReactive, Run: run(PolicyReactive, 70, 60*time.Second, 200), Met: true}, hs[0], "the service level is p99 <= 60 s")
	assert.Equal(t, Headline{Policy: PolicyAhead, Run: run(PolicyAhead, 90, 10*time.Second, 150), Met: true}, hs[1])
	assert.Equal(t, Headline{Policy: PolicyTrend, Run: run(PolicyTrend, 50, 2*time.Minute, 300)}, hs[2], "none meets it: the shortest wait")
	md := Markdown(hs)
	assert.Contains(t, md, "| ahead | 90% | 150.0 | -25.0% | 150.0 | 0.0 | 0 s / 10 s | — | 0 |", "no spike, no spike figure")
	assert.Contains(t, md, "| trend | 50% (none meets p99 ≤ 1m0s) |")
}

// A steady ramp of 200 shoots an hour outgrows 20% of headroom within the 15 minutes a seed
// takes: the reactive autoscaler leaves shoots waiting, the trend asks for the seeds ahead.
func TestTrendScalesAheadOfARamp(t *testing.T) {
	var shoots []int
	for m := range 4 * 60 {
		shoots = append(shoots, 100+min(m, 180)*200/60)
	}
	cfg := DefaultConfig(Trace{Shoots: shoots})
	reactive, err := Run(cfg, PolicyReactive, 80)
	require.NoError(t, err)
	trend, err := Run(cfg, PolicyTrend, 80)
	require.NoError(t, err)
	require.Greater(t, reactive.ShootMinutesPending, 10.0, "the ramp outgrows the reactive autoscaler")
	assert.Less(t, trend.ShootMinutesPending, reactive.ShootMinutesPending/4)
	assert.Less(t, trend.P99Bind, reactive.P99Bind)
	assert.GreaterOrEqual(t, trend.SeedHours, reactive.SeedHours, "seeds ahead of the demand cost seed-hours")
}

func TestSpikeFiguresCountTheShootsCreatedDuringIt(t *testing.T) {
	cfg := tinyConfig()
	cfg.Trace.SpikeFrom, cfg.Trace.SpikeTo = 1, 2
	res, err := Run(cfg, PolicyReactive, 100)
	require.NoError(t, err)
	assert.Equal(t, 10, res.SpikeShoots, "the ten shoots of minute 1")
	assert.Equal(t, 912*time.Second, res.SpikeP99Bind)
}
