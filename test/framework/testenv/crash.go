package testenv

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/seedscaler/seedscaler/test/framework/proc"
)

// Crash kills the environment's "kube-apiserver" or "etcd" with SIGKILL, as a node that
// loses the process would, and starts it again with the same command line: the same
// ports, certificates and data directory, so clients reconnect to what they knew. It
// returns once the kube-apiserver answers /readyz again. Every watch breaks; the
// aggregated APIs are unreachable while the kube-apiserver is down.
func (e *Environment) Crash(ctx context.Context, name string) error {
	addr, err := e.address(name)
	if err != nil {
		return fmt.Errorf("crash %s: %w", name, err)
	}
	pid, argv, err := listener(name, addr)
	if err != nil {
		return fmt.Errorf("crash %s: %w", name, err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("crash %s: %w", name, err)
	}
	if err := proc.WaitAddressFree(ctx, addr, time.Minute); err != nil {
		return fmt.Errorf("crash %s: %w", name, err)
	}
	// Its output goes where envtest sends its own: nowhere.
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("crash %s: starting it again: %w", name, err)
	}
	e.restarted = append(e.restarted, restarted{name: name, cmd: cmd})
	return e.waitReady(ctx)
}

// address is where the environment's kube-apiserver or etcd listens.
func (e *Environment) address(name string) (string, error) {
	switch name {
	case "kube-apiserver":
		u, err := url.Parse(e.Config.Host)
		if err != nil {
			return "", err
		}
		return u.Host, nil
	case "etcd":
		return e.env.ControlPlane.Etcd.URL.Host, nil
	}
	return "", fmt.Errorf("only kube-apiserver and etcd are restarted this way")
}

// listener finds the process below this one named name whose command line carries addr:
// the one of this environment, though several may run.
func listener(name, addr string) (int, []string, error) {
	procs, err := proc.List(proc.Root)
	if err != nil {
		return 0, nil, err
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, nil, err
	}
	for _, p := range proc.Descendants(procs, os.Getpid()) {
		if p.Comm != name {
			continue
		}
		argv, err := proc.Cmdline(proc.Root, p.PID)
		if err != nil || len(argv) == 0 {
			continue
		}
		if slices.ContainsFunc(argv, func(arg string) bool { return strings.HasSuffix(arg, ":"+port) || strings.HasSuffix(arg, "="+port) }) {
			return p.PID, argv, nil
		}
	}
	return 0, nil, fmt.Errorf("no %s process below this one listens on %s", name, addr)
}

// waitReady waits until the kube-apiserver reports ready, which it does only with etcd
// reachable.
func (e *Environment) waitReady(ctx context.Context) error {
	cs, err := kubernetes.NewForConfig(e.Config)
	if err != nil {
		return err
	}
	var last error
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, last = cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return last == nil, nil
	}); err != nil {
		return fmt.Errorf("the kube-apiserver never became ready again: %w (last: %v)", err, last)
	}
	return nil
}

// restarted is a process Crash started again, which envtest does not know.
type restarted struct {
	name string
	cmd  *exec.Cmd
}

// stopRestarted stops what Crash started, the kube-apiserver before etcd, as envtest
// stops its own.
func (e *Environment) stopRestarted() {
	slices.SortStableFunc(e.restarted, func(a, b restarted) int {
		return strings.Compare(b.name, a.name) // "kube-apiserver" before "etcd"
	})
	for _, r := range e.restarted {
		cmd := r.cmd
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	e.restarted = nil
}
