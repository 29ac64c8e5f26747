// Package local runs the whole seedscaler stack on this machine against a simulated
// landscape: a real etcd, kube-apiserver (with the aggregation layer) and Prometheus, every
// part as a child process running the same subcommand the Helm chart deploys, and the
// simulator playing gardenlets, infrastructure and tenants. It shows a live view and writes
// a report (timeline CSV, PNG plot, summary).
package local

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	schedulerconfig "github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/test/framework/aggregation"
	"github.com/seedscaler/seedscaler/test/framework/cluster"
	"github.com/seedscaler/seedscaler/test/framework/garden"
	"github.com/seedscaler/seedscaler/test/framework/manifest"
	"github.com/seedscaler/seedscaler/test/framework/pki"
	"github.com/seedscaler/seedscaler/test/framework/process"
	"github.com/seedscaler/seedscaler/test/framework/promrunner"
	"github.com/seedscaler/seedscaler/test/framework/seeduse"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// Options configure a local run.
type Options struct {
	// Duration of the simulated demand, in wall time.
	Duration time.Duration
	// Speed compresses the simulator's time: 60 plays an hour of demand per minute.
	Speed float64
	// Profile is ProfileDemo, ProfileFleet, or a simulator configuration file for the
	// demo's landscape.
	Profile string
	// FleetSeeds is the size of the fleet with ProfileFleet.
	FleetSeeds int
	// Keep leaves the landscape running after the run until interrupted.
	Keep bool
	// ReportDir receives timeline.csv, plot.png and summary.md.
	ReportDir string
	// Interval between samples of the live view.
	Interval time.Duration
	// Binary is the seedscaler-dev binary the simulator runs as; this process's own when
	// empty.
	Binary string
	// PartsBinary is the seedscaler binary the parts run as (e.g. the image's build, to
	// measure the parts as deployed); when empty, the one named seedscaler beside Binary,
	// where `make build` writes both.
	PartsBinary string
	// Out receives the live view; Interactive redraws it in place (a terminal).
	Out         io.Writer
	Interactive bool
	// Cluster runs the parts as the Helm chart's pods on a one-node cluster started on this
	// machine (root), installed from the image tarball Image, instead of as processes.
	Cluster bool
	Image   string
	// ExtraArgs are flags added to a part's own, by part name ("autoscaler",
	// "seed-controller", "adapter", ...). They come last, so that a flag the stack sets
	// already (the autoscaler's --sync-period) takes the value given here. Only for the
	// parts as processes (Start); on a cluster the chart's values carry them.
	ExtraArgs map[string][]string
	// Gardener runs the demo or the fleet in a real garden (test/framework/garden):
	// gardener-apiserver serves Gardener's kinds and judges every binding, gardener-scheduler
	// places the shoots that do not name seedscaler's scheduler, gardener-controller-manager
	// reconciles the ManagedSeedSets, and the parts run as the chart runs them beside Gardener.
	Gardener bool
	// FleetScheduler binds the fleet's tenants in a garden: FleetSchedulerGardener
	// (gardener-scheduler, the default, also when empty) or FleetSchedulerSeedscaler (the tenants name
	// seedscaler's scheduler).
	FleetScheduler string
}

// Who binds the fleet's tenants in a garden (Options.FleetScheduler).
const (
	FleetSchedulerGardener   = "gardener-scheduler"
	FleetSchedulerSeedscaler = "seedscaler"
)

// The demo landscape: the namespace, the cloud profile, a region config, the root seed,
// the ManagedSeedSet and its SeedAutoscaler.
var landscapeFiles = []string{
	"examples/00-namespace.yaml",
	"examples/landscape/10-cloudprofile.yaml",
	"examples/region-config/gcp-region-config.yaml",
	"examples/demo/10-soil.yaml",
	"examples/demo/20-managedseedset.yaml",
	"examples/demo/30-seedautoscaler.yaml",
}

const (
	demoNamespace = "garden"
	demoSet       = "demo"
	rootSeed      = "soil"
)

