//go:build integration

package cluster

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
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

// previousRelease is the commit the upgrade starts from: the last before SeedAutoscaler moved
// from seedmanagement.gardener.cloud to autoscaling.seedscaler.io, the change an upgrade must
// carry users across. The project tags no releases yet; the first tag replaces it.
const previousRelease = "4a9720e5f7ab520475772e46a5fca050eefed01b"

// previousTag is the image tag the previous release's build is imported as, beside the
// working tree's.
const previousTag = "previous"

// TestUpgradeFromThePreviousRelease installs the previous release's chart and image (built
// from its commit), lets its SeedAutoscaler grow a set for tenant shoots, upgrades to the
// working tree's chart and image, and moves the SeedAutoscaler to its new group as
// docs/deployment.md says. Every shoot keeps its seed, the set keeps its replicas while no
// autoscaler reads the old group, the moved SeedAutoscaler decides what the old one had
// decided, and no seed ever holds more shoots than its allocatable.
func TestUpgradeFromThePreviousRelease(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	helm, cs, c := clients(t, monitoring)

	previous := buildPreviousRelease(ctx, t)
	require.NoError(t, node.ImportImage(filepath.Join(previous, "bin", "seedscaler-image.tar")))

	// A fresh start, as the previous release's users had: the stories before leave their
	// release, CRDs and landscape behind.
	if out, err := node.Helm(ctx, helm, "uninstall", release, "--namespace", namespace, "--wait", "--timeout", "3m"); err != nil {
		require.Contains(t, out, "not found", out)
	}
	removeCRDsOf(ctx, t, "core.gardener.cloud", "seedmanagement.gardener.cloud", "autoscaling.seedscaler.io")
	deleteNamespaces(ctx, t, cs, garden, tenants)
	_, err := node.InstallPrometheusOperator(ctx, cluster.OperatorOptions{
		Namespace: monitoring, Name: "kps", ReleaseLabel: kps, ScrapeInterval: 5 * time.Second,
	})
	require.NoError(t, err)
	values := []string{
		"monitoring.labels.release=" + kps,
		"monitoring.prometheusServiceAccounts[0].namespace=" + monitoring, "monitoring.prometheusServiceAccounts[0].name=prometheus",
		"seedController.extraArgs={--heartbeat-grace-period=20s}", "autoscaler.extraArgs={--sync-period=5s}",
	}
	require.NoError(t, node.InstallChart(ctx, cluster.ChartOptions{
		Helm: helm, Chart: filepath.Join(previous, "charts", "seedscaler"), Release: release, Namespace: namespace,
		Values: append([]string{"image.tag=" + previousTag}, values...),
	}))
	t.Cleanup(func() {
		out, err := node.Helm(context.Background(), helm, "uninstall", release, "--namespace", namespace, "--wait", "--timeout", "3m")
		assert.NoError(t, err, out)
	})

	// The previous release's landscape, its SeedAutoscaler in seedmanagement.gardener.cloud,
	// scaling reactively so that its decisions follow the shoots alone.
	require.NoError(t, local.ApplyLandscape(ctx, c, previous))
	oldSA := oldSeedAutoscaler()
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: garden, Name: setName}, oldSA))
	require.NoError(t, c.Patch(ctx, oldSA, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"scaleAhead":null}}`))))

	sim := process.New("simulator", devBinary, t.TempDir(), "simulate", "--kubeconfig="+node.Kubeconfig,
		"--metrics-bind-address=0", "--health-probe-bind-address=0",
		"--config="+filepath.Join(repo, "test", "e2e", "testdata", "simulator.yaml"))
	require.NoError(t, sim.Start())
	t.Cleanup(func() { sim.Stop(10 * time.Second) })

	var broken []string
	check := func() {
		var seeds gardencorev1beta1.SeedList
		var shoots gardencorev1beta1.ShootList
		if c.List(ctx, &seeds) == nil && c.List(ctx, &shoots) == nil {
			broken = append(broken, seeduse.Overfilled(seeds.Items, seeduse.PerSeed(shoots.Items))...)
		}
	}
	set := func() *seedmanagementv1alpha1.ManagedSeedSet {
		s := &seedmanagementv1alpha1.ManagedSeedSet{}
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: garden, Name: setName}, s))
		return s
	}

	// Demand: 80 shoots need ceil(80 / (50 × 70%)) = 3 seeds.
	tenantsNamespace(ctx, t, cs)
	for i := range 80 {
		require.NoError(t, c.Create(ctx, builders.MakeShoot(tenants, fmt.Sprintf("tenant-%02d", i)).Obj()))
	}
	// Settled: every shoot bound, and every replica the set wants exists and is ready, so that
	// no replica is in flight when the upgrade replaces the set controller.
	waitFor(t, "the previous release placing every shoot on 3 or more ready seeds, with nothing in flight", 8*time.Minute, func() (bool, string) {
		check()
		s, n := set(), unbound(ctx, t, c, tenants)
		want := ptr.Deref(s.Spec.Replicas, 1)
		return n == 0 && s.Status.ReadyReplicas >= 3 && s.Status.Replicas == want && s.Status.ReadyReplicas == want,
			fmt.Sprintf("%d unbound, %d replicas, %d/%d ready", n, s.Status.Replicas, s.Status.ReadyReplicas, want)
	})
	before := placements(ctx, t, c)
	replicas := ptr.Deref(set().Spec.Replicas, 1)
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: garden, Name: setName}, oldSA))
	oldDesired, _, _ := unstructured.NestedInt64(oldSA.Object, "status", "desiredReplicas")
	require.Equal(t, int64(replicas), oldDesired, "the previous release's SeedAutoscaler settled on the set's replicas")

	// The upgrade: the working tree's chart with its default image.
	args := []string{"upgrade", release, filepath.Join(repo, "charts", "seedscaler"), "--namespace", namespace, "--wait", "--timeout", "3m"}
	for _, v := range values {
		args = append(args, "--set", v)
	}
	out, err := node.Helm(ctx, helm, args...)
	require.NoError(t, err, out)
	require.NoError(t, node.WaitDeployments(ctx, namespace, selector, 2*time.Minute))
	waitFor(t, "every pod of the release on the working tree's image", 2*time.Minute, func() (bool, string) {
		pods, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, err.Error()
		}
		for _, p := range pods.Items {
			for _, ctr := range p.Spec.Containers {
				if strings.HasSuffix(ctr.Image, ":"+previousTag) {
					return false, fmt.Sprintf("pod %s still runs %s", p.Name, ctr.Image)
				}
			}
		}
		return true, ""
	})

	t.Run("the upgrade keeps every object and placement, and the old SeedAutoscalers", func(t *testing.T) {
		check()
		assert.Equal(t, before, placements(ctx, t, c), "a shoot moved during the upgrade")
		assert.Equal(t, replicas, ptr.Deref(set().Spec.Replicas, 1), "the set's replicas changed during the upgrade")
		kept := oldSeedAutoscaler()
		assert.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: garden, Name: setName}, kept),
			"helm keeps the previous group's CRD and its SeedAutoscalers (helm.sh/resource-policy: keep)")
	})

	t.Run("the SeedAutoscaler moved as docs/deployment.md says decides as before", func(t *testing.T) {
		moveSeedAutoscalers(ctx, t, c)
		waitFor(t, "the moved SeedAutoscaler deciding", 3*time.Minute, func() (bool, string) {
			check()
			sa := &autoscalingv1alpha1.SeedAutoscaler{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: garden, Name: setName}, sa); err != nil {
				return false, err.Error()
			}
			cond := meta.FindStatusCondition(sa.Status.Conditions, autoscalingv1alpha1.SeedAutoscalerScalingActive)
			return cond != nil && cond.Status == metav1.ConditionTrue && len(sa.Status.Recommendations) > 0,
				fmt.Sprintf("conditions %+v", sa.Status.Conditions)
		})
		sa := &autoscalingv1alpha1.SeedAutoscaler{}
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: garden, Name: setName}, sa))
		assert.Equal(t, replicas, sa.Status.DesiredReplicas, "the moved SeedAutoscaler decides what the previous one had")
		assert.Equal(t, replicas, ptr.Deref(set().Spec.Replicas, 1))
		assert.Equal(t, before, placements(ctx, t, c))

		// What is left of the previous group goes, as the docs say.
		_, err := kubectl("delete", "seedautoscalers.seedmanagement.gardener.cloud", "--all", "-A")
		require.NoError(t, err)
		_, err = kubectl("delete", "crd", "seedautoscalers.seedmanagement.gardener.cloud")
		require.NoError(t, err)
	})
	check()
	assert.Empty(t, broken, "no seed above its allocatable")
	assertNoRestarts(ctx, t, cs)
	assertNoForbidden(ctx, t, cs)
}

// buildPreviousRelease extracts the previous release's tree from the repository's history
// and builds its image as `make image` did then, tagged previousTag. It returns the tree.
func buildPreviousRelease(ctx context.Context, t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	archive := exec.CommandContext(ctx, "sh", "-c", fmt.Sprintf("git -C %q archive %s | tar -x -C %q", repo, previousRelease, dir))
	out, err := archive.CombinedOutput()
	require.NoError(t, err, "extracting commit %s, the previous release, from the repository's history (a clone with its full history): %s", previousRelease, out)
	binary := filepath.Join(dir, "bin", "seedscaler-linux-amd64")
	steps := []struct {
		dir  string
		args []string
	}{
		{dir, []string{"build", "-trimpath", "-ldflags", "-s -w", "-o", binary, "./cmd/seedscaler"}},
		{filepath.Join(dir, "hack", "tools", "image"), []string{"run", ".", "-binary", binary,
			"-tag", "seedscaler/seedscaler:" + previousTag, "-out", filepath.Join(dir, "bin", "seedscaler-image.tar")}},
	}
	for _, s := range steps {
		cmd := exec.CommandContext(ctx, "go", s.args...)
		cmd.Dir = s.dir
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %s in %s: %s", strings.Join(s.args, " "), s.dir, out)
	}
	return dir
}

// oldSeedAutoscaler is an empty SeedAutoscaler of the previous release's group.
func oldSeedAutoscaler() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("seedmanagement.gardener.cloud/v1alpha1")
	u.SetKind("SeedAutoscaler")
	return u
}

// moveSeedAutoscalers does what docs/deployment.md's jq does: every SeedAutoscaler of the
// previous group is created in autoscaling.seedscaler.io, without what the API server sets
// and with its pause annotation renamed.
func moveSeedAutoscalers(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	old := &unstructured.UnstructuredList{}
	old.SetAPIVersion("seedmanagement.gardener.cloud/v1alpha1")
	old.SetKind("SeedAutoscalerList")
	require.NoError(t, c.List(ctx, old))
	require.NotEmpty(t, old.Items)
	for _, o := range old.Items {
		moved := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": autoscalingv1alpha1.GroupVersion.String(),
			"kind":       "SeedAutoscaler",
			"spec":       o.Object["spec"],
		}}
		moved.SetNamespace(o.GetNamespace())
		moved.SetName(o.GetName())
		moved.SetLabels(o.GetLabels())
		annotations := maps.Clone(o.GetAnnotations())
		if v, ok := annotations["seedmanagement.gardener.cloud/paused-replicas"]; ok {
			delete(annotations, "seedmanagement.gardener.cloud/paused-replicas")
			annotations[autoscalingv1alpha1.AnnotationPausedReplicas] = v
		}
		delete(annotations, "kubectl.kubernetes.io/last-applied-configuration")
		moved.SetAnnotations(annotations)
		err := c.Create(ctx, moved)
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err, "moving SeedAutoscaler %s/%s", o.GetNamespace(), o.GetName())
		}
	}
}

// placements maps every shoot to its seed.
func placements(ctx context.Context, t *testing.T, c client.Client) map[string]string {
	t.Helper()
	shoots := &gardencorev1beta1.ShootList{}
	require.NoError(t, c.List(ctx, shoots))
	m := map[string]string{}
	for _, s := range shoots.Items {
		m[s.Namespace+"/"+s.Name] = ptr.Deref(s.Spec.SeedName, "")
	}
	return m
}
