//go:build integration

// Package cluster installs the Helm chart onto a real one-node Kubernetes cluster (kubelet,
// containerd, kube-proxy, CoreDNS; test/framework/cluster) from the image `make image`
// wrote, into a namespace that enforces the restricted Pod Security Standard, and checks
// what only pods on a node show: the image starts under the chart's security context,
// probes pass, each part's ServiceAccount and RBAC suffice, the adapter's APIService is
// reachable through its Service, `*.svc` names resolve, a Prometheus in a pod scrapes the
// parts, the SeedAutoscaler scales a ManagedSeedSet out and in, and upgrade, killed pods and
// uninstall leave the stack working or leave nothing behind.
package cluster

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/dev/local"
	"github.com/seedscaler/seedscaler/internal/scheme"
	"github.com/seedscaler/seedscaler/test/framework/aggregation"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/cluster"
	"github.com/seedscaler/seedscaler/test/framework/process"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

const (
	release   = "seedscaler"
	namespace = "seedscaler"
	// metrics holds a plain Prometheus; monitoring holds prometheus-operator's, where
	// kube-prometheus-stack runs it and where the chart's default Prometheus URL points.
	metrics    = "metrics"
	monitoring = "monitoring"
	garden     = "garden"
	setName    = "demo"
	tenants    = "garden-tenants"
	selector   = "app.kubernetes.io/instance=" + release
)

var (
	node *cluster.Cluster
	// devBinary runs the simulator outside the cluster, as gardenlets and tenants.
	devBinary string
	repo      string
)

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "test/cluster:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	image := os.Getenv("SEEDSCALER_IMAGE")
	if image == "" {
		return 0, fmt.Errorf("SEEDSCALER_IMAGE is not set: this suite installs the chart from the image tarball `make image` writes; run it with `make test`")
	}
	var err error
	if repo, err = testenv.RepositoryRoot(); err != nil {
		return 0, err
	}
	dir, err := os.MkdirTemp("", "seedscaler-cluster-test-")
	if err != nil {
		return 0, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if devBinary, err = testenv.BuildSeedscaler(dir, testenv.Development); err != nil {
		return 0, err
	}
	if err := plantCrashedRun(dir); err != nil {
		return 0, fmt.Errorf("planting a crashed run's leftovers: %w", err)
	}
	ctx := context.Background()
	node, err = cluster.Up(ctx, cluster.Options{Dir: filepath.Join(dir, "node"), Repo: repo, Images: []string{image}, Log: os.Stderr})
	if err != nil {
		return 0, err
	}
	code := m.Run()
	if err := cluster.Down(node.Dir, os.Stderr); err != nil {
		return 0, err
	}
	return code, nil
}

