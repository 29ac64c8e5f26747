//go:build integration

package chart

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	schedulerconfig "github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// gardenerAPIService is an APIService as gardener-apiserver registers it: the group version
// goes to a Service. The Service need not exist for the kube-apiserver to accept it.
func gardenerAPIService(group, version string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1",
		"kind":       "APIService",
		"metadata":   map[string]any{"name": version + "." + group},
		"spec": map[string]any{
			"group": group, "version": version,
			"groupPriorityMinimum": int64(10000), "versionPriority": int64(20),
			"insecureSkipTLSVerify": true,
			"service":               map[string]any{"name": "gardener-apiserver", "namespace": "garden", "port": int64(443)},
		},
	}}
}

// crdsOf lists the installed CRDs whose names end in the group.
func crdsOf(t *testing.T, c client.Client, group string) []string {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("apiextensions.k8s.io/v1")
	list.SetKind("CustomResourceDefinitionList")
	require.NoError(t, c.List(context.Background(), list))
	var names []string
	for _, crd := range list.Items {
		if strings.HasSuffix(crd.GetName(), "."+group) {
			names = append(names, crd.GetName())
		}
	}
	return names
}

// In a garden cluster, gardener-apiserver serves core.gardener.cloud and
// seedmanagement.gardener.cloud. The chart refuses every value that would collide with it,
// naming the value to set; with ci/beside-gardener-values.yaml it installs no CRD of either
// group, and its scheduler answers to a schedulerName of its own and binds through
// shoots/binding. SeedAutoscaler's group is seedscaler's own: its CRD is installed and
// served there, and the autoscaler and the exporter's watch of it run.
func TestInstallBesideGardener(t *testing.T) {
	env, _, kcFile := apiServer(t)
	ctx := context.Background()
	for _, gv := range [][2]string{{"core.gardener.cloud", "v1beta1"}, {"seedmanagement.gardener.cloud", "v1alpha1"}} {
		require.NoError(t, env.Client.Create(ctx, gardenerAPIService(gv[0], gv[1])), "the kube-apiserver refused APIService %s.%s", gv[1], gv[0])
	}
	const namespace = "seedscaler-system"
	beside := filepath.Join(chartDir(t), "ci", "beside-gardener-values.yaml")
	install := func(args ...string) (string, error) {
		return helm(t, append([]string{"install", "seedscaler", chartDir(t), "--kubeconfig", kcFile,
			"--namespace", namespace, "--create-namespace", "--wait=false"}, args...)...)
	}

	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{{
		name: "default values",
		want: []string{
			"APIService v1beta1.core.gardener.cloud is served by service garden/gardener-apiserver, not by CRDs",
			"Set crds.gardenerCore=false",
		},
	}, {
		name: "seedmanagement CRDs",
		args: []string{"-f", beside, "--set", "crds.seedManagement=true"},
		want: []string{
			"APIService v1alpha1.seedmanagement.gardener.cloud is served by service garden/gardener-apiserver, not by CRDs",
			"Set crds.seedManagement=false",
		},
	}, {
		name: "gardener-scheduler's schedulerName",
		args: []string{"-f", beside, "--set", "scheduler.config.schedulerName=default-scheduler"},
		want: []string{
			"gardener-scheduler binds the shoots of schedulerName default-scheduler",
			"Set scheduler.config.schedulerName=seedscaler-scheduler",
		},
	}, {
		name: "no schedulerName",
		args: []string{"-f", beside, "--set", "scheduler.config.schedulerName=null"},
		want: []string{"Set scheduler.config.schedulerName=seedscaler-scheduler"},
	}, {
		name: "spec.seedName patched",
		args: []string{"-f", beside, "--set", "scheduler.config.binding=Patch"},
		want: []string{"takes a shoot's spec.seedName only through the shoots/binding subresource", "Set scheduler.config.binding=Subresource"},
	}, {
		name: "the scheduler's binding webhook",
		args: []string{"-f", beside, "--set", "scheduler.webhook.enabled=true"},
		want: []string{"whose admission judges every binding", "Set scheduler.webhook.enabled=false"},
	}, {
		name: "set controller",
		args: []string{"-f", beside, "--set", "setController.enabled=true"},
		want: []string{"Gardener reconciles its ManagedSeeds and ManagedSeedSets itself", "Set seedController.enabled=false and setController.enabled=false"},
	}, {
		name: "seed controller",
		args: []string{"-f", beside, "--set", "seedController.enabled=true"},
		want: []string{"Set seedController.enabled=false and setController.enabled=false"},
	}} {
		out, err := install(tc.args...)
		if !assert.Error(t, err, "%s: installed beside Gardener:\n%s", tc.name, out) {
			_, _ = helm(t, "uninstall", "seedscaler", "--kubeconfig", kcFile, "--namespace", namespace, "--no-hooks")
			continue
		}
		for _, w := range tc.want {
			assert.Contains(t, out, w, tc.name)
		}
	}
	assert.Empty(t, crdsOf(t, env.Client, "core.gardener.cloud"), "a refused install left CRDs")
	assert.Empty(t, crdsOf(t, env.Client, "seedmanagement.gardener.cloud"), "a refused install left CRDs")
	assert.Empty(t, crdsOf(t, env.Client, "autoscaling.seedscaler.io"), "a refused install left CRDs")

	out, err := install("-f", beside)
	require.NoError(t, err, out)
	assert.Contains(t, out, "STATUS: deployed")
	notes := out[strings.Index(out, "NOTES:"):]
	assert.Contains(t, notes, "The scheduler places only shoots with spec.schedulerName: seedscaler-scheduler.")
	assert.Contains(t, notes, "crds.seedManagement=false: this cluster must already serve seedmanagement.gardener.cloud\n(ManagedSeed, ManagedSeedSet).")
	assert.Contains(t, notes, "kubectl get managedseedsets,seedautoscalers -A")
	assert.NotContains(t, notes, "crds.autoscaling=false")
	assert.Empty(t, crdsOf(t, env.Client, "core.gardener.cloud"))
	assert.Empty(t, crdsOf(t, env.Client, "seedmanagement.gardener.cloud"))
	assert.Equal(t, []string{"seedautoscalers.autoscaling.seedscaler.io"}, crdsOf(t, env.Client, "autoscaling.seedscaler.io"))

	// The aggregator sends seedmanagement.gardener.cloud to gardener-apiserver, but not
	// autoscaling.seedscaler.io: the kube-apiserver serves SeedAutoscalers from their CRD.
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "garden"}}); !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	sa := &autoscalingv1alpha1.SeedAutoscaler{}
	require.NoError(t, testenv.ReadExample("seedautoscaler.yaml", sa))
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		assert.NoError(c, env.Client.Create(ctx, sa.DeepCopy()))
	}, 30*time.Second, 200*time.Millisecond, "no SeedAutoscaler could be created beside Gardener")
	got := &autoscalingv1alpha1.SeedAutoscaler{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(sa), got))
	assert.Equal(t, "ManagedSeedSet", got.Spec.ScaleTargetRef.Kind)

	// Gardener's APIServices are left as they were.
	for _, name := range []string{"v1beta1.core.gardener.cloud", "v1alpha1.seedmanagement.gardener.cloud"} {
		got := &unstructured.Unstructured{}
		got.SetAPIVersion("apiregistration.k8s.io/v1")
		got.SetKind("APIService")
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: name}, got))
		svc, _, _ := unstructured.NestedString(got.Object, "spec", "service", "name")
		assert.Equal(t, "gardener-apiserver", svc, name)
	}

	// The scheduler reads its own schedulerName from the installed configuration.
	cm := &corev1.ConfigMap{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "seedscaler-scheduler-config"}, cm))
	cfg, err := schedulerconfig.Parse([]byte(cm.Data["config.yaml"]))
	require.NoError(t, err)
	assert.Equal(t, "seedscaler-scheduler", cfg.SchedulerName)
	assert.Equal(t, schedulerconfig.SubresourceBinding, cfg.Binding)

	// What runs beside Gardener: no seed or set controller, and an exporter that watches
	// SeedAutoscalers.
	var running []string
	for _, d := range deployments(t, "-f", beside) {
		running = append(running, d.Name)
		if d.Name == "seedscaler-exporter" {
			assert.NotContains(t, d.Spec.Template.Spec.Containers[0].Args, "--seedautoscalers=false")
		}
	}
	assert.ElementsMatch(t, []string{"seedscaler-scheduler", "seedscaler-exporter", "seedscaler-adapter", "seedscaler-autoscaler"}, running)
}

