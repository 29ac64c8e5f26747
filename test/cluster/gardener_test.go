//go:build integration

package cluster

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/dev/local"
	"github.com/seedscaler/seedscaler/dev/simulator"
	"github.com/seedscaler/seedscaler/internal/scheme"
	"github.com/seedscaler/seedscaler/test/framework/aggregation"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/cluster"
	gardenenv "github.com/seedscaler/seedscaler/test/framework/garden"
	"github.com/seedscaler/seedscaler/test/framework/process"
)

const (
	// gardenTenants is a Project's namespace of the demo's garden (examples/gardener/demo): in
	// a garden a shoot lives only in one.
	gardenTenants = "garden-dev"
	// ourScheduler hands a shoot to seedscaler's scheduler, as the chart's beside-Gardener
	// values name it.
	ourScheduler = "seedscaler-scheduler"
)

// TestChartBesideGardener installs the chart into a garden the way a Gardener operator does:
// gardener-apiserver serves Seeds, Shoots and ManagedSeedSets through the node's aggregation
// layer, gardener-scheduler places the tenants' shoots, gardener-controller-manager reconciles
// the ManagedSeedSet, the chart runs with its beside-Gardener values, and prometheus-operator's
// Prometheus scrapes the parts. Demand arrives; the SeedAutoscaler, reading the seeds' usage
// through the operator's Prometheus and the adapter, grows Gardener's set until every shoot
// has a seed, and shrinks it when the shoots go. Each part works with the RBAC the chart
// gives it, and no seed ever holds more shoots than its allocatable.
func TestChartBesideGardener(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	helm, cs, c := clients(t, monitoring)

	g := gardenBesideTheNode(ctx, t, cs)
	promFromHost, err := node.InstallPrometheusOperator(ctx, cluster.OperatorOptions{
		Namespace: monitoring, Name: "kps", ReleaseLabel: kps, ScrapeInterval: 5 * time.Second,
	})
	require.NoError(t, err)
	prom := promQuerier(t, promFromHost)

	require.NoError(t, node.InstallChart(ctx, cluster.ChartOptions{
		Helm: helm, Chart: filepath.Join(repo, "charts", "seedscaler"), Release: release, Namespace: namespace,
		ValuesFiles: []string{filepath.Join(repo, "charts", "seedscaler", "ci", "beside-gardener-values.yaml")},
		Values: []string{
			"monitoring.labels.release=" + kps,
			"monitoring.prometheusServiceAccounts[0].namespace=" + monitoring, "monitoring.prometheusServiceAccounts[0].name=prometheus",
			"autoscaler.extraArgs={--sync-period=5s}",
		},
	}))
	t.Cleanup(func() {
		out, err := node.Helm(context.Background(), helm, "uninstall", release, "--namespace", namespace, "--wait", "--timeout", "3m")
		assert.NoError(t, err, out)
	})

	require.NoError(t, local.ApplyGardenerLandscape(ctx, g, repo))
	_, err = g.StartScheduler("SameRegion")
	require.NoError(t, err)
	_, err = g.StartControllerManager()
	require.NoError(t, err)
	// Reactive scaling only: the demo's SeedAutoscaler scales ahead on a trend fitted over a
	// minute, which would let the set shrink between this test's steps of demand.
	sa := &autoscalingv1alpha1.SeedAutoscaler{}
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: garden, Name: setName}, sa))
	patch := client.MergeFrom(sa.DeepCopy())
	sa.Spec.ScaleAhead = nil
	require.NoError(t, c.Patch(ctx, sa, patch))

	sim := process.New("simulator", devBinary, t.TempDir(), "simulate", "--kubeconfig="+node.Kubeconfig,
		"--metrics-bind-address=0", "--health-probe-bind-address=0",
		"--config="+filepath.Join(repo, "test", "e2e", "testdata", "simulator.yaml"))
	require.NoError(t, sim.Start())
	t.Cleanup(func() { sim.Stop(10 * time.Second) })

	set := func() *seedmanagementv1alpha1.ManagedSeedSet {
		s := &seedmanagementv1alpha1.ManagedSeedSet{}
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: garden, Name: setName}, s))
		return s
	}
	waitFor(t, "the first replica of Gardener's set ready", 3*time.Minute, func() (bool, string) {
		s := set()
		return s.Status.ReadyReplicas >= 1, fmt.Sprintf("%d ready", s.Status.ReadyReplicas)
	})

	// Demand: 80 shoots need ceil(80 / (50 × 70%)) = 3 seeds. gardener-scheduler places 70 of
	// them, seedscaler's scheduler the 10 that name it, through shoots/binding.
	w := startWatch(ctx, t, c)
	for i := range 80 {
		// As a tenant writes a workerless shoot for Gardener: the profile in spec.cloudProfile
		// and no node network.
		b := builders.MakeShoot(gardenTenants, fmt.Sprintf("tenant-%02d", i)).
			CloudProfileRef(gardencorev1beta1.CloudProfileReferenceKindCloudProfile, "gcp").
			Annotations(simulator.AnnotationConfirmDeletion, "true")
		if i%8 == 0 {
			b.SchedulerName(ourScheduler)
		}
		shoot := b.Obj()
		shoot.Spec.Networking = nil
		require.NoError(t, c.Create(ctx, shoot))
	}
	waitFor(t, "every shoot bound on at least 3 ready replicas", 8*time.Minute, func() (bool, string) {
		s, n := set(), unbound(ctx, t, c, gardenTenants)
		return n == 0 && s.Status.ReadyReplicas >= 3, fmt.Sprintf("%d unbound, %d/%d ready", n, s.Status.ReadyReplicas, ptr.Deref(s.Spec.Replicas, 1))
	})
	w.stop()
	assert.Empty(t, w.violations())
	assert.NotZero(t, w.lastDecision(), "the SeedAutoscaler made no decision")

	t.Run("the SeedAutoscaler's inputs came through the operator's Prometheus and the adapter", func(t *testing.T) {
		sa := &autoscalingv1alpha1.SeedAutoscaler{}
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: garden, Name: setName}, sa))
		cond := meta.FindStatusCondition(sa.Status.Conditions, autoscalingv1alpha1.SeedAutoscalerScalingActive)
		require.NotNil(t, cond)
		assert.Equal(t, metav1.ConditionTrue, cond.Status, cond.Message)

		replicas := replicaSeeds(ctx, t, c)
		require.GreaterOrEqual(t, len(replicas), 3)
		path := "/apis/custom.metrics.k8s.io/v1beta2/seeds.core.gardener.cloud/*/garden_seed_usage?metricLabelSelector=" +
			url.QueryEscape("resource=shoots")
		waitFor(t, "the usage of every replica's seed from the custom metrics API", time.Minute, func() (bool, string) {
			raw, err := kubectl("get", "--raw", path)
			if err != nil {
				return false, fmt.Sprintf("%v: %s", err, raw)
			}
			for _, seed := range replicas {
				if !strings.Contains(raw, fmt.Sprintf(`"name":%q`, seed)) {
					return false, fmt.Sprintf("no usage of seed %s in %s", seed, raw)
				}
			}
			return true, ""
		})
	})

	t.Run("the exporter's series and the recording rules carry Gardener's set", func(t *testing.T) {
		// Gardener writes no set label on a replica: the exporter finds the set through the
		// ManagedSeed's controller reference.
		waitFor(t, "garden_seed_info of every replica in the set", time.Minute, func() (bool, string) {
			res, _, _, err := prom.Query(ctx, `count(max without (instance, pod) (garden_seed_info{managedseedset="`+setName+`", namespace="`+garden+`"}))`, time.Now())
			if err != nil {
				return false, err.Error()
			}
			v := res.(model.Vector)
			return len(v) == 1 && int(v[0].Value) >= 3, v.String()
		})
		waitFor(t, "the set's demand: its 80 shoots", time.Minute, func() (bool, string) {
			res, _, _, err := prom.Query(ctx, `managedseedset:seedscaler_demand_shoots:sum{managedseedset="`+setName+`", namespace="`+garden+`"}`, time.Now())
			if err != nil {
				return false, err.Error()
			}
			v := res.(model.Vector)
			return len(v) == 1 && v[0].Value == 80, v.String()
		})
		waitFor(t, "every alert and recording rule evaluated without error", 2*time.Minute, func() (bool, string) {
			return rulesHealthy(ctx, prom)
		})
	})

	// Demand goes: the SeedAutoscaler shrinks the set, and gardener-controller-manager removes
	// the replicas that host no shoot. gardener-apiserver admits a collection's deletion shoot
	// by shoot, and one that is gone by the time its turn comes (a shoot without finalizers
	// goes at once) fails the whole call with "not found": ask again until every deletion
	// was asked for.
	waitFor(t, "every tenant shoot's deletion asked for", time.Minute, func() (bool, string) {
		if err := c.DeleteAllOf(ctx, &gardencorev1beta1.Shoot{}, client.InNamespace(gardenTenants)); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	waitFor(t, "the set to shrink back to 1 replica", 6*time.Minute, func() (bool, string) {
		s := set()
		return ptr.Deref(s.Spec.Replicas, 1) == 1 && s.Status.Replicas == 1,
			fmt.Sprintf("spec %d, status %d", ptr.Deref(s.Spec.Replicas, 1), s.Status.Replicas)
	})
	assertNoRestarts(ctx, t, cs)
	assertNoForbidden(ctx, t, cs)
}

// gardenBesideTheNode makes a garden of the node: seedscaler's CRDs of Gardener's groups,
// which the stories before installed, go with their objects, and gardener-apiserver serves
// those groups instead. When the test ends, Gardener's APIs are unregistered and every
// namespace the garden made is deleted, so that the stories after find the node as before.
func gardenBesideTheNode(ctx context.Context, t *testing.T, cs kubernetes.Interface) *gardenenv.Garden {
	t.Helper()
	removeCRDsOf(ctx, t, "core.gardener.cloud", "seedmanagement.gardener.cloud")
	deleteNamespaces(ctx, t, cs, garden, gardenTenants, tenants)
	before := namespaceNames(ctx, t, cs)

	g, err := gardenenv.Beside(ctx, gardenenv.BesideOptions{
		Kubeconfig: node.Kubeconfig, EtcdURL: node.EtcdURL(), EtcdPrefix: "/gardener", LogDir: t.TempDir(),
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(gardenenv.LogTails(g.LogDir))
		}
		require.NoError(t, g.Stop())
		// The garden's namespaces: the base's and the landscape's, and those Gardener's
		// controllers made (seed-<name>, gardener-system-…). Finalizers Gardener's stopped
		// controllers put on their Secrets would hold them forever.
		var made []string
		for _, ns := range namespaceNames(context.Background(), t, cs) {
			if !slices.Contains(before, ns) {
				made = append(made, ns)
				releaseSecrets(context.Background(), t, cs, ns)
			}
		}
		deleteNamespaces(context.Background(), t, cs, made...)
	})
	return g
}

