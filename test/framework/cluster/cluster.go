// Package cluster brings up and tears down a real one-node Kubernetes cluster on this
// machine, for the tests and demo that run the Helm chart's pods: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, a kubelet with containerd and runc, kube-proxy,
// kube-router's firewall (which enforces NetworkPolicies) and CoreDNS, all of the Kubernetes
// version the integration tests run. Images are imported, never pulled; nothing in the
// cluster reaches past this machine.
//
// Up records every process it starts and every change it makes to the machine (sysctls, a
// bridge) in <dir>/state.json as it goes, and marks the iptables guards it inserts with
// GuardComment; Down undoes exactly that, also after an Up that failed half-way or ran in
// another process.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	procfs "github.com/seedscaler/seedscaler/test/framework/proc"
)

// The node's addresses: the node IP sits on the bridge that connects the pods; the
// kube-apiserver listens and advertises there.
const (
	NodeName           = "seedscaler-node"
	Bridge             = "seedscaler0"
	NodeIP             = "10.244.0.1"
	PodCIDR            = "10.244.0.0/24"
	ServiceCIDR        = "10.96.0.0/24"
	APIServerServiceIP = "10.96.0.1"
	APIServerAddress   = NodeIP + ":6443"
	// DefaultDir holds the cluster's state, configuration, data and logs.
	DefaultDir = "/var/lib/seedscaler-cluster"
	// PauseImage and PrometheusImage are built by Up and imported into the node.
	PauseImage      = "seedscaler.local/pause:1"
	PrometheusImage = "seedscaler.local/prometheus:3.15.0"

	etcdClientPort    = 12379
	etcdPeerPort      = 12380
	corednsHealthPort = 18080
	corednsReadyPort  = 18181
	// kubeRouterHealthPort is kube-router's health check (its default).
	kubeRouterHealthPort = 20244
)

// Ports the cluster listens on; Up fails fast when one is taken.
var ports = []int{6443, 10248, 10249, 10250, 10256, 10257, 10259, etcdClientPort, etcdPeerPort, corednsHealthPort, corednsReadyPort, kubeRouterHealthPort, 53}

// Options of Up.
type Options struct {
	// Dir holds the cluster; DefaultDir when empty.
	Dir string
	// Repo is the repository root: tools come from hack/tools/build.sh, the pause and
	// Prometheus images are built from it.
	Repo string
	// Images are image tarballs (`make image`) to import into the node.
	Images []string
	// Log receives progress lines; nothing when nil.
	Log io.Writer
}

// Cluster is a running one-node cluster.
type Cluster struct {
	Dir string
	// Kubeconfig is the path of a cluster-admin kubeconfig.
	Kubeconfig string

	state     *state
	repo      string
	log       io.Writer
	cniBinDir string
}

// The Debian packages that provide what the node runs besides the tool cache's binaries.
var hostBinaries = map[string]string{
	"containerd": "containerd", "containerd-shim-runc-v2": "containerd", "ctr": "containerd",
	"runc": "runc", "iptables": "iptables", "conntrack": "conntrack", "ip": "iproute2", "ipset": "ipset",
}

var cniDirs = []string{"/usr/lib/cni", "/opt/cni/bin"}