// The guard tells gardener-apiserver's APIServices from the local ones the kube-apiserver
// registers for the chart's own CRDs: a plain install upgrades, CRDs and all; an upgrade
// that switches the CRDs off leaves them.
func TestUpgradeIsNotRefusedForTheChartsOwnCRDs(t *testing.T) {
	env, _, kcFile := apiServer(t)
	const namespace = "seedscaler-system"
	out, err := helm(t, "install", "seedscaler", chartDir(t), "--kubeconfig", kcFile,
		"--namespace", namespace, "--create-namespace", "--wait=false")
	require.NoError(t, err, out)
	require.Len(t, crdsOf(t, env.Client, "seedmanagement.gardener.cloud"), 2)
	require.Len(t, crdsOf(t, env.Client, "autoscaling.seedscaler.io"), 1)

	// The kube-apiserver registers a local APIService for each CRD group version.
	got := &unstructured.Unstructured{}
	got.SetAPIVersion("apiregistration.k8s.io/v1")
	got.SetKind("APIService")
	require.Eventually(t, func() bool {
		return env.Client.Get(context.Background(), client.ObjectKey{Name: "v1alpha1.seedmanagement.gardener.cloud"}, got) == nil
	}, 30*time.Second, 200*time.Millisecond)

	out, err = helm(t, "upgrade", "seedscaler", chartDir(t), "--kubeconfig", kcFile,
		"--namespace", namespace, "--wait=false")
	require.NoError(t, err, out)
	assert.Len(t, crdsOf(t, env.Client, "seedmanagement.gardener.cloud"), 2)
	assert.Len(t, crdsOf(t, env.Client, "core.gardener.cloud"), 4, "Seed, Shoot, CloudProfile, NamespacedCloudProfile")
	assert.Len(t, crdsOf(t, env.Client, "autoscaling.seedscaler.io"), 1)

	// Switched off, the CRDs stay: deleting one deletes every object of its kind.
	out, err = helm(t, "upgrade", "seedscaler", chartDir(t), "--kubeconfig", kcFile,
		"--namespace", namespace, "--wait=false", "--set", "crds.seedManagement=false", "--set", "crds.gardenerCore=false",
		"--set", "crds.autoscaling=false")
	require.NoError(t, err, out)
	assert.Len(t, crdsOf(t, env.Client, "seedmanagement.gardener.cloud"), 2)
	assert.Len(t, crdsOf(t, env.Client, "core.gardener.cloud"), 4, "Seed, Shoot, CloudProfile, NamespacedCloudProfile")
	assert.Len(t, crdsOf(t, env.Client, "autoscaling.seedscaler.io"), 1)
}
