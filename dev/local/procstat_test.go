package local

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
