//go:build integration

package cluster

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/test/framework/cluster"
)

// The suite's node comes up on a machine a crashed run left changed: a run killed before
// its tear-down leaves its bridge, its guards and its state directory (which names the
// bridge and a kubelet long gone), and a run whose state this process cannot see leaves
// guards as well. The node's Up must reclaim all of it.
var (
	crashedDir    string
	crashedGuards = [][]string{
		{"mangle", "POSTROUTING", "-d", "192.0.2.1/32", "-j", "DROP"},
		{"filter", "INPUT", "-s", "192.0.2.2/32", "-j", "DROP"},
	}
)

// plantCrashedRun changes the machine as a crashed run would, under dir.
func plantCrashedRun(dir string) error {
	crashedDir = filepath.Join(dir, "crashed")
	if err := os.MkdirAll(crashedDir, 0o755); err != nil {
		return err
	}
	// A process that ran and ended: its pid with a start time it no longer has.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		return err
	}
	state, err := json.Marshal(map[string]any{
		"processes": []map[string]any{{"name": "kubelet", "pid": gone.Process.Pid, "startTicks": 1}},
		"bridge":    true,
	})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(crashedDir, "state.json"), state, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(cluster.Registry, []byte(crashedDir+"\n"), 0o644); err != nil {
		return err
	}
	if out, err := exec.Command("ip", "link", "add", cluster.Bridge, "type", "bridge").CombinedOutput(); err != nil {
		return fmt.Errorf("ip link add %s: %v: %s", cluster.Bridge, err, out)
	}
	for _, g := range crashedGuards {
		args := append([]string{"-w", "-t", g[0], "-I", g[1], "1"}, append(g[2:], "-m", "comment", "--comment", cluster.GuardComment)...)
		if out, err := exec.Command("iptables", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("iptables %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// The node came up on the planted leftovers, and none of them is left: the crashed run's
// directory is gone, the registry names the node, and of the guards only the node's own
// are in place.
func TestUpReclaimedACrashedRun(t *testing.T) {
	assert.NoDirExists(t, crashedDir, "Up tears down the crashed run's cluster from its state")
	registered, err := os.ReadFile(cluster.Registry)
	require.NoError(t, err)
	assert.Equal(t, node.Dir, strings.TrimSpace(string(registered)))
	for _, g := range crashedGuards {
		out, err := exec.Command("iptables", "-w", "-t", g[0], "-S", g[1]).CombinedOutput()
		require.NoError(t, err, string(out))
		assert.NotContains(t, string(out), strings.Join(g[2:4], " "), "the crashed run's guard %v", g)
	}
}
