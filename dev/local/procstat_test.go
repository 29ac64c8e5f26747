package local

import (
	"os"
	"os/exec"
	"path/filepath"
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

// A program with a name longer than the kernel keeps, as gardener-controller-manager's, is
// found by its full name.
func TestDescendantsNamedFindsALongName(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	require.NoError(t, err)
	data, err := os.ReadFile(sleep)
	require.NoError(t, err)
	long := filepath.Join(t.TempDir(), "gardener-controller-manager")
	require.NoError(t, os.WriteFile(long, data, 0o755))
	cmd := exec.Command(long, "30")
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	found, err := descendantsNamed("/proc", os.Getpid(), "gardener-controller-manager", "gardener-apiserver")
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"gardener-controller-manager": cmd.Process.Pid}, found)
}

func TestCommName(t *testing.T) {
	assert.Equal(t, "etcd", commName("etcd"))
	assert.Equal(t, "gardener-apiser", commName("gardener-apiserver"))
	assert.Equal(t, "gardener-contro", commName("gardener-controller-manager"))
}