// Up brings the cluster up and waits until the node is Ready, the default ServiceAccount
// exists and cluster DNS answers. On failure it tears down what it started.
func Up(ctx context.Context, opts Options) (c *Cluster, err error) {
	if opts.Dir == "" {
		opts.Dir = DefaultDir
	}
	c = &Cluster{Dir: opts.Dir, Kubeconfig: filepath.Join(opts.Dir, "admin.kubeconfig"), state: &state{}, repo: opts.Repo, log: opts.Log}
	if c.log == nil {
		c.log = io.Discard
	}
	cgroupV1, err := c.preflight()
	if err != nil {
		return nil, err
	}
	for i, img := range opts.Images {
		if opts.Images[i], err = filepath.Abs(img); err != nil {
			return nil, err
		}
		if _, err := os.Stat(opts.Images[i]); err != nil {
			return nil, fmt.Errorf("image tarball %s: %w (`make image` writes bin/seedscaler-image.tar)", img, err)
		}
	}
	if err := os.MkdirAll(c.path("logs"), 0o755); err != nil {
		return nil, err
	}
	if err := c.save(); err != nil {
		return nil, err
	}
	if err := register(c.Dir); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = fmt.Errorf("%w\n%s", err, c.logTails())
			if downErr := Down(opts.Dir, c.log); downErr != nil {
				err = fmt.Errorf("%w\ntearing down after the failure: %v", err, downErr)
			}
			c = nil
		}
	}()
	steps := []struct {
		what string
		fn   func() error
	}{
		{"recording the network as found", c.recordNetworkBefore},
		{"writing certificates and kubeconfigs", c.writePKI},
		{"writing configuration", func() error { return c.writeConfigs(cgroupV1) }},
		{"setting up the bridge, sysctls and guards", c.setUpNetwork},
		{"starting etcd and kube-apiserver", func() error { return c.startControlPlane(ctx) }},
		{"starting containerd and importing images", func() error { return c.startContainerd(ctx, opts.Images) }},
		{"starting the kubelet, controller manager, scheduler, kube-proxy and CoreDNS", c.startNode},
		{"waiting for the node", func() error { return c.waitNode(ctx) }},
		{"starting kube-router's firewall", func() error { return c.startNetworkPolicies(ctx) }},
	}
	for _, s := range steps {
		_, _ = fmt.Fprintf(c.log, "cluster: %s\n", s.what)
		if err := s.fn(); err != nil {
			return c, fmt.Errorf("%s: %w", s.what, err)
		}
	}
	return c, nil
}

// preflight checks that this machine can run a node, and says what is missing.
func (c *Cluster) preflight() (cgroupV1 bool, err error) {
	if os.Geteuid() != 0 {
		return false, errors.New("the cluster needs root: it creates a bridge, iptables rules, cgroups and mounts; run it as root")
	}
	if _, err := os.Stat(statePath(c.Dir)); err == nil {
		return false, fmt.Errorf("%s exists: a cluster is up, or one was not torn down; run `make cluster-down` (or `go run ./hack/cluster down`) first", statePath(c.Dir))
	}
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		cgroupV1 = false
	} else if _, err := os.Stat("/sys/fs/cgroup/memory"); err == nil {
		cgroupV1 = true
	} else {
		return false, errors.New("no cgroup file system under /sys/fs/cgroup (neither cgroup v2's cgroup.controllers nor v1's memory controller): the kubelet cannot run pods")
	}
	var missing []string
	for bin, pkg := range hostBinaries {
		if _, err := exec.LookPath(bin); err != nil {
			missing = append(missing, fmt.Sprintf("%s (Debian package %s)", bin, pkg))
		}
	}
	for _, dir := range cniDirs {
		if _, err := os.Stat(filepath.Join(dir, "bridge")); err == nil {
			c.cniBinDir = dir
			break
		}
	}
	if c.cniBinDir == "" {
		missing = append(missing, "the CNI plugins bridge, host-local and portmap in "+strings.Join(cniDirs, " or ")+" (Debian package containernetworking-plugins)")
	}
	if len(missing) > 0 {
		return false, fmt.Errorf("missing: %s; `make cluster-up` installs them with apt-get", strings.Join(missing, ", "))
	}
	for _, p := range ports {
		l, err := net.Listen("tcp", fmt.Sprintf(":%d", p))
		if err != nil {
			return false, fmt.Errorf("port %d is taken (%v): the cluster needs ports %v free", p, err, ports)
		}
		_ = l.Close()
	}
	// The ports are free, so no control plane runs: what a crashed run left may go.
	if err := c.reclaimCrashed(); err != nil {
		return false, err
	}
	if err := c.reclaimCgroups(); err != nil {
		return false, err
	}
	if _, err := externalInterface(); err != nil {
		return false, err
	}
	c.state.Tools = map[string]string{}
	for _, tool := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet", "kube-proxy", "kubectl", "coredns",
		"prometheus", "prometheus-operator", "prometheus-config-reloader", "kube-router"} {
		out, err := exec.Command(filepath.Join(c.repo, "hack/tools/build.sh"), "--dir", tool).Output()
		if err != nil {
			return false, fmt.Errorf("hack/tools/build.sh --dir %s: %w", tool, err)
		}
		path := filepath.Join(strings.TrimSpace(string(out)), tool)
		if _, err := os.Stat(path); err != nil {
			return false, fmt.Errorf("%s is not built: run `hack/tools/build.sh node envtest prometheus`", path)
		}
		c.state.Tools[tool] = path
	}
	return cgroupV1, nil
}

