package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// state is what Up changed on this machine (the guards it inserted are known by
// GuardComment instead), written to <dir>/state.json after every change,
// so that Down undoes exactly that, even after an Up that failed half-way or a process that
// ran Up and exited (`make cluster-up`).
type state struct {
	// Tools are the paths of the binaries the cluster runs.
	Tools map[string]string `json:"tools,omitempty"`
	// Processes started, in start order; Down stops them in reverse.
	Processes []proc `json:"processes"`
	// Sysctls holds the original value of every sysctl Up changed.
	Sysctls map[string]string `json:"sysctls,omitempty"`
	// Bridge is true once Up created the node's bridge.
	Bridge bool `json:"bridge,omitempty"`
	// ChainsBefore lists, per iptables table, the chains that existed before Up: Down removes
	// only the KUBE-* and CNI-* chains that were not there.
	ChainsBefore map[string][]string `json:"chainsBefore,omitempty"`
	// NetnsBefore lists the named network namespaces that existed before Up.
	NetnsBefore []string `json:"netnsBefore,omitempty"`
	// IPSetsBefore lists the ipsets that existed before Up: Down destroys those the
	// NetworkPolicy engine made since.
	IPSetsBefore []string `json:"ipsetsBefore,omitempty"`
}

// proc is a process Up started: its PID with the start time the kernel gives it, so that
// Down never signals a process that merely reuses the PID.
type proc struct {
	Name       string `json:"name"`
	PID        int    `json:"pid"`
	StartTicks uint64 `json:"startTicks"`
}

func statePath(dir string) string { return filepath.Join(dir, "state.json") }

func readState(dir string) (*state, error) {
	data, err := os.ReadFile(statePath(dir))
	if err != nil {
		return nil, err
	}
	st := &state{}
	if err := json.Unmarshal(data, st); err != nil {
		return nil, fmt.Errorf("%s: %w", statePath(dir), err)
	}
	return st, nil
}

func (c *Cluster) save() error {
	data, err := json.MarshalIndent(c.state, "", "  ")
	if err != nil {
		return err
	}
	tmp := statePath(c.Dir) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, statePath(c.Dir))
}

// start runs binary with args as a daemon of the cluster: detached with setsid (a terminal's
// Ctrl-C does not reach it, and it outlives `cluster up`), output in logs/<name>.log. The
// process is recorded before start returns.
func (c *Cluster) start(name, binary string, args ...string) error {
	logFile, err := os.OpenFile(filepath.Join(c.Dir, "logs", name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	// The child holds its own descriptor of the log once started; ours only needs closing.
	defer func() { _ = logFile.Close() }()
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Dir = c.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	// Reap it when it exits while this process still runs (tests); after `cluster up`
	// exits, init does.
	go func() { _ = cmd.Wait() }()
	ticks, _ := startTicks(cmd.Process.Pid)
	c.state.Processes = append(c.state.Processes, proc{Name: name, PID: cmd.Process.Pid, StartTicks: ticks})
	return c.save()
}

// alive reports whether p still runs (a zombie does not).
func (p proc) alive() bool {
	ticks, state, err := procStat(p.PID)
	return err == nil && ticks == p.StartTicks && state != "Z" && state != "X"
}

// stop sends SIGTERM and waits up to grace, then SIGKILL.
func (p proc) stop(grace time.Duration) {
	if !p.alive() {
		return
	}
	_ = syscall.Kill(p.PID, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for p.alive() && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if p.alive() {
		_ = syscall.Kill(p.PID, syscall.SIGKILL)
		for i := 0; i < 50 && p.alive(); i++ {
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func startTicks(pid int) (uint64, error) {
	ticks, _, err := procStat(pid)
	return ticks, err
}

// procStat reads a process's start time (in clock ticks since boot) and state letter.
func procStat(pid int) (uint64, string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", err
	}
	// The command name may hold spaces and parentheses: fields start after the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", errors.New("malformed stat")
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 {
		return 0, "", errors.New("malformed stat")
	}
	ticks, err := strconv.ParseUint(fields[19], 10, 64)
	return ticks, fields[0], err
}
