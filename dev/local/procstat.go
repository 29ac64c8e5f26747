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

	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// procStat is what /proc tells of one process: its resident memory now and at its peak,
// and the CPU time it used so far.
type procStat struct {
	PID int
	// RSS and PeakRSS (VmHWM) in bytes.
	RSS, PeakRSS int64
	// Anon is the resident memory of the process's own (RssAnon): RSS without the pages
	// of files it maps, such as its binary, which processes of one binary share.
	Anon int64
	// CPU is user plus system time.
	CPU time.Duration
}

// readProcStat reads /proc/<pid>/stat and /proc/<pid>/status under root (/proc).
func readProcStat(root string, pid int) (procStat, error) {
	dir := filepath.Join(root, strconv.Itoa(pid))
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return procStat{}, err
	}
	_, cpu, err := testenv.ParseProcStat(stat)
	if err != nil {
		return procStat{}, fmt.Errorf("process %d: %w", pid, err)
	}
	out := procStat{PID: pid, CPU: cpu}
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
		if parent[p], _, err = testenv.ParseProcStat(stat); err != nil {
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