func (c *Cluster) startControlPlane(ctx context.Context) error {
	if err := c.start("etcd", c.state.Tools["etcd"],
		"--data-dir="+c.path("etcd"),
		fmt.Sprintf("--listen-client-urls=http://127.0.0.1:%d", etcdClientPort),
		fmt.Sprintf("--advertise-client-urls=http://127.0.0.1:%d", etcdClientPort),
		fmt.Sprintf("--listen-peer-urls=http://127.0.0.1:%d", etcdPeerPort),
		fmt.Sprintf("--initial-advertise-peer-urls=http://127.0.0.1:%d", etcdPeerPort),
		fmt.Sprintf("--initial-cluster=default=http://127.0.0.1:%d", etcdPeerPort),
		"--unsafe-no-fsync"); err != nil {
		return err
	}
	pki := func(name string) string { return c.path("pki", name) }
	if err := c.start("kube-apiserver", c.state.Tools["kube-apiserver"],
		fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", etcdClientPort),
		"--bind-address="+NodeIP, "--advertise-address="+NodeIP, "--secure-port=6443",
		"--service-cluster-ip-range="+ServiceCIDR,
		"--tls-cert-file="+pki("apiserver.crt"), "--tls-private-key-file="+pki("apiserver.key"),
		"--client-ca-file="+pki("ca.crt"),
		"--kubelet-client-certificate="+pki("apiserver-kubelet.crt"), "--kubelet-client-key="+pki("apiserver-kubelet.key"),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+pki("service-account-public.key"),
		"--service-account-signing-key-file="+pki("service-account.key"),
		"--authorization-mode=Node,RBAC", "--enable-admission-plugins=NodeRestriction",
		"--requestheader-client-ca-file="+pki("front-proxy-ca.crt"),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User", "--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file="+pki("front-proxy-client.crt"), "--proxy-client-key-file="+pki("front-proxy-client.key"),
		// Reach the kubelet by its address: the node name resolves nowhere.
		"--kubelet-preferred-address-types=InternalIP",
		"--allow-privileged=true"); err != nil {
		return err
	}
	return c.waitAPIServer(ctx)
}

// waitAPIServer waits until the kube-apiserver answers ready, with its etcd.
func (c *Cluster) waitAPIServer(ctx context.Context) error {
	cs, err := c.Clientset()
	if err != nil {
		return err
	}
	return c.poll(ctx, "the kube-apiserver's /readyz", 60*time.Second, func(ctx context.Context) (bool, string) {
		body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err != nil {
			return false, err.Error()
		}
		return string(body) == "ok", string(body)
	})
}

// Crash kills one of the control plane's processes, etcd or kube-apiserver, with SIGKILL, as
// a crash would, starts it again with the same command line, and waits until the
// kube-apiserver is ready again.
func (c *Cluster) Crash(ctx context.Context, name string) error {
	if name != "etcd" && name != "kube-apiserver" {
		return fmt.Errorf("crash %s: only etcd and kube-apiserver are restarted this way", name)
	}
	i := slices.IndexFunc(c.state.Processes, func(p proc) bool { return p.Name == name })
	if i < 0 || !c.state.Processes[i].alive() {
		return fmt.Errorf("crash %s: it does not run", name)
	}
	old := c.state.Processes[i]
	argv, err := procfs.Cmdline(procfs.Root, old.PID)
	if err != nil {
		return err
	}
	if len(argv) == 0 {
		return fmt.Errorf("crash %s: pid %d has no command line to start it again with", name, old.PID)
	}
	_ = syscall.Kill(old.PID, syscall.SIGKILL)
	for j := 0; j < 100 && old.alive(); j++ {
		time.Sleep(50 * time.Millisecond)
	}
	if old.alive() {
		return fmt.Errorf("crash %s: pid %d survived SIGKILL", name, old.PID)
	}
	c.state.Processes = slices.Delete(c.state.Processes, i, i+1)
	addr := map[string]string{"etcd": fmt.Sprintf("127.0.0.1:%d", etcdClientPort), "kube-apiserver": APIServerAddress}[name]
	if err := procfs.WaitAddressFree(ctx, addr, time.Minute); err != nil {
		return fmt.Errorf("crash %s: %w", name, err)
	}
	if err := c.start(name, argv[0], argv[1:]...); err != nil {
		return err
	}
	// The new process takes the old one's place, so that Down stops them in start order.
	last := len(c.state.Processes) - 1
	c.state.Processes = slices.Insert(c.state.Processes[:last], i, c.state.Processes[last])
	if err := c.save(); err != nil {
		return err
	}
	if err := c.waitAPIServer(ctx); err != nil {
		return fmt.Errorf("%w\n%s", err, c.logTails())
	}
	return nil
}