// Stack is a running local landscape.
type Stack struct {
	Root       string
	WorkDir    string
	Kubeconfig string
	Env        *testenv.Environment
	Prometheus *promrunner.Prometheus
	Parts      map[string]*process.Process
	log        logr.Logger
	binary     string
	// partsBinary runs the parts; binary runs the simulator.
	partsBinary string
	// adapterMetrics is the adapter's own metrics address, a Prometheus target.
	adapterMetrics string
	// metricsAddrs are the parts' metrics addresses by part name.
	metricsAddrs map[string]string
	// prometheusURL is where this machine reaches Prometheus.
	prometheusURL string
	// node is the one-node cluster the chart runs on, with --cluster.
	node *cluster.Cluster
	// garden is the real garden the stack runs in, with --gardener.
	garden *garden.Garden
}

// Run runs the stack for opts.Duration, then writes the report; it logs through the logger
// of ctx.
func Run(ctx context.Context, opts Options) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	opts.complete()
	start := Start
	if opts.Cluster {
		start = StartOnCluster
	}
	st, err := start(ctx, opts)
	if err != nil {
		return err
	}
	defer st.Stop()
	if err := st.StartSimulator(opts); err != nil {
		return err
	}
	if opts.Profile == ProfileFleet {
		_, _ = fmt.Fprintf(opts.Out, "kubeconfig: %s\nPrometheus: %s\nlogs:       %s\n\n", st.Kubeconfig, st.prometheusURL, filepath.Join(st.WorkDir, "logs"))
		return runFleet(ctx, st, opts)
	}
	_, _ = fmt.Fprintf(opts.Out, "kubeconfig: %s\nPrometheus: %s\nlogs:       %s\n\n", st.Kubeconfig, st.prometheusURL, filepath.Join(st.WorkDir, "logs"))

	samples, events, waits, err := st.watch(ctx, opts)
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	sum, err := writeReport(opts.ReportDir, samples, events, waits)
	if err != nil {
		return fmt.Errorf("writing the report to %s: %w", opts.ReportDir, err)
	}
	_, _ = fmt.Fprintf(opts.Out, "\n%s\nreport: %s\n", sum.Markdown(), opts.ReportDir)
	if opts.Keep && ctx.Err() == nil {
		_, _ = fmt.Fprintf(opts.Out, "\n--keep: the landscape keeps running; `export KUBECONFIG=%s`, Ctrl-C to stop it.\n", st.Kubeconfig)
		<-ctx.Done()
	}
	return nil
}

// newStack makes the run's work directory and a Stack whose simulator runs as opts.Binary
// (this process's own binary when empty) and whose parts run as opts.PartsBinary.
func newStack(log logr.Logger, root string, opts Options) (*Stack, error) {
	binary := opts.Binary
	if binary == "" {
		var err error
		if binary, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	partsBinary := cmp.Or(opts.PartsBinary, filepath.Join(filepath.Dir(binary), "seedscaler"))
	if _, err := os.Stat(partsBinary); err != nil {
		return nil, fmt.Errorf("the parts' binary: %w (build it with `make build`, or name it with --parts-binary)", err)
	}
	workDir, err := os.MkdirTemp("", "seedscaler-local-")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(workDir, "logs"), 0o755); err != nil {
		return nil, err
	}
	return &Stack{Root: root, WorkDir: workDir, Parts: map[string]*process.Process{}, log: log, binary: binary, partsBinary: partsBinary}, nil
}

