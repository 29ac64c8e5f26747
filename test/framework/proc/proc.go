// Package proc reads what Linux's /proc tells of processes: their parent, command line, CPU
// time and memory. The benchmarks use it to say what each process of a landscape cost: the
// test framework's CPU accounting (testenv.ReadCPU) and the fleet benchmark's sampling.
// The test environments' Crash and the node's teardown find processes by their command
// line with it, and Crash waits with it for a killed process's address to be free again.
package proc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Root is where Linux mounts the process file system.
const Root = "/proc"

// Process is what /proc/<pid>/stat tells of one process.
type Process struct {
	PID, PPID int
	// Comm is the command name the kernel keeps (at most 15 bytes of the program's name).
	Comm string
	// CPU is user plus system time.
	CPU time.Duration
}

// Memory is what /proc/<pid>/status tells of a process's memory, in bytes.
type Memory struct {
	// RSS and PeakRSS (VmHWM): resident memory now and at its peak.
	RSS, PeakRSS int64
	// Anon is the process's own resident memory (RssAnon): RSS without the pages of files it
	// maps, such as its binary, which processes of one binary share.
	Anon int64
}

// List reads every process under root (Root but in tests). A process that ends while List
// reads is left out.
func List(root string) ([]Process, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []Process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, err := ReadStat(root, pid); err == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// ReadStat reads /proc/<pid>/stat under root.
func ReadStat(root string, pid int) (Process, error) {
	raw, err := os.ReadFile(filepath.Join(root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return Process{}, err
	}
	p, err := ParseStat(raw)
	if err != nil {
		return Process{}, fmt.Errorf("process %d: %w", pid, err)
	}
	return p, nil
}

// ParseStat reads the text of a /proc/<pid>/stat: pid, command name, parent and CPU time
// (utime+stime).
func ParseStat(raw []byte) (Process, error) {
	// pid (comm) state ppid ... utime stime: comm may hold spaces and parentheses, so it
	// ends at the last ')'.
	opening, closing := bytes.IndexByte(raw, '('), bytes.LastIndexByte(raw, ')')
	if opening < 0 || closing < opening {
		return Process{}, fmt.Errorf("stat %q has no command name", raw)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw[:opening])))
	if err != nil {
		return Process{}, fmt.Errorf("stat %q: pid: %w", raw, err)
	}
	fields := strings.Fields(string(raw[closing+1:]))
	if len(fields) < 13 {
		return Process{}, fmt.Errorf("stat %q has %d fields after the command, want at least 13", raw, len(fields))
	}
	ppid, err1 := strconv.Atoi(fields[1])
	utime, err2 := strconv.ParseInt(fields[11], 10, 64)
	stime, err3 := strconv.ParseInt(fields[12], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return Process{}, fmt.Errorf("stat %q: %w", raw, err)
	}
	const clockTicks = 100 // USER_HZ on Linux
	return Process{
		PID: pid, PPID: ppid, Comm: string(raw[opening+1 : closing]),
		CPU: time.Duration(utime+stime) * time.Second / clockTicks,
	}, nil
}

// ReadMemory reads /proc/<pid>/status under root.
func ReadMemory(root string, pid int) (Memory, error) {
	status, err := os.ReadFile(filepath.Join(root, strconv.Itoa(pid), "status"))
	if err != nil {
		return Memory{}, err
	}
	var out Memory
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch key {
		case "VmRSS":
			out.RSS = kibibytes(value)
		case "VmHWM":
			out.PeakRSS = kibibytes(value)
		case "RssAnon":
			out.Anon = kibibytes(value)
		}
	}
	return out, nil
}

// kibibytes parses a /proc/<pid>/status size such as "  123456 kB" into bytes; 0 when it
// is not one.
func kibibytes(value string) int64 {
	n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
	if err != nil {
		return 0
	}
	return n << 10
}

// Descendants are the processes of procs below ancestor: children, grandchildren, ...
func Descendants(procs []Process, ancestor int) []Process {
	parent := make(map[int]int, len(procs))
	for _, q := range procs {
		parent[q.PID] = q.PPID
	}
	var out []Process
	for _, p := range procs {
		// A bound on the walk: a parent chain read while processes come and go may loop.
		for pid, seen := p.PID, 0; pid > 1 && seen < 64; seen++ {
			if pid = parent[pid]; pid == ancestor {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// Cmdline reads /proc/<pid>/cmdline under root: the program and its arguments, as the
// process was started. Empty for a process without one (a kernel thread, a zombie).
func Cmdline(root string, pid int) ([]string, error) {
	raw, err := os.ReadFile(filepath.Join(root, strconv.Itoa(pid), "cmdline"))
	if err != nil || len(raw) == 0 {
		return nil, err
	}
	return strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00"), nil
}

// CommandName names a process by its command line: the program's base name, and its first
// argument when that is a subcommand ("seedscaler adapter", "etcd"). Empty when the
// process is gone.
func CommandName(root string, pid int) string {
	args, err := Cmdline(root, pid)
	if err != nil || len(args) == 0 {
		return ""
	}
	name := filepath.Base(args[0])
	if len(args) > 1 && args[1] != "" && !strings.HasPrefix(args[1], "-") {
		name += " " + args[1]
	}
	return name
}

// WaitAddressFree waits, up to timeout, until addr (host:port) can be listened on again:
// the kernel may hold the listening address of a process just killed a moment longer, and
// a process started again on it would fail to bind.
func WaitAddressFree(ctx context.Context, addr string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		l, err := net.Listen("tcp", addr)
		if err == nil {
			return l.Close()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s never became free again within %s: %w (last: %v)", addr, timeout, ctx.Err(), err)
		case <-tick.C:
		}
	}
}
