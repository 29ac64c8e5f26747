// Package process runs a part of seedscaler as a child process, the way the Helm chart runs
// it: the same binary, a subcommand and flags, its output in a log file. The local stack and
// tests that measure parts as deployed use it.
package process

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Process is one part running as a child process of a seedscaler binary with the
// subcommand and flags the Helm chart gives it, its output in a log file.
type Process struct {
	// Name names the part and its log file.
	Name string
	// LogPath is the log file, <logDir>/<Name>.log.
	LogPath string
	binary  string
	args    []string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// New describes a process of binary with args, logging to <logDir>/<name>.log; Start runs it.
func New(name, binary, logDir string, args ...string) *Process {
	return &Process{Name: name, binary: binary, args: args, LogPath: filepath.Join(logDir, name+".log")}
}

// Start starts the process; its output is appended to its log file.
func (p *Process) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	log, err := os.OpenFile(p.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(log, "=== %s: %s %v\n", time.Now().Format(time.RFC3339), p.binary, p.args); err != nil {
		return errors.Join(fmt.Errorf("writing to %s: %w", p.LogPath, err), log.Close())
	}
	cmd := exec.Command(p.binary, p.args...)
	cmd.Stdout, cmd.Stderr = log, log
	// Its own process group: a Ctrl-C in the terminal reaches the parent, which stops the
	// parts in order, instead of killing every part at once.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return errors.Join(fmt.Errorf("starting %s: %w", p.Name, err), log.Close())
	}
	done := make(chan struct{})
	p.cmd, p.done = cmd, done
	go func() {
		err := errors.Join(cmd.Wait(), log.Close())
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(done)
	}()
	return nil
}

// PID is the process id of the last start; 0 before the first.
func (p *Process) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// Running reports whether the process is alive.
func (p *Process) Running() bool {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return false
	default:
		return true
	}
}

// Stop sends SIGTERM and waits up to grace before killing the process.
func (p *Process) Stop(grace time.Duration) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	select {
	case <-done:
		return
	default:
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-done
	}
}

// Kill stops the process at once, as a crash would.
func (p *Process) Kill() {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-done
}

// Tail returns the last n bytes of the log, to explain a process that exited.
func (p *Process) Tail(n int64) string {
	f, err := os.Open(p.LogPath)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }() // opened for reading: a failed close loses nothing
	if st, err := f.Stat(); err == nil && st.Size() > n {
		_, _ = f.Seek(st.Size()-n, io.SeekStart)
	}
	data, _ := io.ReadAll(f)
	return string(data)
}
