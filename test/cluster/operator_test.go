//go:build integration

package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/dev/local"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/cluster"
	"github.com/seedscaler/seedscaler/test/framework/process"
	"github.com/seedscaler/seedscaler/test/framework/seeduse"
)

// kps is the release label the operator's Prometheus selects ServiceMonitors and rules by,
// as kube-prometheus-stack's Prometheus selects by its release name.
const kps = "kube-prometheus-stack"

// TestChartUnderPrometheusOperator installs the chart next to prometheus-operator the way
// operators run it: the chart's ServiceMonitors and PrometheusRule configure the operator's
// Prometheus (selected by the release label, one flag), the exporter, adapter and scheduler
// run two replicas each, the adapter reads the default Prometheus URL, and the chart's
// NetworkPolicies are on, enforced by the node's kube-router. Every input of
// the autoscaler arrives through that path. Then, while demand ramps up, every part and
// Prometheus are killed once: no seed goes above its allocatable, no seed hosting shoots is
// deleted, the set never shrinks, and the SeedAutoscaler decides again after each restart.
func TestChartUnderPrometheusOperator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	helm, cs, c := clients(t, monitoring)

	promFromHost, err := node.InstallPrometheusOperator(ctx, cluster.OperatorOptions{
		Namespace: monitoring, Name: "kps", ReleaseLabel: kps, ScrapeInterval: 5 * time.Second,
	})
	require.NoError(t, err)
	prom := promQuerier(t, promFromHost)

	require.NoError(t, node.InstallChart(ctx, cluster.ChartOptions{
		Helm: helm, Chart: filepath.Join(repo, "charts", "seedscaler"), Release: release, Namespace: namespace,
		Values: append([]string{
			"monitoring.labels.release=" + kps,
			// The operator's Prometheus scrapes over HTTPS with its token (its own ClusterRole
			// grants /metrics too, as kube-prometheus-stack's does).
			"monitoring.prometheusServiceAccounts[0].namespace=" + monitoring, "monitoring.prometheusServiceAccounts[0].name=prometheus",
			"exporter.replicas=2", "adapter.replicas=2", "scheduler.replicas=2",
			"seedController.extraArgs={--heartbeat-grace-period=20s}", "autoscaler.extraArgs={--sync-period=5s}",
		}, networkPolicyValues...),
	}))
	// The landscape of the story before, or a new one.
	if err := c.Get(ctx, client.ObjectKey{Namespace: garden, Name: setName}, &seedmanagementv1alpha1.ManagedSeedSet{}); apierrors.IsNotFound(err) {
		require.NoError(t, local.ApplyLandscape(ctx, c, repo))
	}
	sim := process.New("simulator", devBinary, t.TempDir(), "simulate", "--kubeconfig="+node.Kubeconfig,
		"--metrics-bind-address=0", "--health-probe-bind-address=0",
		"--config="+filepath.Join(repo, "test", "e2e", "testdata", "simulator.yaml"))
	require.NoError(t, sim.Start())
	defer sim.Stop(10 * time.Second)

	t.Run("the operator scrapes every replica of every part, with the parts' labels", func(t *testing.T) {
		want := map[string]int{"seedscaler-exporter": 2, "seedscaler-adapter": 2, "seedscaler-scheduler": 2,
			"seedscaler-seed-controller": 1, "seedscaler-set-controller": 1, "seedscaler-autoscaler": 1}
		waitFor(t, "every replica's target up", 2*time.Minute, func() (bool, string) {
			res, _, _, err := prom.Query(ctx, `count by (job) (up{job=~"seedscaler-.+"} == 1)`, time.Now())
			if err != nil {
				return false, err.Error()
			}
			got := map[string]int{}
			for _, s := range res.(model.Vector) {
				got[string(s.Metric["job"])] = int(s.Value)
			}
			return assert.ObjectsAreEqual(want, got), fmt.Sprintf("%v", got)
		})
		// The scheduler's pending gauge keeps the set's namespace (not the release's, not
		// exported_namespace), and only the leader serves it.
		waitFor(t, "the pending-shoots series of the set", time.Minute, func() (bool, string) {
			res, _, _, err := prom.Query(ctx, `seedscaler_scheduler_pending_shoots{managedseedset="`+setName+`"}`, time.Now())
			if err != nil {
				return false, err.Error()
			}
			v := res.(model.Vector)
			return len(v) == 1 && v[0].Metric["namespace"] == garden && v[0].Metric["exported_namespace"] == "", v.String()
		})
		// The adapter discovers series on an interval and caches answers briefly.
		waitFor(t, "the pending input through the custom metrics API", time.Minute, func() (bool, string) {
			out, err := kubectl("get", "--raw", "/apis/custom.metrics.k8s.io/v1beta2/namespaces/"+garden+
				"/managedseedsets.seedmanagement.gardener.cloud/"+setName+"/seedscaler_scheduler_pending_shoots")
			return err == nil && strings.Contains(out, `"name":"`+setName+`"`), out
		})
		// Every input of the autoscaler (seeds' usage and allocatable, pending shoots) came
		// through the operator's Prometheus and the adapter.
		waitFor(t, "ScalingActive=True", 2*time.Minute, func() (bool, string) {
			sa := &autoscalingv1alpha1.SeedAutoscaler{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: garden, Name: setName}, sa); err != nil {
				return false, err.Error()
			}
			cond := meta.FindStatusCondition(sa.Status.Conditions, autoscalingv1alpha1.SeedAutoscalerScalingActive)
			return cond != nil && cond.Status == metav1.ConditionTrue, fmt.Sprintf("%+v", cond)
		})
		// The chart's rules are loaded and every one evaluates: with two exporter replicas a
		// join on one instance's series would fail as many-to-many.
		waitFor(t, "every alert and recording rule evaluated without error", 2*time.Minute, func() (bool, string) {
			return rulesHealthy(ctx, prom)
		})
	})

	t.Run("the NetworkPolicies admit the scrapers, the aggregator and the webhook, and no other pod", func(t *testing.T) {
		admittedAndRefused(ctx, t, cs, c, prom)
	})

	restartsUnderARamp(ctx, t, cs, c)
}