// Start brings up the apiserver, the landscape, Prometheus and every part except the
// simulator, logging through the logger of ctx.
func Start(ctx context.Context, opts Options) (st *Stack, err error) {
	log := logr.FromContextOrDiscard(ctx)
	root, err := testenv.RepositoryRoot()
	if err != nil {
		return nil, fmt.Errorf("seedscaler-dev local runs from a checkout of the repository (it applies examples/): %w", err)
	}
	promBin, err := testenv.Tool("prometheus")
	if err != nil {
		return nil, err
	}
	if st, err = newStack(log, root, opts); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			st.Stop()
		}
	}()

	extraArgs := opts.ExtraArgs
	if opts.Profile == ProfileFleet {
		extraArgs = fleetArgs(extraArgs)
	}
	if opts.Gardener {
		if err := st.startGarden(ctx, opts); err != nil {
			return st, err
		}
		extraArgs = gardenerArgs(st.Root, extraArgs)
	} else if err := st.startKubeAPIServer(); err != nil {
		return st, err
	}
	switch {
	case opts.Gardener:
		err = nil // the garden's landscape is in place
	case opts.Profile == ProfileFleet:
		log.Info("Creating the fleet", "seeds", opts.FleetSeeds)
		err = ApplyFleetLandscape(ctx, st.Env.Client, root, opts.FleetSeeds)
	default:
		err = st.applyLandscape(ctx)
	}
	if err != nil {
		return st, err
	}

	targets, err := st.startParts(extraArgs)
	if err != nil {
		return st, err
	}
	if st.adapterMetrics, err = promrunner.FreeLoopbackAddress(); err != nil {
		return st, err
	}
	targets = append(targets, promrunner.Target{Job: "seedscaler-adapter", Addresses: []string{st.adapterMetrics}})
	log.Info("Starting Prometheus")
	if st.Prometheus, err = promrunner.Start(ctx, promrunner.Options{
		Binary: promBin, Dir: filepath.Join(st.WorkDir, "prometheus"), ScrapeInterval: 2 * time.Second, Targets: targets,
		// The shipped alerts evaluate too: the demo shows them at /alerts.
		RuleFiles: []string{filepath.Join(root, "alerts", "seedscaler.rules.yaml")},
	}); err != nil {
		return st, err
	}
	st.prometheusURL = st.Prometheus.URL
	log.Info("Starting the adapter and registering it as the metrics APIService")
	if err := st.startAdapter(ctx, extraArgs["adapter"]); err != nil {
		return st, err
	}
	return st, nil
}

// startKubeAPIServer starts etcd and a kube-apiserver with the aggregation layer and the
// CRDs, and writes the stack's kubeconfig.
func (st *Stack) startKubeAPIServer() error {
	st.log.Info("Starting etcd and kube-apiserver with the aggregation layer")
	var err error
	if st.Env, err = testenv.Start(testenv.Options{
		Aggregation: true,
		// The adapter's Service is an ExternalName for localhost: resolve it by name.
		ExtraAPIServerArgs: map[string]string{"enable-aggregator-routing": "false"},
	}); err != nil {
		return err
	}
	kubeconfig, err := st.Env.KubeconfigBytes()
	if err != nil {
		return err
	}
	st.Kubeconfig = filepath.Join(st.WorkDir, "kubeconfig")
	return os.WriteFile(st.Kubeconfig, kubeconfig, 0o600)
}

func (st *Stack) applyLandscape(ctx context.Context) error {
	return ApplyLandscape(ctx, st.Env.Client, st.Root)
}

// ApplyLandscape creates the demo landscape from the repository at root: the garden
// namespace, the cloud profile, GCP's region config, the root seed (registered, as a
// gardenlet reports it), the ManagedSeedSet and its SeedAutoscaler.
func ApplyLandscape(ctx context.Context, c client.Client, root string) error {
	var objs []*unstructured.Unstructured
	for _, f := range landscapeFiles {
		o, err := manifest.ReadFile(filepath.Join(root, f))
		if err != nil {
			return err
		}
		objs = append(objs, o...)
	}
	if err := manifest.CreateOrderly(ctx, c, objs); err != nil {
		return err
	}
	return registerRootSeed(ctx, c, rootSeed)
}

// part describes one child process: its subcommand and extra flags.
type part struct {
	name   string
	args   []string
	scrape bool
}

