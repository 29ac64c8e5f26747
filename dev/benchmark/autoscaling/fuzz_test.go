package autoscaling

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// traceCSV writes shoots as a trace file, one row per minute.
func traceCSV(shoots []int) string {
	var b strings.Builder
	b.WriteString("minute,shoots\n")
	for m, n := range shoots {
		fmt.Fprintf(&b, "%d,%d\n", m, n)
	}
	return b.String()
}

// traceProblem is how a refused trace is told what is wrong: the line, or the header, or
// that it is too short.
var traceProblem = regexp.MustCompile(`^trace line \d+: |^trace: (reading the header: |the header is |at least two minutes|record on line \d+|parse error on line \d+)`)

// FuzzReadTrace feeds the benchmark's trace reader anything: it never panics, a trace it
// refuses is told the line, and a trace it takes reads back the same written out a row a
// minute.
func FuzzReadTrace(f *testing.F) {
	f.Add(traceCSV(BuiltinTrace(1).Shoots[:120]))
	f.Add(traceCSV(BuiltinTrace(1).Shoots[BuiltinTrace(1).SpikeFrom-5 : BuiltinTrace(1).SpikeFrom+10]))
	for _, s := range []string{
		"minute,shoots\n0,5\n1,7\n4,2\n",
		"",
		"min,shoots\n0,1\n1,2\n",
		"minute,shoots\n1,5\n2,5\n",
		"minute,shoots\n0,5\n0,6\n",
		"minute,shoots\n0,5\n1,-1\n",
		"minute,shoots\n0,5\nx,1\n",
		"minute,shoots\n0,5\n",
		"minute,shoots\n0,5,9\n1,4\n",
		"minute, shoots\r\n0, 5\r\n\"1\",\" 6\"\r\n",
		"minute,shoots\n0,5\n\"2\n\",6\n",
		"minute,shoots\n0,5\n99999999999,1\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tr, err := ReadTrace(strings.NewReader(text))
		if err != nil {
			assert.Regexp(t, traceProblem, err.Error())
			return
		}
		require.GreaterOrEqual(t, tr.Minutes(), 2)
		for _, n := range tr.Shoots {
			assert.GreaterOrEqual(t, n, 0)
		}
		again, err := ReadTrace(strings.NewReader(traceCSV(tr.Shoots)))
		require.NoError(t, err)
		assert.Equal(t, tr, again)
	})
}