// rulesHealthy says whether Prometheus loaded the chart's rules and evaluates every one
// without error, and names the first that fails.
func rulesHealthy(ctx context.Context, prom promv1.API) (bool, string) {
	rules, err := prom.Rules(ctx, nil)
	if err != nil {
		return false, err.Error()
	}
	if len(rules.Groups) == 0 {
		return false, "the chart's PrometheusRule is not loaded"
	}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			var name, health, lastError string
			switch r := r.(type) {
			case promv1.AlertingRule:
				name, health, lastError = r.Name, string(r.Health), r.LastError
			case promv1.RecordingRule:
				name, health, lastError = r.Name, string(r.Health), r.LastError
			}
			if health != "ok" {
				return false, fmt.Sprintf("%s/%s: %s %s", g.Name, name, health, lastError)
			}
		}
	}
	return true, ""
}

// restartsUnderARamp creates shoots in steps while it kills one pod of every part and
// Prometheus, and crashes the garden's etcd and kube-apiserver (every watch breaks, the
// aggregated metrics APIs go away), one after the other, and reports for each how long the
// SeedAutoscaler made no decision.
func restartsUnderARamp(ctx context.Context, t *testing.T, cs kubernetes.Interface, c client.Client) {
	tenantsNamespace(ctx, t, cs)
	// The demo's SeedAutoscaler scales ahead on the trend: a step of demand lifts the
	// forecast above what the shoots need, and the set rightly shrinks again once the trend
	// flattens. "The set never shrinks while demand grows" holds for the reactive
	// recommendation only, so this test turns scale-ahead off.
	sa := &autoscalingv1alpha1.SeedAutoscaler{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: garden, Name: setName}, sa))
	if sa.Spec.ScaleAhead != nil {
		patch := client.MergeFrom(sa.DeepCopy())
		sa.Spec.ScaleAhead = nil
		require.NoError(t, c.Patch(ctx, sa, patch))
	}
	w := startWatch(ctx, t, c)
	waitFor(t, "the SeedAutoscaler's first decision", 2*time.Minute, func() (bool, string) {
		last := w.lastDecision()
		return !last.IsZero(), "none yet"
	})

	// A victim with no namespace is a process of the garden's control plane.
	victims := []struct{ name, namespace, selector string }{
		{"kube-apiserver", "", ""},
		{"etcd", "", ""},
		{"scheduler", namespace, "app.kubernetes.io/component=scheduler"},
		{"seed-controller", namespace, "app.kubernetes.io/component=seed-controller"},
		{"set-controller", namespace, "app.kubernetes.io/component=set-controller"},
		{"exporter", namespace, "app.kubernetes.io/component=exporter"},
		{"adapter", namespace, "app.kubernetes.io/component=adapter"},
		{"autoscaler", namespace, "app.kubernetes.io/component=autoscaler"},
		{"prometheus", monitoring, "app.kubernetes.io/name=prometheus"},
	}
	created := 0
	var costs []string
	for _, v := range victims {
		// One step of demand: 15 shoots.
		for range 15 {
			require.NoError(t, c.Create(ctx, builders.MakeShoot(tenants, fmt.Sprintf("ramp-%03d", created)).Obj()))
			created++
		}
		if v.namespace == "" {
			killed := time.Now()
			require.NoError(t, node.Crash(ctx, v.name))
			backAt := time.Now()
			waitFor(t, "the SeedAutoscaler deciding again after "+v.name+" came back", 3*time.Minute, func() (bool, string) {
				return w.lastDecision().After(backAt), "no decision since " + v.name + " came back"
			})
			costs = append(costs, fmt.Sprintf("%s: %.0f s", v.name, w.longestGapAfter(killed).Seconds()))
			continue
		}
		pods, err := cs.CoreV1().Pods(v.namespace).List(ctx, metav1.ListOptions{LabelSelector: v.selector})
		require.NoError(t, err)
		require.NotEmpty(t, pods.Items, "no pod of %s", v.name)
		sort.Slice(pods.Items, func(i, j int) bool { return pods.Items[i].Name < pods.Items[j].Name })
		victim := pods.Items[0].Name
		// Of a leader-elected part, the leader.
		if lease, err := cs.CoordinationV1().Leases(v.namespace).Get(ctx, "seedscaler-"+v.name, metav1.GetOptions{}); err == nil && lease.Spec.HolderIdentity != nil {
			if holder, _, _ := strings.Cut(*lease.Spec.HolderIdentity, "_"); holder != "" {
				victim = holder
			}
		}
		killed := time.Now()
		require.NoError(t, cs.CoreV1().Pods(v.namespace).Delete(ctx, victim, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}))
		// The part is back, and the autoscaler has decided after that.
		var backAt time.Time // when the part was first seen back
		waitFor(t, v.name+" back and the SeedAutoscaler deciding again", 3*time.Minute, func() (bool, string) {
			if backAt.IsZero() {
				back, why := podsReady(ctx, cs, v.namespace, v.selector, killed)
				if !back {
					return false, why
				}
				backAt = time.Now()
			}
			return w.lastDecision().After(backAt), "no decision since " + v.name + " came back"
		})

		gap := w.longestGapAfter(killed)
		costs = append(costs, fmt.Sprintf("%s: %.0f s", v.name, gap.Seconds()))
	}
	waitFor(t, "every ramp shoot bound", 5*time.Minute, func() (bool, string) {
		n := unbound(ctx, t, c, tenants)
		return n == 0, fmt.Sprintf("%d unbound", n)
	})
	w.stop()
	assert.Empty(t, w.violations(), "invariants broken while parts restarted")
	t.Logf("longest time without a SeedAutoscaler decision after each restart (sync period 5 s): %s", strings.Join(costs, ", "))
	if path := os.Getenv("SEEDSCALER_RESTART_REPORT"); path != "" {
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(costs, "\n")+"\n"), 0o644))
	}
}