func (c *Cluster) startContainerd(ctx context.Context, images []string) error {
	if err := c.start("containerd", "containerd", "--config="+c.path("containerd", "config.toml")); err != nil {
		return err
	}
	if err := c.poll(ctx, "containerd's socket", 30*time.Second, func(context.Context) (bool, string) {
		_, err := run("ctr", "--address", c.containerdSocket(), "version")
		if err != nil {
			return false, err.Error()
		}
		return true, ""
	}); err != nil {
		return err
	}
	built, err := c.buildImages()
	if err != nil {
		return err
	}
	for _, tarball := range append(built, images...) {
		if err := c.ImportImage(tarball); err != nil {
			return err
		}
	}
	return nil
}

// ImportImage imports an image tarball into the node's containerd, where the kubelet finds
// it without pulling.
func (c *Cluster) ImportImage(tarball string) error {
	if _, err := run("ctr", "--address", c.containerdSocket(), "-n", "k8s.io", "images", "import", tarball); err != nil {
		return fmt.Errorf("importing %s: %w", tarball, err)
	}
	return nil
}

// buildImages builds the pause image, and images of Prometheus, prometheus-operator and its
// config reloader from the tool cache's binaries.
func (c *Cluster) buildImages() ([]string, error) {
	dir := c.path("images")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	pause := filepath.Join(dir, "pause")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", pause, "./hack/cluster/pause")
	build.Dir, build.Env = c.repo, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the pause binary: %w\n%s", err, out)
	}
	images := []struct{ binary, path, tag, out string }{
		{pause, "/pause", PauseImage, filepath.Join(dir, "pause.tar")},
		{c.state.Tools["prometheus"], "/bin/prometheus", PrometheusImage, filepath.Join(dir, "prometheus.tar")},
		{c.state.Tools["prometheus-operator"], "/bin/operator", OperatorImage, filepath.Join(dir, "prometheus-operator.tar")},
		{c.state.Tools["prometheus-config-reloader"], "/bin/prometheus-config-reloader", ReloaderImage, filepath.Join(dir, "prometheus-config-reloader.tar")},
	}
	var tarballs []string
	for _, img := range images {
		cmd := exec.Command("go", "run", ".", "-binary", img.binary, "-path", img.path, "-tag", img.tag, "-out", img.out)
		cmd.Dir = filepath.Join(c.repo, "hack/tools/image")
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building the image %s: %w\n%s", img.tag, err, out)
		}
		tarballs = append(tarballs, img.out)
	}
	return tarballs, nil
}

func (c *Cluster) startNode() error {
	starts := []struct {
		name string
		args []string
	}{
		{"kubelet", []string{"--config=" + c.path("kubelet", "config.yaml"), "--kubeconfig=" + c.path("kubelet.kubeconfig"),
			"--root-dir=" + c.path("kubelet"), "--cert-dir=" + c.path("kubelet", "pki"),
			"--hostname-override=" + NodeName, "--node-ip=" + NodeIP}},
		{"kube-controller-manager", []string{"--kubeconfig=" + c.path("controller-manager.kubeconfig"),
			"--bind-address=127.0.0.1", "--secure-port=10257", "--leader-elect=false",
			"--use-service-account-credentials=true", "--service-cluster-ip-range=" + ServiceCIDR,
			"--root-ca-file=" + c.path("pki", "ca.crt"), "--service-account-private-key-file=" + c.path("pki", "service-account.key")}},
		{"kube-scheduler", []string{"--kubeconfig=" + c.path("scheduler.kubeconfig"),
			"--bind-address=127.0.0.1", "--secure-port=10259", "--leader-elect=false"}},
		{"kube-proxy", []string{"--config=" + c.path("kube-proxy.yaml")}},
		{"coredns", []string{"-conf=" + c.path("Corefile")}},
	}
	for _, s := range starts {
		if err := c.start(s.name, c.state.Tools[s.name], s.args...); err != nil {
			return err
		}
	}
	return nil
}

