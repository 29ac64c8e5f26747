package local

import (
	"fmt"
	"time"

	"github.com/seedscaler/seedscaler/test/framework/proc"
)

// procStat is what the fleet benchmark samples of one process: its memory, and the CPU
// time (user plus system) it used so far.
type procStat struct {
	proc.Memory
	CPU time.Duration
}

// readProcStat reads a process's CPU time and memory under root (/proc).
func readProcStat(root string, pid int) (procStat, error) {
	p, err := proc.ReadStat(root, pid)
	if err != nil {
		return procStat{}, err
	}
	mem, err := proc.ReadMemory(root, pid)
	if err != nil {
		return procStat{}, fmt.Errorf("process %d: %w", pid, err)
	}
	return procStat{Memory: mem, CPU: p.CPU}, nil
}

// descendantsNamed finds the processes below pid whose program is named one of names: the
// kube-apiserver, etcd and Prometheus a local stack started, and Gardener's processes in a
// garden. A name with several processes gets the oldest one (the lowest pid). The kernel
// keeps only the first 15 bytes of a program's name, so gardener-apiserver and
// gardener-controller-manager are told apart by those.
func descendantsNamed(root string, pid int, names ...string) (map[string]int, error) {
	procs, err := proc.List(root)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, p := range proc.Descendants(procs, pid) {
		for _, n := range names {
			if p.Comm == commName(n) && (out[n] == 0 || p.PID < out[n]) {
				out[n] = p.PID
			}
		}
	}
	return out, nil
}

// commName is the command name the kernel keeps for a program named name: its first 15
// bytes (TASK_COMM_LEN less the terminating NUL).
func commName(name string) string { return name[:min(len(name), 15)] }
