package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	procfs "github.com/seedscaler/seedscaler/test/framework/proc"
)

// Down stops the cluster in dir and undoes what Up changed on the machine: pods are
// deleted first (so the CNI plugins release their addresses and veths), then the processes
// stop in reverse order, leftover containers and shims are killed, iptables chains, guards,
// bridge and sysctls are restored, mounts under dir unmounted, the kubelet's cgroups
// removed, and dir deleted. A dir without state is not an error: nothing is up.
func Down(dir string, log io.Writer) error {
	if log == nil {
		log = io.Discard
	}
	st, err := readState(dir)
	if errors.Is(err, os.ErrNotExist) {
		_, _ = fmt.Fprintf(log, "cluster: nothing to tear down in %s\n", dir)
		unregister(dir)
		return nil
	}
	if err != nil {
		return err
	}
	var problems []string
	report := func(what string, err error) {
		problems = append(problems, fmt.Sprintf("%s: %v", what, err))
	}
	byName := map[string]proc{}
	for _, p := range st.Processes {
		byName[p.Name] = p
	}
	socket := filepath.Join(dir, "containerd", "containerd.sock")

	// Nothing may recreate pods while they go.
	for _, name := range []string{"kube-controller-manager", "kube-scheduler"} {
		byName[name].stop(10 * time.Second)
	}
	if byName["kube-apiserver"].alive() && byName["kubelet"].alive() {
		_, _ = fmt.Fprintln(log, "cluster: deleting every pod")
		if err := deletePods(filepath.Join(dir, "admin.kubeconfig"), socket); err != nil {
			report("deleting pods", err)
		}
	}
	_, _ = fmt.Fprintln(log, "cluster: stopping processes")
	for i := len(st.Processes) - 1; i >= 0; i-- {
		p := st.Processes[i]
		if p.Name == "containerd" {
			removeContainers(socket, report)
		}
		p.stop(15 * time.Second)
	}
	killShims(socket)
	killCgroupProcesses()
	if kubeProxy := st.Tools["kube-proxy"]; kubeProxy != "" {
		_, _ = run(kubeProxy, "--cleanup")
	}
	tearDownNetwork(st, report)
	unmountUnder(dir, report)
	removeCgroups(report)
	if mounted := mountsUnder(dir); len(mounted) > 0 {
		report("removing "+dir, fmt.Errorf("still mounted: %s", strings.Join(mounted, ", ")))
	} else if err := os.RemoveAll(dir); err != nil {
		report("removing "+dir, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("tearing down the cluster: %s", strings.Join(problems, "; "))
	}
	unregister(dir)
	_, _ = fmt.Fprintln(log, "cluster: down")
	return nil
}

// deletePods deletes every pod at once and waits (bounded) until containerd runs no task:
// the kubelet has stopped every sandbox, and the CNI plugins have released its network.
func deletePods(kubeconfig, socket string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	zero := int64(0)
	for _, p := range pods.Items {
		_ = cs.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	}
	for ctx.Err() == nil {
		if len(runningTasks(socket)) == 0 {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("containers still running after 90s: %s", strings.Join(runningTasks(socket), ", "))
}

func runningTasks(socket string) []string {
	out, err := run("ctr", "--address", socket, "-n", "k8s.io", "tasks", "ls")
	if err != nil {
		return nil
	}
	var ids []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[2] == "RUNNING" {
			ids = append(ids, f[0])
		}
	}
	return ids
}

// removeContainers kills and deletes whatever tasks and containers the kubelet left.
func removeContainers(socket string, report func(string, error)) {
	ctr := func(args ...string) (string, error) {
		return run("ctr", append([]string{"--address", socket, "-n", "k8s.io"}, args...)...)
	}
	out, err := ctr("tasks", "ls", "-q")
	if err != nil {
		return
	}
	for _, id := range strings.Fields(out) {
		_, _ = ctr("tasks", "kill", "-s", "SIGKILL", id)
	}
	for _, id := range strings.Fields(out) {
		for i := 0; i < 20; i++ {
			if _, err := ctr("tasks", "delete", id); err == nil || strings.Contains(err.Error(), "not found") {
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	if out, err := ctr("containers", "ls", "-q"); err == nil {
		for _, id := range strings.Fields(out) {
			if _, err := ctr("containers", "delete", id); err != nil {
				report("deleting container "+id, err)
			}
		}
	}
}

// killShims kills the containerd shims of this cluster's containerd: they outlive it by
// design, and are known by the socket address on their command line.
func killShims(socket string) {
	procs, _ := procfs.List(procfs.Root)
	for _, p := range procs {
		args, err := procfs.Cmdline(procfs.Root, p.PID)
		if err != nil || len(args) == 0 {
			continue
		}
		if strings.HasPrefix(filepath.Base(args[0]), "containerd-shim") && slices.ContainsFunc(args, func(arg string) bool { return strings.Contains(arg, socket) }) {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
	}
}

// cgroupRoots are the directories the kubelet's kubepods cgroup lives under: one per
// controller on cgroup v1, the unified root on v2.
func cgroupRoots() []string {
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		return []string{"/sys/fs/cgroup"}
	}
	entries, _ := os.ReadDir("/sys/fs/cgroup")
	var roots []string
	for _, e := range entries {
		if e.IsDir() {
			roots = append(roots, filepath.Join("/sys/fs/cgroup", e.Name()))
		}
	}
	return roots
}

// killCgroupProcesses kills every process left in the kubelet's cgroups: containers whose
// shim is gone. Only processes of this cluster live there (Up refuses to start when a
// kubepods cgroup holds a process).
func killCgroupProcesses() {
	for _, pid := range kubepodsProcesses(cgroupRoots()) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// kubepodsExists says whether a kubepods cgroup exists under one of roots.
func kubepodsExists(roots []string) bool {
	for _, root := range roots {
		if _, err := os.Stat(filepath.Join(root, "kubepods")); err == nil {
			return true
		}
	}
	return false
}

// kubepodsProcesses lists the processes in the kubepods cgroups under roots, in order.
func kubepodsProcesses(roots []string) []int {
	var pids []int
	for _, root := range roots {
		_ = filepath.WalkDir(filepath.Join(root, "kubepods"), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "cgroup.procs" {
				return nil
			}
			data, _ := os.ReadFile(path)
			for _, f := range strings.Fields(string(data)) {
				if pid, err := strconv.Atoi(f); err == nil {
					pids = append(pids, pid)
				}
			}
			return nil
		})
	}
	// A process is listed in every controller's hierarchy on cgroup v1: once each.
	slices.Sort(pids)
	return slices.Compact(pids)
}

// removeCgroups removes the kubepods cgroups, deepest first.
func removeCgroups(report func(string, error)) {
	for _, root := range cgroupRoots() {
		var dirs []string
		_ = filepath.WalkDir(filepath.Join(root, "kubepods"), func(path string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			var err error
			for try := 0; try < 20; try++ {
				if err = os.Remove(dirs[i]); err == nil || os.IsNotExist(err) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if err != nil && !os.IsNotExist(err) {
				report("removing cgroup "+dirs[i], err)
			}
		}
	}
}

// mountsUnder lists the mount points under dir, deepest first.
func mountsUnder(dir string) []string {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var points []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && (f[4] == dir || strings.HasPrefix(f[4], dir+"/")) {
			points = append(points, f[4])
		}
	}
	sort.Slice(points, func(i, j int) bool { return len(points[i]) > len(points[j]) })
	return points
}

func unmountUnder(dir string, report func(string, error)) {
	for _, p := range mountsUnder(dir) {
		if err := syscall.Unmount(p, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) {
			report("unmounting "+p, err)
		}
	}
}
