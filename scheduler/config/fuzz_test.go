package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// fieldPath is how a validation problem starts: the path of the field it is about and the
// kind of problem.
var fieldPath = regexp.MustCompile(`^(apiVersion|kind|schedulerName|binding|strategy|scoring\.plugins\[\d+\]\.(name|weight)|workers|` +
	`backoff\.(baseSeconds|maxSeconds)|defaultSeedCapacity|drain\.(maxMigrationsPerSeed|maxMigrationsPerSet|failedMigrationCooldownSeconds)): ` +
	`(Unsupported value|Duplicate value|Invalid value): `)

// decodeProblem is what a file that does not decode is told: the line of a YAML error, the
// unknown field, the field of a value of the wrong type, or that the file is no mapping.
var decodeProblem = regexp.MustCompile(`line \d+|unknown field "|^[a-zA-Z]+(\.[a-zA-Z]+|\[\d+\])*: Invalid value: an? .* is given, use |^the file is `)

// FuzzParse feeds the scheduler's configuration file parser anything: it never panics, a
// file it refuses is told what is wrong where, and a file it takes reads back the same
// once written out.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"scheduler.yaml", "scheduler-gardener.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", "config", name))
		require.NoError(f, err)
		f.Add(data)
	}
	for _, s := range []string{
		"",
		"apiVersion: v1\nkind: Pod\n",
		"workers: 0\nbackoff: {baseSeconds: 5, maxSeconds: 1}\n",
		"workers: 1.5\n",
		"workers: 99999999999\n",
		"workers: [1\n",
		"pendingFit: {otherSchedulers: yes please}\n",
		"scoring: {plugins: [{name: MinimalDistance, weight: 0}, {name: MinimalDistance, weight: 101}, {name: Nope}]}\n",
		"scoring: {plugins: [{}]}\n",
		"drain: {maxMigrationsPerSeed: 3, maxMigrationsPerSet: 1, failedMigrationCooldownSeconds: -1}\n",
		"drain: 3\n",
		"schedulerName: ' padded '\n",
		"- 1\n- 2\n",
		"just a string\n",
		"42\n",
		"workers: 2\nworkers: 3\n",
		"backoff: {baseSecond: 1}\n",
		"a: &a [*a, *a]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			assertNamesTheField(t, err.Error())
			return
		}
		require.NotNil(t, c)
		// What the parser took, written out and read again, is the same configuration.
		out, err := yaml.Marshal(c)
		require.NoError(t, err)
		again, err := Parse(out)
		require.NoError(t, err, "written out as\n%s", out)
		assert.Equal(t, c, again)
	})
}

func assertNamesTheField(t *testing.T, msg string) {
	t.Helper()
	switch {
	case strings.HasPrefix(msg, "invalid scheduler configuration: "):
		for line := range strings.SplitSeq(strings.TrimPrefix(msg, "invalid scheduler configuration: "), "\n") {
			assert.Regexp(t, fieldPath, line, "every problem names its field")
		}
	case strings.HasPrefix(msg, "decoding the scheduler configuration: "):
		assert.Regexp(t, decodeProblem, strings.TrimPrefix(msg, "decoding the scheduler configuration: "), "a decoding error names its line or field")
	default:
		assert.Fail(t, "an error says which stage refused the file", "%q", msg)
	}
}