func namespaceNames(ctx context.Context, t *testing.T, cs kubernetes.Interface) []string {
	t.Helper()
	list, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	names := make([]string, len(list.Items))
	for i, ns := range list.Items {
		names[i] = ns.Name
	}
	return names
}

// releaseSecrets removes the finalizers of the namespace's Secrets.
func releaseSecrets(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string) {
	t.Helper()
	secrets, err := cs.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, s := range secrets.Items {
		if len(s.Finalizers) == 0 {
			continue
		}
		_, err := cs.CoreV1().Secrets(ns).Patch(ctx, s.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		require.NoError(t, client.IgnoreNotFound(err))
	}
}

// removeCRDsOf deletes the CRDs of the groups and waits until they are gone. Their objects'
// finalizers are removed first: the simulator that would have removed them has stopped.
func removeCRDsOf(ctx context.Context, t *testing.T, groups ...string) {
	t.Helper()
	sch := scheme.New()
	require.NoError(t, apiextensionsv1.AddToScheme(sch))
	cfg, err := node.RESTConfig()
	require.NoError(t, err)
	c, err := client.New(cfg, client.Options{Scheme: sch})
	require.NoError(t, err)
	crds := &apiextensionsv1.CustomResourceDefinitionList{}
	require.NoError(t, c.List(ctx, crds))
	var names []string
	for _, crd := range crds.Items {
		if !slices.Contains(groups, crd.Spec.Group) {
			continue
		}
		names = append(names, crd.Name)
		for _, v := range crd.Spec.Versions {
			if !v.Storage {
				continue
			}
			list := &unstructured.UnstructuredList{}
			list.SetAPIVersion(crd.Spec.Group + "/" + v.Name)
			list.SetKind(crd.Spec.Names.ListKind)
			require.NoError(t, c.List(ctx, list))
			for i := range list.Items {
				if len(list.Items[i].GetFinalizers()) == 0 {
					continue
				}
				err := c.Patch(ctx, &list.Items[i], client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))
				require.NoError(t, client.IgnoreNotFound(err))
			}
		}
		require.NoError(t, client.IgnoreNotFound(c.Delete(ctx, &crd)))
	}
	// The kube-apiserver removes the APIServices of a CRD's group versions once the CRD is
	// gone; the group versions are then free for gardener-apiserver's.
	waitFor(t, "seedscaler's CRDs of Gardener's groups and their APIServices to go", 2*time.Minute, func() (bool, string) {
		var left []string
		for _, name := range names {
			err := c.Get(ctx, client.ObjectKey{Name: name}, &apiextensionsv1.CustomResourceDefinition{})
			if !apierrors.IsNotFound(err) {
				left = append(left, name)
			}
		}
		for _, api := range gardenenv.APIs {
			name := aggregation.APIServiceName(api.GroupVersion)
			if err := c.Get(ctx, client.ObjectKey{Name: name}, aggregation.NewAPIService(name)); !apierrors.IsNotFound(err) {
				left = append(left, name)
			}
		}
		return len(left) == 0, strings.Join(left, ", ")
	})
}

// deleteNamespaces deletes the namespaces and waits until they are gone.
func deleteNamespaces(ctx context.Context, t *testing.T, cs kubernetes.Interface, names ...string) {
	t.Helper()
	for _, ns := range names {
		err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
		require.NoError(t, client.IgnoreNotFound(err))
	}
	waitFor(t, "the namespaces to go", 3*time.Minute, func() (bool, string) {
		var left []string
		for _, ns := range names {
			if _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				left = append(left, ns)
			}
		}
		return len(left) == 0, strings.Join(left, ", ")
	})
}

// replicaSeeds names the seeds of the set's replicas: the Seeds of the ManagedSeeds the set
// controls, as Gardener relates them.
func replicaSeeds(ctx context.Context, t *testing.T, c client.Client) []string {
	t.Helper()
	managedSeeds := &seedmanagementv1alpha1.ManagedSeedList{}
	require.NoError(t, c.List(ctx, managedSeeds, client.InNamespace(garden)))
	var seeds []string
	for _, ms := range managedSeeds.Items {
		if owner := metav1.GetControllerOf(&ms); owner != nil && owner.Kind == "ManagedSeedSet" && owner.Name == setName {
			seeds = append(seeds, ms.Name)
		}
	}
	return seeds
}