func (st *Stack) startParts(extraArgs map[string][]string) ([]promrunner.Target, error) {
	parts := []part{
		{name: "scheduler", scrape: true},
		// ManagedSeeds and sets live in the garden namespace, as the chart's
		// admission.seedManagementNamespaces says: tenants' shoots are cached slim.
		{name: "seed-controller", scrape: true, args: []string{"--heartbeat-grace-period=20s", "--seed-management-namespaces=" + demoNamespace}},
		{name: "set-controller", scrape: true, args: []string{"--seed-management-namespaces=" + demoNamespace}},
		{name: "exporter", scrape: true},
		{name: "autoscaler", scrape: true, args: []string{"--sync-period=5s"}},
	}
	if st.garden != nil {
		// Gardener reconciles its own ManagedSeeds and ManagedSeedSets.
		parts = slices.DeleteFunc(parts, func(p part) bool { return p.name == "seed-controller" || p.name == "set-controller" })
	}
	var targets []promrunner.Target
	for _, p := range parts {
		metrics, err := promrunner.FreeLoopbackAddress()
		if err != nil {
			return nil, err
		}
		health, err := promrunner.FreeLoopbackAddress()
		if err != nil {
			return nil, err
		}
		args := append([]string{p.name, "--kubeconfig=" + st.Kubeconfig,
			"--metrics-bind-address=" + metrics, "--health-probe-bind-address=" + health}, p.args...)
		args = append(args, extraArgs[p.name]...)
		proc := process.New(p.name, st.partsBinary, filepath.Join(st.WorkDir, "logs"), args...)
		st.log.Info("Starting part", "part", p.name)
		if err := proc.Start(); err != nil {
			return nil, err
		}
		st.Parts[p.name] = proc
		if st.metricsAddrs == nil {
			st.metricsAddrs = map[string]string{}
		}
		st.metricsAddrs[p.name] = metrics
		if p.scrape {
			targets = append(targets, promrunner.Target{Job: "seedscaler-" + p.name, Addresses: []string{metrics}})
		}
	}
	return targets, nil
}

// Where the adapter stands in the aggregation layer, as the chart names it.
const (
	adapterNamespace = "seedscaler-system"
	adapterService   = "seedscaler-adapter"
)