// podsReady reports whether the Deployment's (or StatefulSet's) pods matching selector are
// all Ready and one of them started after since.
func podsReady(ctx context.Context, cs kubernetes.Interface, ns, selector string, since time.Time) (bool, string) {
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return false, err.Error()
	}
	fresh := false
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			return false, p.Name + " terminating"
		}
		ready := false
		for _, cond := range p.Status.Conditions {
			ready = ready || (cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue)
		}
		if !ready {
			return false, p.Name + " not ready"
		}
		fresh = fresh || p.CreationTimestamp.After(since.Add(-time.Second))
	}
	return fresh, "no new pod yet"
}

// watch samples the landscape every second: the SeedAutoscaler's decisions (its newest
// recommendation), and the invariants.
type watch struct {
	mu        sync.Mutex
	decisions []time.Time
	broken    []string
	replicas  int32
	hosted    map[string]bool // seeds that hosted shoots at the last sample
	done      chan struct{}
	stopped   chan struct{}
}

func startWatch(ctx context.Context, t *testing.T, c client.Client) *watch {
	w := &watch{hosted: map[string]bool{}, done: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(w.stopped)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				w.sample(ctx, c)
			}
		}
	}()
	return w
}

func (w *watch) sample(ctx context.Context, c client.Client) {
	sa := &autoscalingv1alpha1.SeedAutoscaler{}
	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	var seeds gardencorev1beta1.SeedList
	var shoots gardencorev1beta1.ShootList
	if c.Get(ctx, client.ObjectKey{Namespace: garden, Name: setName}, sa) != nil ||
		c.Get(ctx, client.ObjectKey{Namespace: garden, Name: setName}, set) != nil ||
		c.List(ctx, &seeds) != nil || c.List(ctx, &shoots) != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var newest time.Time
	for _, r := range sa.Status.Recommendations {
		if r.Timestamp.After(newest) {
			newest = r.Timestamp.Time
		}
	}
	if n := len(w.decisions); !newest.IsZero() && (n == 0 || newest.After(w.decisions[n-1])) {
		w.decisions = append(w.decisions, newest)
	}
	if r := ptr.Deref(set.Spec.Replicas, 1); r < w.replicas {
		w.broken = append(w.broken, fmt.Sprintf("the set shrank from %d to %d while demand only grew", w.replicas, r))
	} else {
		w.replicas = r
	}
	count := seeduse.PerSeed(shoots.Items)
	existing := map[string]bool{}
	for _, s := range seeds.Items {
		existing[s.Name] = true
	}
	w.broken = append(w.broken, seeduse.Overfilled(seeds.Items, count)...)
	for seed := range w.hosted {
		if !existing[seed] && count[seed] > 0 {
			w.broken = append(w.broken, fmt.Sprintf("seed %s was deleted while %d shoots used it", seed, count[seed]))
		}
	}
	w.hosted = map[string]bool{}
	for seed, n := range count {
		if n > 0 {
			w.hosted[seed] = true
		}
	}
}

func (w *watch) lastDecision() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.decisions) == 0 {
		return time.Time{}
	}
	return w.decisions[len(w.decisions)-1]
}

// longestGapAfter is the longest time without a decision from the last decision before
// since until the last decision seen.
func (w *watch) longestGapAfter(since time.Time) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	var longest time.Duration
	for i := 1; i < len(w.decisions); i++ {
		if w.decisions[i].Before(since) {
			continue
		}
		if gap := w.decisions[i].Sub(w.decisions[i-1]); gap > longest {
			longest = gap
		}
	}
	return longest
}

func (w *watch) violations() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.broken...)
}

func (w *watch) stop() {
	close(w.done)
	<-w.stopped
}
