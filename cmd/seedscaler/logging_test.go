package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	logsapi "k8s.io/component-base/logs/api/v1"
)

// run runs seedscaler in this process with args and returns what it wrote to standard
// error, the final error included, as main reports it.
func run(t *testing.T, args ...string) string {
	t.Helper()
	// The logging configuration is global to a process and applied once: undo it.
	t.Cleanup(func() { require.NoError(t, logsapi.ResetForTest(nil)) })
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	root, logging := rootCommand()
	var stderr bytes.Buffer
	root.SetErr(&stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	require.Error(t, err, "the part started despite a kubeconfig that does not exist")
	logging.Fail(&stderr, err)
	return stderr.String()
}

// A part fails on a kubeconfig that does not exist, after logging which garbage collector
// target it runs with.
func partArgs(t *testing.T, extra ...string) []string {
	return append([]string{"autoscaler", "--kubeconfig=" + filepath.Join(t.TempDir(), "missing"),
		"--metrics-bind-address=0", "--health-probe-bind-address=0"}, extra...)
}

func TestJSONLogsAreOneObjectALine(t *testing.T) {
	out := run(t, partArgs(t, "--logging-format=json")...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, "%s", out)
	var entries []map[string]any
	for _, line := range lines {
		var entry map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &entry), "not a JSON line: %s", line)
		for _, key := range []string{"ts", "caller", "msg"} {
			assert.Contains(t, entry, key, "%s", line)
		}
		assert.IsType(t, float64(0), entry["ts"], "ts is a Unix timestamp in milliseconds")
		assert.NotContains(t, entry["caller"], "app/logging.go", "the caller is the code that logged, not the logging setup")
		entries = append(entries, entry)
	}

	assert.Equal(t, "Garbage collector target", entries[0]["msg"])
	assert.Equal(t, "autoscaler", entries[0]["logger"])
	assert.Equal(t, float64(0), entries[0]["v"])
	assert.Equal(t, float64(400), entries[0]["gogc"])

	assert.Equal(t, "Command failed", entries[1]["msg"])
	assert.Contains(t, entries[1]["err"], "loading kubeconfig")
	assert.NotContains(t, entries[1], "v", "an error has no verbosity")
}

func TestTextLogsAreKlogsAndTheErrorAPlainLine(t *testing.T) {
	out := run(t, partArgs(t, "-v=2")...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, "%s", out)
	assert.Regexp(t, `^I\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ main\.go:\d+\] "Garbage collector target" logger="autoscaler" gogc=400`, lines[0])
	assert.Regexp(t, `^seedscaler: loading kubeconfig .*missing`, lines[1])
}

func TestABadLoggingFlagStopsTheCommandBeforeItRuns(t *testing.T) {
	out := run(t, partArgs(t, "--logging-format=json", "--vmodule=reconciler=4")...)
	assert.Equal(t, "seedscaler: --vmodule works only with --logging-format=text: drop --vmodule, or log text\n", out)
}