// startAdapter runs the adapter on loopback with a serving certificate from a CA made for
// this run, and registers it as the custom and external metrics APIService. Its own metrics
// address was chosen before Prometheus started, so Prometheus scrapes it already.
func (st *Stack) startAdapter(ctx context.Context, extraArgs []string) error {
	dir := filepath.Join(st.WorkDir, "adapter")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	ca, err := pki.NewCA("seedscaler-local-adapter-ca")
	if err != nil {
		return err
	}
	serving, err := ca.NewServingCert(adapterService+"."+adapterNamespace+".svc", "localhost", "127.0.0.1")
	if err != nil {
		return err
	}
	cert, key := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(cert, serving.CertPEM, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(key, serving.KeyPEM, 0o600); err != nil {
		return err
	}
	secure, err := promrunner.FreeLoopbackAddress()
	if err != nil {
		return err
	}
	_, portText, _ := net.SplitHostPort(secure)
	port, err := strconv.Atoi(portText)
	if err != nil {
		return err
	}
	health, err := promrunner.FreeLoopbackAddress()
	if err != nil {
		return err
	}
	args := append([]string{"adapter",
		"--kubeconfig=" + st.Kubeconfig, "--secure-port=" + portText, "--bind-address=127.0.0.1",
		"--tls-cert-file=" + cert, "--tls-private-key-file=" + key, "--prometheus-url=" + st.Prometheus.URL,
		"--metrics-bind-address=" + st.adapterMetrics, "--health-probe-bind-address=" + health}, extraArgs...)
	proc := process.New("adapter", st.partsBinary, filepath.Join(st.WorkDir, "logs"), args...)
	st.log.Info("Starting part", "part", "adapter")
	if err := proc.Start(); err != nil {
		return err
	}
	st.Parts["adapter"] = proc
	if err := aggregation.RegisterLocal(ctx, st.Env.Client, adapterNamespace, adapterService, int32(port), ca.CertPEM()); err != nil {
		return err
	}
	if err := aggregation.WaitAvailable(ctx, st.Env.Client, 2*time.Minute); err != nil {
		return fmt.Errorf("%w; the end of the adapter's log (%s):\n%s", err, proc.LogPath, proc.Tail(2000))
	}
	return nil
}

// fleetArgs are the flags the parts run with on the fleet, before extra: a client rate that
// does not hold back a landscape of a thousand seeds, Go's profiles (the report keeps each
// part's heap), and a heartbeat grace period of four of the fleet's heartbeats.
func fleetArgs(extra map[string][]string) map[string][]string {
	out := map[string][]string{}
	for _, p := range []string{"scheduler", "seed-controller", "set-controller", "exporter", "autoscaler"} {
		out[p] = []string{"--kube-api-qps=500", "--kube-api-burst=1000", "--profiling"}
	}
	out["seed-controller"] = append(out["seed-controller"], "--heartbeat-grace-period=60s")
	for p, args := range extra {
		out[p] = append(out[p], args...)
	}
	return out
}

// StartSimulator starts the simulator with the demand profile.
func (st *Stack) StartSimulator(opts Options) error {
	config := "--config=" + opts.Profile
	switch opts.Profile {
	case ProfileDemo:
		config = "--config=" + filepath.Join(st.Root, demoDayFile)
	case ProfileFleet:
		config = fmt.Sprintf("--profile=%s --fleet-seeds=%d --kube-api-qps=2000 --kube-api-burst=4000", ProfileFleet, opts.FleetSeeds)
		if opts.Gardener && opts.FleetScheduler == FleetSchedulerSeedscaler {
			cfg, err := schedulerconfig.Load(schedulerConfigBesideGardener(st.Root))
			if err != nil {
				return err
			}
			config += " --tenant-scheduler=" + cfg.SchedulerName
		}
	}
	args := []string{"simulate", "--kubeconfig=" + st.Kubeconfig, "--metrics-bind-address=0", "--health-probe-bind-address=0"}
	args = append(args, strings.Fields(config)...)
	args = append(args, fmt.Sprintf("--speed=%g", opts.Speed),
		// The simulator's duration is simulated time: the wall-clock run at its speed.
		"--duration="+time.Duration(float64(opts.Duration)*opts.Speed).String(),
		"--timeline="+filepath.Join(st.WorkDir, "simulator-timeline.csv"))
	proc := process.New("simulator", st.binary, filepath.Join(st.WorkDir, "logs"), args...)
	if err := proc.Start(); err != nil {
		return err
	}
	st.Parts["simulator"] = proc
	return nil
}

// Stop stops the simulator and every part, Prometheus and the apiserver.
func (st *Stack) Stop() {
	names := make([]string, 0, len(st.Parts))
	for n := range st.Parts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		st.Parts[n].Stop(10 * time.Second)
	}
	if st.Prometheus != nil {
		_ = st.Prometheus.Stop()
	}
	switch {
	case st.node != nil:
		if err := cluster.Down(st.node.Dir, nil); err != nil {
			st.log.Error(err, "Tearing down the cluster")
		}
	case st.garden != nil:
		if err := st.garden.Stop(); err != nil {
			st.log.Error(err, "Stopping the garden")
		}
	case st.Env != nil:
		_ = st.Env.Stop()
	}
}

// watch samples the landscape every interval until the run's duration is over, rendering
// the live view, and returns the samples, scale events and wait times.
func (st *Stack) watch(ctx context.Context, opts Options) ([]Sample, []scaleEvent, []time.Duration, error) {
	reader, stopCache, err := newCache(ctx, st.Env.Config, st.Env.Scheme)
	if err != nil {
		return nil, nil, nil, err
	}
	defer stopCache()
	start := time.Now()
	deadline := time.NewTimer(opts.Duration)
	defer deadline.Stop()
	tick := time.NewTicker(opts.Interval)
	defer tick.Stop()
	var (
		samples  []Sample
		events   []scaleEvent
		waits    = newWaitTracker()
		drawn    int
		lastSpec int32 = -1
	)
	header := []string{
		fmt.Sprintf("seedscaler-dev local — ManagedSeedSet %s/%s, SeedAutoscaler %s/%s, %s at speed %gx",
			demoNamespace, demoSet, demoNamespace, demoSet, opts.Duration, opts.Speed),
		fmt.Sprintf("kubectl --kubeconfig %s get seeds,shoots,managedseedsets,seedautoscalers -A", st.Kubeconfig),
	}
	for {
		select {
		case <-ctx.Done():
			return samples, events, waits.waits, ctx.Err()
		case <-deadline.C:
			return samples, events, waits.waits, nil
		case now := <-tick.C:
			for name, p := range st.Parts {
				if !p.Running() {
					return samples, events, waits.waits, fmt.Errorf("part %s exited; the end of its log (%s):\n%s", name, p.LogPath, p.Tail(2000))
				}
			}
			s, spec, shoots, err := sample(ctx, reader, now.Sub(start))
			if err != nil {
				st.log.Error(err, "Sampling the landscape")
				continue
			}
			if lastSpec >= 0 && spec != lastSpec {
				events = append(events, scaleEvent{Elapsed: s.Elapsed, From: lastSpec, To: spec})
			}
			lastSpec = spec
			samples = append(samples, s)
			waits.observe(now, shoots)
			view := renderView(header, samples, events, 12)
			if opts.Interactive && drawn > 0 {
				_, _ = fmt.Fprintf(opts.Out, "\x1b[%dA\x1b[J", drawn)
			}
			if opts.Interactive || len(samples)%10 == 1 {
				_, _ = fmt.Fprint(opts.Out, view)
				drawn = strings.Count(view, "\n")
			}
		}
	}
}

