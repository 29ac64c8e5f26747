package stats

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestPercentile(t *testing.T) {
	s := func(n ...int) []time.Duration {
		out := make([]time.Duration, len(n))
		for i, v := range n {
			out[i] = time.Duration(v) * time.Second
		}
		return out
	}
	cases := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"none", nil, 0.5, 0},
		{"one", s(7), 0.99, 7 * time.Second},
		{"p50 of five is the third", s(1, 2, 3, 4, 5), 0.5, 3 * time.Second},
		{"p90 of five is the fifth", s(1, 2, 3, 4, 5), 0.9, 5 * time.Second},
		{"p50 of four is the second", s(1, 2, 3, 4), 0.5, 2 * time.Second},
		{"p99 of 100 is the 99th", s(func() []int {
			v := make([]int, 100)
			for i := range v {
				v[i] = i + 1
			}
			return v
		}()...), 0.99, 99 * time.Second},
		{"p0 is the smallest", s(1, 2, 3), 0, time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { assert.Equal(t, c.want, Percentile(c.sorted, c.p)) })
	}
}
