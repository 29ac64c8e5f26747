package proc

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseStat(t *testing.T) {
	// A command name with a space and parentheses, as comm may hold.
	p, err := ParseStat([]byte("42 (kube (api) x) S 7 42 42 0 -1 4194560 100 0 0 0 250 150 0 0 20 0 12 0 1000 1000000 500 18446744073709551615\n"))
	require.NoError(t, err)
	assert.Equal(t, Process{PID: 42, PPID: 7, Comm: "kube (api) x", CPU: 4 * time.Second}, p)

	for _, bad := range []string{"", "42 kube S 7", "42 (kube) S 7 1 2", "x (kube) S 7 42 42 0 -1 4194560 100 0 0 0 250 150 0", "42 (kube) S 7 42 42 0 -1 4194560 100 0 0 0 many 150 0"} {
		_, err := ParseStat([]byte(bad))
		assert.Error(t, err, "%q", bad)
	}
}

func TestReadMemory(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "42"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "42", "status"), []byte("Name:\tkube\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nRssAnon:\t   40960 kB\nRssFile:\t   61440 kB\n"), 0o644))
	m, err := ReadMemory(root, 42)
	require.NoError(t, err)
	assert.Equal(t, Memory{RSS: 100 << 20, PeakRSS: 200 << 20, Anon: 40 << 20}, m)
	_, err = ReadMemory(root, 43)
	assert.Error(t, err, "a process that is gone")
}

func TestCmdline(t *testing.T) {
	root := t.TempDir()
	for pid, cmdline := range map[string]string{"42": "/usr/bin/etcd\x00--data-dir=/var/lib/etcd\x00a b\x00", "43": ""} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, pid), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, pid, "cmdline"), []byte(cmdline), 0o644))
	}
	args, err := Cmdline(root, 42)
	require.NoError(t, err)
	assert.Equal(t, []string{"/usr/bin/etcd", "--data-dir=/var/lib/etcd", "a b"}, args, "split at NUL, an argument's spaces kept")
	args, err = Cmdline(root, 43)
	require.NoError(t, err)
	assert.Empty(t, args, "a kernel thread or zombie has no command line")
	assert.Equal(t, "", CommandName(root, 43))
	_, err = Cmdline(root, 44)
	assert.Error(t, err, "a process that is gone")
	assert.Equal(t, "", CommandName(root, 44))
}

func TestDescendants(t *testing.T) {
	procs := []Process{{PID: 1}, {PID: 10, PPID: 1}, {PID: 11, PPID: 10}, {PID: 12, PPID: 11}, {PID: 20, PPID: 1}, {PID: 21, PPID: 20}}
	var below []int
	for _, p := range Descendants(procs, 10) {
		below = append(below, p.PID)
	}
	assert.ElementsMatch(t, []int{11, 12}, below)
	assert.Empty(t, Descendants(procs, 12))
}

// The real /proc: a child of this test process is listed below it, with its name and the
// figures of a live process.
func TestThisMachine(t *testing.T) {
	cmd := exec.Command("sleep", "30", "1")
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		procs, err := List(Root)
		require.NoError(c, err)
		var found []Process
		for _, p := range Descendants(procs, os.Getpid()) {
			if p.PID == cmd.Process.Pid {
				found = append(found, p)
			}
		}
		require.Len(c, found, 1)
		assert.Equal(c, "sleep", found[0].Comm)
		assert.Equal(c, "sleep 30", CommandName(Root, cmd.Process.Pid))
		args, err := Cmdline(Root, cmd.Process.Pid)
		require.NoError(c, err)
		assert.Equal(c, []string{"sleep", "30", "1"}, args)
	}, 10*time.Second, 10*time.Millisecond)
	m, err := ReadMemory(Root, cmd.Process.Pid)
	require.NoError(t, err)
	assert.Positive(t, m.RSS)
	assert.GreaterOrEqual(t, m.PeakRSS, m.RSS)
	assert.Positive(t, m.Anon)
	assert.LessOrEqual(t, m.Anon, m.RSS, "anonymous memory is part of the resident")
}

// An address still listened on is not free: the wait fails naming it, and returns once the
// listener is gone.
func TestWaitAddressFree(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	err = WaitAddressFree(context.Background(), addr, 200*time.Millisecond)
	require.Error(t, err)
	assert.Contains(t, err.Error(), addr+" never became free again within 200ms")

	closed := time.AfterFunc(300*time.Millisecond, func() { _ = l.Close() })
	defer closed.Stop()
	assert.NoError(t, WaitAddressFree(context.Background(), addr, 10*time.Second))
}