// startNetworkPolicies runs kube-router's firewall alone, which enforces NetworkPolicies
// with iptables and ipsets (kube-proxy serves Services, the bridge plugin routes). It
// needs the Node object, so it starts once the kubelet registered it, and is ready when
// its health check answers.
func (c *Cluster) startNetworkPolicies(ctx context.Context) error {
	if err := c.start("kube-router", c.state.Tools["kube-router"], "--kubeconfig="+c.path("admin.kubeconfig"),
		"--hostname-override="+NodeName, "--run-firewall=true", "--run-router=false", "--run-service-proxy=false",
		"--enable-cni=false", "--service-cluster-ip-range="+ServiceCIDR,
		fmt.Sprintf("--health-port=%d", kubeRouterHealthPort), "--metrics-port=0"); err != nil {
		return err
	}
	return c.poll(ctx, "kube-router's health check", time.Minute, answersOK(fmt.Sprintf("http://127.0.0.1:%d/healthz", kubeRouterHealthPort)))
}

func (c *Cluster) waitNode(ctx context.Context) error {
	cs, err := c.Clientset()
	if err != nil {
		return err
	}
	if err := c.poll(ctx, "the node to be Ready", 2*time.Minute, func(ctx context.Context) (bool, string) {
		node, err := cs.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, cond := range node.Status.Conditions {
			if cond.Type == corev1.NodeReady {
				return cond.Status == corev1.ConditionTrue, cond.Reason + ": " + cond.Message
			}
		}
		return false, "no Ready condition"
	}); err != nil {
		return err
	}
	if err := c.poll(ctx, "the default ServiceAccount and the root CA ConfigMap", time.Minute, func(ctx context.Context) (bool, string) {
		if _, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err != nil {
			return false, err.Error()
		}
		if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{}); err != nil {
			return false, err.Error()
		}
		return true, ""
	}); err != nil {
		return err
	}
	return c.poll(ctx, "CoreDNS to be ready", time.Minute, answersOK(fmt.Sprintf("http://127.0.0.1:%d/ready", corednsReadyPort)))
}

// answersOK is a check for poll: done once url answers 200 OK, as a component's health or
// readiness endpoint does.
func answersOK(url string) func(context.Context) (bool, string) {
	return func(context.Context) (bool, string) {
		resp, err := http.Get(url)
		if err != nil {
			return false, err.Error()
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	}
}

// poll calls check every 500ms until it says done or timeout passes; the error names what
// was awaited and the last thing check said.
func (c *Cluster) poll(ctx context.Context, what string, timeout time.Duration, check func(context.Context) (bool, string)) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		for _, p := range c.state.Processes {
			if !p.alive() {
				return false, fmt.Errorf("%s exited", p.Name)
			}
		}
		done, why := check(ctx)
		last = why
		return done, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for %s (%s): %w (last: %s)", what, timeout, err, last)
	}
	return nil
}

// RESTConfig is a cluster-admin client configuration.
func (c *Cluster) RESTConfig() (*rest.Config, error) {
	return clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
}

// Clientset is a cluster-admin clientset.
func (c *Cluster) Clientset() (*kubernetes.Clientset, error) {
	cfg, err := c.RESTConfig()
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

// EtcdURL is the client URL of the cluster's etcd, for an aggregated API server that stores
// its objects beside the kube-apiserver's (gardener-apiserver, as in a garden).
func (c *Cluster) EtcdURL() string { return fmt.Sprintf("http://127.0.0.1:%d", etcdClientPort) }

// Tool is the path of a tool binary of the cluster's version (kubectl, say).
func (c *Cluster) Tool(name string) string { return c.state.Tools[name] }

// logTails returns the last lines of every component's log, to explain a failure.
func (c *Cluster) logTails() string {
	var b strings.Builder
	for _, p := range c.state.Processes {
		fmt.Fprintf(&b, "--- %s (pid %d, running: %t), last lines of %s:\n%s\n", p.Name, p.PID, p.alive(),
			c.path("logs", p.Name+".log"), tail(c.path("logs", p.Name+".log"), 15))
	}
	return b.String()
}

func tail(path string, lines int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}
