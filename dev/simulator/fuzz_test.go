package simulator

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// fieldProblem is how each problem of a configuration that names no line starts: the field
// (or fields) it is about, or the unknown field.
var fieldProblem = regexp.MustCompile(`^([a-zA-Z]+(\.[a-zA-Z]+|\[\d+\])*(, )?)+: |unknown field "`)

var atLine = regexp.MustCompile(`\bline \d+\b`)

// FuzzParseConfiguration feeds the simulator's configuration parser anything: it never
// panics, a file it refuses is told the field or line of every problem, and a file it
// takes reads back the same once written out.
func FuzzParseConfiguration(f *testing.F) {
	for _, name := range []string{"simulator.yaml", "demo-day.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", "config", name))
		require.NoError(f, err)
		f.Add(data)
	}
	for _, s := range []string{
		"",
		"speed: -1\ntick: 0s\nwriters: 0\ndemand: {profile: ramp}\n",
		"demand: {profile: step, steps: [{at: 1h, shoots: 2}, {at: 30m, shoots: -1}]}\n",
		"demand: {profile: sine, sine: {min: 5, max: 1, period: soon}}\n",
		"demand: {profile: constant, constant: {shoots: x}}\n",
		"faults: [{type: fire, at: -1s, duration: 0s}]\n",
		"shoots: {jitter: 1.5, failureRate: 2}\n",
		"demand: {profile: replay}\n",
		"demand: {projects: ['Dev', ''], profile: constant, constant: {shoots: 1}}\n",
		"- demand\n",
		"tick: 5\n",
		"duration: 1h: 2h\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfiguration(data)
		if err != nil {
			if atLine.MatchString(err.Error()) {
				return // a decoding error, at its line (the YAML parser's may take several)
			}
			for line := range strings.SplitSeq(err.Error(), "\n") {
				assert.Regexp(t, fieldProblem, line, "every problem names its field")
			}
			return
		}
		out, err := yaml.Marshal(cfg)
		require.NoError(t, err)
		again, err := ParseConfiguration(out)
		require.NoError(t, err, "written out as\n%s", out)
		assert.Equal(t, cfg, again)
	})
}

// replayCSV writes a replay as a replay file, offsets as Go durations.
func replayCSV(r *Replay) string {
	var b strings.Builder
	b.WriteString("offset," + strings.Join(r.Locations, ",") + "\n")
	for _, p := range r.Points {
		b.WriteString(p.At.String())
		for _, n := range p.Shoots {
			fmt.Fprintf(&b, ",%d", n)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// replayProblem is how a refused replay file is told what is wrong: the line (and column).
var replayProblem = regexp.MustCompile(`^line \d+|^empty replay CSV|^the replay CSV has a header but no rows|^(record|parse error) on line \d+`)

// FuzzParseReplay feeds the replay profile's CSV reader anything: it never panics, a file
// it refuses is told the line, and a file it takes reads back the same written out with
// offsets as durations.
func FuzzParseReplay(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "config", "demand-replay.csv"))
	require.NoError(f, err)
	f.Add(string(data))
	for _, s := range []string{
		"",
		"time,gcp/x\n",
		"offset,gcp\n0,1\n",
		"offset,gcp/x,gcp/x\n0,1,1\n",
		"offset,gcp/x\n",
		"offset,gcp/x\nsoon,1\n",
		"offset,gcp/x\n1h,1\n30m,2\n",
		"offset,gcp/x\n0,-1\n",
		"offset,gcp/x,aws/y\n0,1\n",
		"# comment\noffset,gcp/x\n0,1\n1,",
		"offset,gcp/x\nNaN,1\n",
		"offset,gcp/x\n1e300,1\n",
		"offset,gcp/x\n0.5,1\n90m,2\n2562047h,3\n",
		"offset,gcp/x\n-Inf,1\n",
		"offset,gcp/x\n-0,1\n+Inf,2\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r, err := ParseReplay(strings.NewReader(text))
		if err != nil {
			assert.Regexp(t, replayProblem, err.Error())
			return
		}
		for i, p := range r.Points {
			assert.GreaterOrEqual(t, p.At, time.Duration(0))
			if i > 0 {
				assert.Greater(t, p.At, r.Points[i-1].At, "offsets increase")
			}
			require.Len(t, p.Shoots, len(r.Locations))
		}
		again, err := ParseReplay(strings.NewReader(replayCSV(r)))
		require.NoError(t, err, "written out as\n%s", replayCSV(r))
		assert.Equal(t, r, again)
	})
}
