package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
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
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	out := CPU{}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		ppid, cpu, ok := procStat(pid)
		switch {
		case !ok:
		case pid == self:
			out[Self] = cpu
		case ppid == self:
			if name := procName(pid); name != "" {
				out[name] += cpu
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

// procStat reads a process's parent and CPU time (utime+stime) from /proc/<pid>/stat; ok
// is false when the process is gone or the file cannot be read.
func procStat(pid int) (ppid int, cpu time.Duration, ok bool) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	ppid, cpu, err = ParseProcStat(raw)
	return ppid, cpu, err == nil
}

// ParseProcStat reads the parent's pid and the CPU time (utime+stime) from the text of a
// /proc/<pid>/stat.
func ParseProcStat(raw []byte) (ppid int, cpu time.Duration, err error) {
	// pid (comm) state ppid ... utime stime: comm may hold spaces, so split after ')'.
	closing := bytes.LastIndexByte(raw, ')')
	if closing < 0 {
		return 0, 0, fmt.Errorf("stat %q has no command name", raw)
	}
	fields := strings.Fields(string(raw[closing+1:]))
	if len(fields) < 13 {
		return 0, 0, fmt.Errorf("stat %q has %d fields after the command, want at least 13", raw, len(fields))
	}
	ppid, err1 := strconv.Atoi(fields[1])
	utime, err2 := strconv.ParseInt(fields[11], 10, 64)
	stime, err3 := strconv.ParseInt(fields[12], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return 0, 0, fmt.Errorf("stat %q: %w", raw, err)
	}
	const clockTicks = 100 // USER_HZ on Linux
	return ppid, time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// procName names a process by its command line: the program's base name, and its first
// argument when that is a subcommand. Empty when the process is gone.
func procName(pid int) string {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(raw) == 0 {
		return ""
	}
	args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
	name := filepath.Base(args[0])
	if len(args) > 1 && args[1] != "" && !strings.HasPrefix(args[1], "-") {
		name += " " + args[1]
	}
	return name
}
