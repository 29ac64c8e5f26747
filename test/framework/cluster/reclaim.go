package cluster

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	procfs "github.com/seedscaler/seedscaler/test/framework/proc"
)

// A run killed before its Down (a machine restarted in the middle of a test, a job
// canceled) leaves the machine changed: the bridge, the guards, the kubelet's cgroups and
// its state directory. Up finds these and removes them, as long as nothing of that cluster
// still runs, so that one crash does not fail every later run.

// Registry names, machine-wide, the directory of the cluster Up brought up: a later Up
// finds there the state of a run that ended without its Down. /run is emptied at boot,
// with the bridge and cgroups it describes.
const Registry = "/run/seedscaler-cluster.dir"

// register records dir as the cluster that is up.
func register(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	return os.WriteFile(Registry, []byte(abs+"\n"), 0o644)
}

// registered returns the directory the Registry names, or "".
func registered() string {
	data, err := os.ReadFile(Registry)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// unregister forgets dir, when it is the cluster the Registry names.
func unregister(dir string) {
	abs, err := filepath.Abs(dir)
	if err == nil && registered() == abs {
		_ = os.Remove(Registry)
	}
}

// reclaimCrashed tears down what a crashed run left, called once the cluster's ports are
// known free (no control plane runs). With its state directory, that is Down's whole work;
// without it (the directory is gone, or lives where this process does not see it), the
// bridge and the guards, which are known by name, go. A cluster any of whose processes
// still runs is not a crashed run's: then Up refuses.
func (c *Cluster) reclaimCrashed() error {
	if dir := registered(); dir != "" {
		st, err := readState(dir)
		switch {
		case err == nil:
			if alive := st.aliveProcesses(); len(alive) > 0 {
				return fmt.Errorf("the cluster in %s runs (%s): stop it with `make cluster-down CLUSTER_DIR=%s` first", dir, strings.Join(alive, ", "), dir)
			}
			_, _ = fmt.Fprintf(c.log, "cluster: tearing down the cluster a crashed run left in %s\n", dir)
			if err := Down(dir, c.log); err != nil {
				return fmt.Errorf("tearing down the cluster a crashed run left in %s: %w", dir, err)
			}
		case errors.Is(err, os.ErrNotExist):
			_ = os.Remove(Registry)
		default:
			return err
		}
	}

	_, bridgeErr := net.InterfaceByName(Bridge)
	bridge := bridgeErr == nil
	guards, err := guardDeletes()
	if err != nil {
		return err
	}
	if !bridge && len(guards) == 0 {
		return nil
	}
	if pid := kubeletRunning(); pid != 0 {
		return fmt.Errorf("interface %s exists and a kubelet runs (pid %d): a cluster is up; stop it with `make cluster-down` first", Bridge, pid)
	}
	_, _ = fmt.Fprintln(c.log, "cluster: removing the bridge and guards a crashed run left without its state")
	for _, g := range guards {
		if _, err := run("iptables", g...); err != nil {
			return fmt.Errorf("removing a guard a crashed run left: %w", err)
		}
	}
	if bridge {
		if _, err := run("ip", "link", "del", Bridge); err != nil {
			return fmt.Errorf("deleting the bridge %s a crashed run left: %w", Bridge, err)
		}
	}
	return nil
}

// aliveProcesses names the recorded processes that still run.
func (st *state) aliveProcesses() []string {
	var alive []string
	for _, p := range st.Processes {
		if p.alive() {
			alive = append(alive, fmt.Sprintf("%s, pid %d", p.Name, p.PID))
		}
	}
	return alive
}

// reclaimCgroups removes the kubepods cgroups a crashed run left behind (a run killed
// before Down cannot remove them, and they outlive it): they are the next kubelet's, and it
// would find a stranger's pods' accounting there. Cgroups that still hold a process, or a
// kubelet that still runs, belong to a live cluster: then the run refuses.
func (c *Cluster) reclaimCgroups() error {
	roots := cgroupRoots()
	if !kubepodsExists(roots) {
		return nil
	}
	if pids := kubepodsProcesses(roots); len(pids) > 0 {
		return fmt.Errorf("the kubepods cgroups hold processes %v: another kubelet's pods run on this machine; stop that cluster (`make cluster-down`) first", pids)
	}
	if pid := kubeletRunning(); pid != 0 {
		return fmt.Errorf("a kubelet runs on this machine (pid %d): stop that cluster (`make cluster-down`) first", pid)
	}
	_, _ = fmt.Fprintln(c.log, "cluster: removing empty kubepods cgroups a crashed run left")
	var problems []string
	removeCgroups(func(what string, err error) { problems = append(problems, fmt.Sprintf("%s: %v", what, err)) })
	if len(problems) > 0 {
		return fmt.Errorf("removing the kubepods cgroups a crashed run left: %s", strings.Join(problems, "; "))
	}
	return nil
}

// kubeletRunning returns the process id of a running kubelet, or 0.
func kubeletRunning() int {
	procs, _ := procfs.List(procfs.Root)
	for _, p := range procs {
		if procfs.CommandName(procfs.Root, p.PID) == "kubelet" {
			return p.PID
		}
	}
	return 0
}