// TestChartOnARealNode plays one story on the node, in order: install, the stack scales a
// set out, upgrade, the stack scales the set in, uninstall.
func TestChartOnARealNode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	helm, cs, c := clients(t, metrics)
	cfg, err := node.RESTConfig()
	require.NoError(t, err)
	// Install as a user would: the chart's defaults, the image tag it defaults to, and the
	// URL of the Prometheus that scrapes the parts; the namespace enforces restricted PSA.
	require.NoError(t, cluster.RestrictedNamespace(ctx, cs, namespace))
	promURL := fmt.Sprintf("http://%s.%s.svc:9090", cluster.PrometheusService, metrics)
	out, err := node.Helm(ctx, helm, "install", release, filepath.Join(repo, "charts", "seedscaler"), "--namespace", namespace,
		"--set", "adapter.prometheusURL="+promURL,
		// Metrics are served over HTTPS to authorized scrapers: the plain Prometheus'
		// ServiceAccount may get them.
		"--set", "monitoring.prometheusServiceAccounts[0].namespace="+metrics,
		"--set", "monitoring.prometheusServiceAccounts[0].name="+cluster.PrometheusService,
		// Shorter than the defaults, so that the story fits a test.
		"--set", "seedController.extraArgs={--heartbeat-grace-period=20s}",
		"--set", "autoscaler.extraArgs={--sync-period=5s}",
		"--wait", "--timeout", "3m")
	require.NoError(t, err, out)
	require.NoError(t, node.WaitDeployments(ctx, namespace, selector, 2*time.Minute))
	require.NoError(t, aggregation.WaitAvailable(ctx, c, 2*time.Minute), node.Diagnose(ctx, namespace))
	assertNoRestarts(ctx, t, cs)

	_, promFromHost, err := node.InstallPrometheus(ctx, cluster.PrometheusOptions{
		Namespace: metrics, ScrapeNamespace: namespace, RulesConfigMap: release + "-alerts", ScrapeInterval: 5 * time.Second,
	})
	require.NoError(t, err)
	prom := promQuerier(t, promFromHost)

	// The landscape, and the simulator outside the cluster playing gardenlets.
	require.NoError(t, local.ApplyLandscape(ctx, c, repo))
	sim := process.New("simulator", devBinary, t.TempDir(), "simulate", "--kubeconfig="+node.Kubeconfig,
		"--metrics-bind-address=0", "--health-probe-bind-address=0",
		"--config="+filepath.Join(repo, "test", "e2e", "testdata", "simulator.yaml"))
	require.NoError(t, sim.Start())
	defer sim.Stop(10 * time.Second)

	set := func() *seedmanagementv1alpha1.ManagedSeedSet {
		s := &seedmanagementv1alpha1.ManagedSeedSet{}
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: garden, Name: setName}, s))
		return s
	}
	waitFor(t, "the set's first seed to be ready", 3*time.Minute, func() (bool, string) {
		s := set()
		return s.Status.ReadyReplicas >= 1, fmt.Sprintf("%d ready", s.Status.ReadyReplicas)
	})

	// Demand: 100 shoots need ceil(100 / (50 × 70%)) = 3 seeds.
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenants}}, metav1.CreateOptions{})
	require.NoError(t, err)
	for i := range 100 {
		require.NoError(t, c.Create(ctx, builders.MakeShoot(tenants, fmt.Sprintf("tenant-%03d", i)).Obj()))
	}
	waitFor(t, "every shoot bound on at least 3 ready seeds", 6*time.Minute, func() (bool, string) {
		s, n := set(), unbound(ctx, t, c, tenants)
		return n == 0 && s.Status.ReadyReplicas >= 3, fmt.Sprintf("%d unbound, %d/%d ready", n, s.Status.ReadyReplicas, ptr.Deref(s.Spec.Replicas, 1))
	})

	t.Run("the custom metrics API answers through the aggregator from the adapter's pod", func(t *testing.T) {
		path := "/apis/custom.metrics.k8s.io/v1beta2/seeds.core.gardener.cloud/*/garden_seed_usage?metricLabelSelector=" +
			url.QueryEscape("resource=shoots")
		// Every seed that hosts a shoot has its usage there once Prometheus has scraped it.
		hosting := hostingSeeds(ctx, t, c)
		require.NotEmpty(t, hosting)
		waitFor(t, "every hosting seed's usage from the custom metrics API", time.Minute, func() (bool, string) {
			raw, err := kubectl("get", "--raw", path)
			if err != nil {
				return false, fmt.Sprintf("%v: %s", err, raw)
			}
			for _, seed := range hosting {
				if !strings.Contains(string(raw), fmt.Sprintf(`"name":%q`, seed)) {
					return false, fmt.Sprintf("no usage of seed %s in %s", seed, raw)
				}
			}
			return true, ""
		})
	})

	t.Run("Prometheus in a pod scrapes every part through its Service and loads the chart's rules", func(t *testing.T) {
		parts := []string{"scheduler", "seed-controller", "set-controller", "exporter", "adapter", "autoscaler"}
		waitFor(t, "every part's target up", time.Minute, func() (bool, string) {
			res, _, _, err := prom.Query(ctx, `up{job=~"seedscaler-.+"}`, time.Now())
			if err != nil {
				return false, err.Error()
			}
			up := map[string]bool{}
			for _, s := range res.(model.Vector) {
				up[string(s.Metric["job"])] = up[string(s.Metric["job"])] || s.Value == 1
			}
			for _, p := range parts {
				if !up["seedscaler-"+p] {
					return false, fmt.Sprintf("%s not up: %v", p, res)
				}
			}
			return true, ""
		})
		rules, err := prom.Rules(ctx, nil)
		require.NoError(t, err)
		assert.NotEmpty(t, rules.Groups, "Prometheus loaded none of the chart's rules")
	})

	// Upgrade to other values: two scheduler replicas (leader elected), the seed controller
	// in object-locks mode.
	out, err = node.Helm(ctx, helm, "upgrade", release, filepath.Join(repo, "charts", "seedscaler"), "--namespace", namespace,
		"--reuse-values", "--set", "scheduler.replicas=2", "--set", "seedController.replicasMode=object-locks",
		"--set", "seedController.replicas=2", "--wait", "--timeout", "3m")
	require.NoError(t, err, out)
	require.NoError(t, node.WaitDeployments(ctx, namespace, selector, 2*time.Minute))

	// Demand goes: the stack still decides, and the set shrinks back to one seed.
	require.NoError(t, c.DeleteAllOf(ctx, &gardencorev1beta1.Shoot{}, client.InNamespace(tenants)))
	waitFor(t, "the set to shrink back to 1 seed", 5*time.Minute, func() (bool, string) {
		s := set()
		sa := &autoscalingv1alpha1.SeedAutoscaler{}
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: garden, Name: setName}, sa))
		return ptr.Deref(s.Spec.Replicas, 1) == 1 && s.Status.Replicas == 1,
			fmt.Sprintf("spec %d, status %d; the SeedAutoscaler's conditions: %+v", ptr.Deref(s.Spec.Replicas, 1), s.Status.Replicas, sa.Status.Conditions)
	})
	assertNoForbidden(ctx, t, cs)

	// The aggregator downloads the adapter's OpenAPI instead of logging, every minute or
	// two, that the adapter has none (404). While an adapter pod restarts a download may
	// fail as unavailable (503); that is not what this checks.
	apiserverLog, err := os.ReadFile(filepath.Join(node.Dir, "logs", "kube-apiserver.log"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(apiserverLog), "\n") {
		if strings.Contains(line, "metrics.k8s.io") && strings.Contains(line, "openAPI spec") && strings.Contains(line, "ResponseCode: 404") {
			assert.Fail(t, "the adapter serves no OpenAPI", "%s", line)
		}
	}

	// Uninstall leaves nothing of the release behind but the CRDs (and the users' objects).
	out, err = node.Helm(ctx, helm, "uninstall", release, "--namespace", namespace, "--wait", "--timeout", "3m")
	require.NoError(t, err, out)
	waitFor(t, "every pod of the release to go", 2*time.Minute, func() (bool, string) {
		pods, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
		return err == nil && len(pods.Items) == 0, fmt.Sprintf("%d pods", len(pods.Items))
	})
	assert.Empty(t, leftovers(ctx, t), "objects of the release left after helm uninstall")
	for _, crd := range []string{"managedseedsets.seedmanagement.gardener.cloud", "seedautoscalers.autoscaling.seedscaler.io"} {
		_, err := dynamic.NewForConfigOrDie(cfg).Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}).
			Get(ctx, crd, metav1.GetOptions{})
		assert.NoError(t, err, "the CRD %s must survive uninstall", crd)
	}
}

