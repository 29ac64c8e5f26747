package local

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// procStat is what /proc tells of one process: its resident memory now and at its peak,
// and the CPU time it used so far.
type procStat struct {
	PID int
	// RSS and PeakRSS (VmHWM) in bytes.
	RSS, PeakRSS int64
	// CPU is user plus system time.
	CPU time.Duration
}

// clockTicks is the kernel's USER_HZ, the unit of utime and stime in /proc/<pid>/stat:
// 100 on every Linux this runs on.
const clockTicks = 100

// readProcStat reads /proc/<pid>/stat and /proc/<pid>/status under root (/proc).
func readProcStat(root string, pid int) (procStat, error) {
	dir := filepath.Join(root, strconv.Itoa(pid))
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return procStat{}, err
	}
	fields, err := statFields(stat)
	if err != nil {
		return procStat{}, fmt.Errorf("process %d: %w", pid, err)
	}
	// fields[0] is the state (field 3 of proc(5)); utime and stime are fields 14 and 15.
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return procStat{}, fmt.Errorf("process %d: utime %q or stime %q is not a number", pid, fields[11], fields[12])
	}
	out := procStat{PID: pid, CPU: time.Duration(utime+stime) * time.Second / clockTicks}
	status, err := os.ReadFile(filepath.Join(dir, "status"))
	if err != nil {
		return procStat{}, err
	}
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
		}
	}
	return out, nil
}

// statFields are the fields of /proc/<pid>/stat after the command name, which is in
// parentheses and may itself hold spaces and parentheses: fields[0] is the state, [1]
// the parent's pid.
func statFields(stat []byte) ([]string, error) {
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return nil, fmt.Errorf("stat %q has no command name", stat)
	}
	fields := strings.Fields(string(stat[end+1:]))
	if len(fields) < 13 {
		return nil, fmt.Errorf("stat %q has %d fields after the command, want at least 13", stat, len(fields))
	}
	return fields, nil
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

// descendantsNamed finds the processes below pid (children, grandchildren, ...) whose
// command name (/proc/<pid>/comm) is one of names: the kube-apiserver, etcd and
// Prometheus a local stack started. A name with several processes gets the oldest one.
func descendantsNamed(root string, pid int, names ...string) (map[string]int, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	parent := map[int]int{}
	comm := map[int]string{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(root, e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		fields, err := statFields(stat)
		if err != nil {
			continue
		}
		if parent[p], err = strconv.Atoi(fields[1]); err != nil {
			continue
		}
		c, err := os.ReadFile(filepath.Join(root, e.Name(), "comm"))
		if err != nil {
			continue
		}
		comm[p] = strings.TrimSpace(string(c))
	}
	below := func(p int) bool {
		for seen := 0; p > 1 && seen < 64; seen++ {
			if p = parent[p]; p == pid {
				return true
			}
		}
		return false
	}
	out := map[string]int{}
	for p, c := range comm {
		for _, n := range names {
			if c == n && below(p) && (out[n] == 0 || p < out[n]) {
				out[n] = p
			}
		}
	}
	return out, nil
}
