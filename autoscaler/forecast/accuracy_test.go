package forecast

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestError(t *testing.T) {
	a := Accuracy{Floor: 35}
	cases := []struct {
		name      string
		predicted Value
		actual    float64
		want      float64
		judged    bool
	}{
		{"exact", known(100), 100, 0, true},
		{"above", known(150), 100, 0.5, true},
		{"below", known(50), 100, 0.5, true},
		{"a small demand counts as one seed at the target", known(15), 1, 14.0 / 35, true},
		{"no demand at all", known(35), 0, 1, true},
		{"a forecast that is not a number is infinitely off", known(math.NaN()), 100, math.Inf(1), true},
		{"no forecast: nothing to judge", Value{}, 100, 0, false},
		{"no demand known: nothing to judge", known(100), math.NaN(), 0, false},
		{"an infinite demand: nothing to judge", known(100), math.Inf(1), 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, judged := a.Error(c.predicted, c.actual)
			assert.Equal(t, c.judged, judged)
			assert.InDelta(t, c.want, got, 1e-9)
		})
	}
}

func TestMeanError(t *testing.T) {
	a := Accuracy{Window: time.Hour} // buckets of 5 minutes
	type judgement struct {
		at     time.Duration
		errRel float64
	}
	cases := []struct {
		name       string
		judgements []judgement
		now        time.Duration
		want       float64
		count      int32
		buckets    int
	}{
		{"none", nil, 0, 0, 0, 0},
		{"one", []judgement{{0, 0.12}}, 0, 0.12, 1, 1},
		{"the mean of the absolute errors", []judgement{{0, 0.1}, {time.Minute, 0.3}, {10 * time.Minute, 0.5}}, 10 * time.Minute, 0.3, 3, 2},
		{"whole percent", []judgement{{0, 0.123}, {time.Minute, 0.124}}, time.Minute, 0.12, 2, 1},
		{"one error counts at most 1000%", []judgement{{0, 50}, {time.Minute, 0}}, time.Minute, 5, 2, 1},
		{"an infinite error counts as 1000%", []judgement{{0, math.Inf(1)}}, 0, 10, 1, 1},
		{"errors older than the window are forgotten, a bucket at a time", []judgement{
			{0, 1}, {4 * time.Minute, 1}, {10 * time.Minute, 0.2}, {50 * time.Minute, 0.4},
		}, 65 * time.Minute, 0.3, 2, 2},
		{"a bucket counts while any of it is in the window", []judgement{{0, 1}, {10 * time.Minute, 0}}, 64 * time.Minute, 0.5, 2, 2},
		{"nothing in the window", []judgement{{0, 1}}, 2 * time.Hour, 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buckets []ErrorBucket
			for _, j := range c.judgements {
				buckets = a.RecordError(buckets, t0.Add(j.at), j.errRel)
			}
			got, count := a.MeanError(buckets, t0.Add(c.now))
			assert.InDelta(t, c.want, got, 1e-9)
			assert.Equal(t, c.count, count)
			assert.Len(t, a.InWindow(buckets, t0.Add(c.now)), c.buckets)
		})
	}
}

func TestRecordErrorKeepsFewBuckets(t *testing.T) {
	narrow := Accuracy{Window: time.Minute}
	var buckets []ErrorBucket
	for i := range 100 {
		buckets = narrow.RecordError(buckets, t0.Add(time.Duration(i)*time.Second), 0.1)
	}
	assert.LessOrEqual(t, len(buckets), MaxErrorBuckets, "a judgement every second, buckets of 5 s")

	// The window grows: the narrow buckets of the old one are within the new window.
	wide := Accuracy{Window: time.Hour}
	for i := range 100 {
		buckets = wide.RecordError(buckets, t0.Add(100*time.Second+time.Duration(i)*5*time.Minute), 0.1)
		require.LessOrEqual(t, len(buckets), MaxErrorBuckets)
	}
	mean, _ := wide.MeanError(buckets, t0.Add(100*time.Second+99*5*time.Minute))
	assert.InDelta(t, 0.1, mean, 1e-9)
}