// sample reads the landscape from the cache: the Sample, the set's spec.replicas, the shoots.
func sample(ctx context.Context, reader client.Reader, elapsed time.Duration) (Sample, int32, []gardencorev1beta1.Shoot, error) {
	var (
		shoots gardencorev1beta1.ShootList
		seeds  gardencorev1beta1.SeedList
		set    seedmanagementv1alpha1.ManagedSeedSet
		sa     autoscalingv1alpha1.SeedAutoscaler
		evs    eventsv1.EventList
	)
	key := client.ObjectKey{Namespace: demoNamespace, Name: demoSet}
	for _, read := range []func() error{
		func() error { return reader.List(ctx, &shoots) },
		func() error { return reader.List(ctx, &seeds) },
		func() error { return reader.Get(ctx, key, &set) },
		func() error { return reader.Get(ctx, key, &sa) },
		func() error { return reader.List(ctx, &evs, client.InNamespace(demoNamespace)) },
	} {
		if err := read(); err != nil {
			return Sample{}, 0, nil, err
		}
	}
	var spec int32
	if set.Spec.Replicas != nil {
		spec = *set.Spec.Replicas
	}
	s := takeSample(elapsed, shoots.Items, seeds.Items, seeduse.PerSeed(shoots.Items), &set, &sa)
	s.ScaledOutAhead = countScaledOutAhead(evs.Items, &sa)
	return s, spec, shoots.Items, nil
}

// newCache starts an informer cache for the kinds the live view reads.
// newCache starts an informer cache for the live view. Its watches must end before the
// landscape goes: stop cancels them and returns once they have.
func newCache(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme) (reader client.Reader, stop func(), err error) {
	c, err := cache.New(cfg, cache.Options{Scheme: scheme})
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Start(ctx)
	}()
	stop = func() { cancel(); <-done }
	if !c.WaitForCacheSync(ctx) {
		stop()
		return nil, nil, errors.New("the live view's cache did not sync")
	}
	return c, stop, nil
}

// Kill stops a running part at once, as a crash would (the end-to-end tests use it).
func (st *Stack) Kill(part string) error {
	p, ok := st.Parts[part]
	if !ok {
		return fmt.Errorf("no part %q in this stack", part)
	}
	p.Kill()
	return nil
}

// Restart starts a part again, with the same flags, after Kill.
func (st *Stack) Restart(part string) error {
	p, ok := st.Parts[part]
	if !ok {
		return fmt.Errorf("no part %q in this stack", part)
	}
	if p.Running() {
		return fmt.Errorf("part %s is still running; Kill it first", part)
	}
	return p.Start()
}

// MetricsURL is where a part serves its own metrics, for a test that reads them while
// Prometheus is down.
func (st *Stack) MetricsURL(part string) (string, error) {
	addr, ok := st.metricsAddrs[part]
	if !ok {
		return "", fmt.Errorf("no part %q in this stack", part)
	}
	return "http://" + addr + "/metrics", nil
}

// Exited names the parts that are not running, with the end of their logs.
func (st *Stack) Exited() map[string]string {
	out := map[string]string{}
	for name, p := range st.Parts {
		if !p.Running() {
			out[name] = p.Tail(2000)
		}
	}
	return out
}
