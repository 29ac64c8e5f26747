package local

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadProcStat(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "42")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	// A command name with a space and a parenthesis, as comm may hold.
	stat := "42 (kube (api) x) S 7 42 42 0 -1 4194560 100 0 0 0 250 150 0 0 20 0 12 0 1000 1000000 500 18446744073709551615\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "status"), []byte("Name:\tkube\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nRssAnon:\t   40960 kB\nRssFile:\t   61440 kB\n"), 0o644))
	s, err := readProcStat(root, 42)
	require.NoError(t, err)
	assert.Equal(t, procStat{PID: 42, RSS: 100 << 20, PeakRSS: 200 << 20, Anon: 40 << 20, CPU: 4 * time.Second}, s)

	_, err = readProcStat(root, 43)
	assert.Error(t, err, "a process that is gone")
}

// The real /proc: a child of this test process is found by its name, and its figures are
// those of a live process.
func TestDescendantsNamedOnThisMachine(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	found, err := descendantsNamed("/proc", os.Getpid(), "sleep", "no-such-process")
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"sleep": cmd.Process.Pid}, found)
	s, err := readProcStat("/proc", cmd.Process.Pid)
	require.NoError(t, err)
	assert.Positive(t, s.RSS)
	assert.GreaterOrEqual(t, s.PeakRSS, s.RSS)
	assert.Positive(t, s.Anon)
	assert.LessOrEqual(t, s.Anon, s.RSS, "anonymous memory is part of the resident")
}