// clients returns helm's path and cluster-admin clients of the node; when the test fails,
// it logs the pods, events and logs of the release namespace and of prometheusNamespace.
func clients(t *testing.T, prometheusNamespace string) (helm string, cs *kubernetes.Clientset, c client.Client) {
	t.Helper()
	helm, err := testenv.Tool("helm")
	require.NoError(t, err)
	cs, err = node.Clientset()
	require.NoError(t, err)
	cfg, err := node.RESTConfig()
	require.NoError(t, err)
	c, err = client.New(cfg, client.Options{Scheme: scheme.New()})
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(node.Diagnose(context.Background(), namespace, prometheusNamespace))
		}
	})
	return helm, cs, c
}

// kubectl runs the node's kubectl as cluster admin.
func kubectl(args ...string) (string, error) {
	out, err := exec.Command(node.Tool("kubectl"), append([]string{"--kubeconfig", node.Kubeconfig}, args...)...).CombinedOutput()
	return string(out), err
}

// waitFor polls cond until it holds; on timeout the failure names what was awaited and what
// cond said last (the test's deferred Diagnose then shows the pods, events and logs).
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			require.Fail(t, "timed out", "waiting %s for %s (last: %s)", timeout, what, why)
		}
		time.Sleep(time.Second)
	}
}

func promQuerier(t *testing.T, address string) promv1.API {
	t.Helper()
	cl, err := promapi.NewClient(promapi.Config{Address: address})
	require.NoError(t, err)
	return promv1.NewAPI(cl)
}

// tenantsNamespace creates the namespace of the tenants' shoots, unless a story before made
// it.
func tenantsNamespace(ctx context.Context, t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenants}}, metav1.CreateOptions{})
	require.NoError(t, client.IgnoreAlreadyExists(err))
}

