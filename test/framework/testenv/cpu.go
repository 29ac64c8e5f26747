package testenv

import (
	"fmt"
	"os"
	"time"

	"github.com/seedscaler/seedscaler/test/framework/proc"
)

// CPU is CPU time (user plus system) by process: this process under Self, each of its
// children under the name it was started as (see ReadCPU). Benchmarks read it before and
// after a phase to say what the phase cost each part of a landscape.
type CPU map[string]time.Duration

// Self is this process's key in a CPU.
const Self = "self"

// ReadCPU reads the CPU time of this process and of its children from /proc. A child is
// named by its program and, when its first argument is a subcommand rather than a flag,
// that too: "kube-apiserver", "etcd", "prometheus", "seedscaler adapter". Children of one
// name are added up. Only Linux has /proc; elsewhere it fails.
func ReadCPU() (CPU, error) {
	self := os.Getpid()
	procs, err := proc.List(proc.Root)
	if err != nil {
		return nil, err
	}
	out := CPU{}
	for _, p := range procs {
		switch {
		case p.PID == self:
			out[Self] = p.CPU
		case p.PPID == self:
			if name := proc.CommandName(proc.Root, p.PID); name != "" {
				out[name] += p.CPU
			}
		}
	}
	if _, ok := out[Self]; !ok {
		return nil, fmt.Errorf("no /proc/%d/stat for this process", self)
	}
	return out, nil
}

// SpentCPU runs fn and returns the CPU time each process spent meanwhile, as ReadCPU names
// them.
func SpentCPU(fn func()) (CPU, error) {
	before, err := ReadCPU()
	if err != nil {
		return nil, err
	}
	fn()
	after, err := ReadCPU()
	if err != nil {
		return nil, err
	}
	return after.Sub(before), nil
}

// Sub is the CPU time spent since before, by process; a process that started since counts
// from zero.
func (c CPU) Sub(before CPU) CPU {
	out := CPU{}
	for name, d := range c {
		out[name] = d - before[name]
	}
	return out
}

// Add is the CPU time of c and o together, by process.
func (c CPU) Add(o CPU) CPU {
	out := CPU{}
	for name, d := range c {
		out[name] = d
	}
	for name, d := range o {
		out[name] += d
	}
	return out
}

// MillisPer is the CPU time of process name in milliseconds per one of n operations.
func (c CPU) MillisPer(name string, n int) float64 {
	return c[name].Seconds() * 1000 / float64(n)
}