// unbound counts the shoots of namespace ns that have no seed.
func unbound(ctx context.Context, t *testing.T, c client.Client, ns string) int {
	var shoots gardencorev1beta1.ShootList
	require.NoError(t, c.List(ctx, &shoots, client.InNamespace(ns)))
	n := 0
	for _, s := range shoots.Items {
		if s.Spec.SeedName == nil {
			n++
		}
	}
	return n
}

// hostingSeeds names the seeds tenant shoots are bound to.
func hostingSeeds(ctx context.Context, t *testing.T, c client.Client) []string {
	var shoots gardencorev1beta1.ShootList
	require.NoError(t, c.List(ctx, &shoots, client.InNamespace(tenants)))
	seen := map[string]bool{}
	var names []string
	for _, s := range shoots.Items {
		if s.Spec.SeedName != nil && !seen[*s.Spec.SeedName] {
			seen[*s.Spec.SeedName] = true
			names = append(names, *s.Spec.SeedName)
		}
	}
	return names
}

// assertNoRestarts fails for a container of the release that restarted: a crash at start
// shows here first.
func assertNoRestarts(ctx context.Context, t *testing.T, cs kubernetes.Interface) {
	pods, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	require.NoError(t, err)
	for _, p := range pods.Items {
		for _, st := range p.Status.ContainerStatuses {
			assert.Zero(t, st.RestartCount, "%s/%s restarted", p.Name, st.Name)
		}
	}
}

// assertNoForbidden fails when a part's log says the API refused it something: its RBAC
// is narrower than its work.
func assertNoForbidden(ctx context.Context, t *testing.T, cs kubernetes.Interface) {
	pods, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	require.NoError(t, err)
	for _, p := range pods.Items {
		logs, err := cs.CoreV1().Pods(namespace).GetLogs(p.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
		require.NoError(t, err)
		for _, line := range strings.Split(string(logs), "\n") {
			assert.NotContains(t, strings.ToLower(line), "forbidden", "%s", p.Name)
		}
	}
}

// leftovers lists what remains of the release: every object in its namespace but the
// namespace's own defaults, and the cluster-scoped objects labeled with the release.
func leftovers(ctx context.Context, t *testing.T) []string {
	t.Helper()
	restCfg, err := node.RESTConfig()
	require.NoError(t, err)
	cs := kubernetes.NewForConfigOrDie(restCfg)
	dyn := dynamic.NewForConfigOrDie(restCfg)
	// Discovery may still list the metrics APIs for a moment after their APIServices went.
	var lists []*metav1.APIResourceList
	waitFor(t, "complete discovery", 30*time.Second, func() (bool, string) {
		var err error
		lists, err = cs.Discovery().ServerPreferredResources()
		return err == nil, fmt.Sprint(err)
	})
	var left []string
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		require.NoError(t, err)
		for _, r := range list.APIResources {
			if !strings.Contains(strings.Join(r.Verbs, ","), "list") || strings.Contains(r.Name, "/") || r.Name == "events" {
				continue
			}
			gvr := gv.WithResource(r.Name)
			opts := metav1.ListOptions{}
			var items []string
			if r.Namespaced {
				l, err := dyn.Resource(gvr).Namespace(namespace).List(ctx, opts)
				if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
					continue
				}
				require.NoError(t, err, "%s", gvr)
				for _, o := range l.Items {
					if (r.Name == "serviceaccounts" && o.GetName() == "default") || (r.Name == "configmaps" && o.GetName() == "kube-root-ca.crt") {
						continue
					}
					items = append(items, r.Name+"/"+o.GetName())
				}
			} else {
				opts.LabelSelector = selector
				l, err := dyn.Resource(gvr).List(ctx, opts)
				if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
					continue
				}
				require.NoError(t, err, "%s", gvr)
				for _, o := range l.Items {
					items = append(items, r.Name+"/"+o.GetName())
				}
			}
			left = append(left, items...)
		}
	}
	// The adapter's reader binding lives in kube-system.
	rbs, err := cs.RbacV1().RoleBindings("kube-system").List(ctx, metav1.ListOptions{LabelSelector: selector})
	require.NoError(t, err)
	for _, rb := range rbs.Items {
		left = append(left, "kube-system/rolebindings/"+rb.Name)
	}
	return left
}
