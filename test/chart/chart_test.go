//go:build integration

// Package chart tests the Helm chart with the real helm binary: lint, rendering with every
// values file, the values schema, least-privilege RBAC, restricted pod security, that every
// Deployment runs a subcommand and flags the real seedscaler binary has, and an install and
// uninstall against a real kube-apiserver.
package chart

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/seedscaler/seedscaler/test/framework/manifest"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// kubeVersion is the Kubernetes version charts are rendered for (the envtest apiserver's).
const kubeVersion = "1.36.3"

func chartDir(t *testing.T) string {
	t.Helper()
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	return filepath.Join(root, "charts", "seedscaler")
}

func helm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	bin, err := testenv.Tool("helm")
	require.NoError(t, err)
	cmd := exec.Command(bin, args...)
	// Keep helm's own state (repositories, cache) out of the user's home.
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+home, "HELM_CONFIG_HOME="+home, "HELM_DATA_HOME="+home)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// valuesFiles are the values files the chart must render with: the defaults and ci/*.yaml.
func valuesFiles(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(chartDir(t), "ci", "*.yaml"))
	require.NoError(t, err)
	out := map[string][]string{"defaults": nil}
	for _, f := range files {
		out[filepath.Base(f)] = []string{"-f", f}
	}
	return out
}

func render(t *testing.T, extra ...string) []*unstructured.Unstructured {
	t.Helper()
	args := append([]string{"template", "seedscaler", chartDir(t), "--namespace", "seedscaler-system", "--kube-version", kubeVersion}, extra...)
	out, err := helm(t, args...)
	require.NoError(t, err, out)
	objs, err := manifest.Read(strings.NewReader(out))
	require.NoError(t, err)
	require.NotEmpty(t, objs)
	return objs
}

func TestLintAndRenderEveryValuesFile(t *testing.T) {
	for name, args := range valuesFiles(t) {
		t.Run(name, func(t *testing.T) {
			out, err := helm(t, append([]string{"lint", chartDir(t), "--strict", "--kube-version", kubeVersion}, args...)...)
			require.NoError(t, err, out)
			render(t, args...)
		})
	}
}

// assertSchemaRejects renders the chart with the --set values and expects values.schema.json
// to refuse them with an error containing want (the path of the wrong value, say).
func assertSchemaRejects(t *testing.T, set []string, want string) {
	t.Helper()
	args := []string{"template", "seedscaler", chartDir(t), "--kube-version", kubeVersion}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	out, err := helm(t, args...)
	require.Error(t, err, "the schema accepted bad values")
	assert.Contains(t, out, want)
}

func TestSchemaRejectsBadValues(t *testing.T) {
	cases := []struct {
		name string
		set  []string
		want string
	}{
		{"misspelled key", []string{"scheduler.replica=2"}, "additional properties 'replica' not allowed"},
		{"values shared by every part, which no part has", []string{"defaults.resources.requests.cpu=1"}, "additional properties 'defaults' not allowed"},
		{"negative replicas", []string{"exporter.replicas=-1"}, "/exporter/replicas"},
		{"several active controllers without leader election", []string{"setController.replicas=2", "setController.leaderElect=false"}, "/setController/leaderElect"},
		{"several replicas in leader-election mode without leader election", []string{"autoscaler.replicas=3", "autoscaler.leaderElect=false", "autoscaler.replicasMode=leader-election"}, "/autoscaler/replicasMode': value must be 'object-locks'"},
		{"an HPA without object locks", []string{"seedController.hpa.enabled=true"}, "/seedController/replicasMode': value must be 'object-locks'"},
		{"unknown replicas mode", []string{"setController.replicasMode=active-active"}, "/setController/replicasMode"},
		{"unknown certificate source", []string{"adapter.certificate.source=vault"}, "/adapter/certificate/source"},
		{"secret certificate without a secret", []string{"adapter.certificate.source=secret"}, "/adapter/certificate/secretName"},
		{"prometheus URL without scheme", []string{"adapter.prometheusURL=prometheus:9090"}, "/adapter/prometheusURL"},
		{"unknown pull policy", []string{"image.pullPolicy=Sometimes"}, "/image/pullPolicy"},
		{"extra arg that is no flag", []string{"scheduler.extraArgs[0]=verbose"}, "/scheduler/extraArgs/0"},
		{"environment variable without a name", []string{"adapter.extraEnv[0].value=100"}, "/adapter/extraEnv/0': missing property 'name'"},
		{"environment value that is no string", []string{"adapter.extraEnv[0].name=GOGC", "adapter.extraEnv[0].value=100"}, "/adapter/extraEnv/0/value"},
		{"monitoring switch of the wrong kind", []string{"monitoring.serviceMonitors=maybe"}, "/monitoring/serviceMonitors"},
		{"objective of 100%", []string{"monitoring.shootSchedulingSLO.objective=1"}, "/monitoring/shootSchedulingSLO/objective"},
		{"objective that is no share", []string{"monitoring.shootSchedulingSLO.objective=99%"}, "/monitoring/shootSchedulingSLO/objective"},
		{"threshold between the wait buckets", []string{"monitoring.shootSchedulingSLO.thresholdSeconds=100"}, "/monitoring/shootSchedulingSLO/thresholdSeconds"},
		{"uninstall hook timeout that is no duration", []string{"uninstall.hook.timeout=soon"}, "/uninstall/hook/timeout"},
		{"misspelled uninstall hook key", []string{"uninstall.hook.enable=false"}, "additional properties 'enable' not allowed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assertSchemaRejects(t, tc.set, tc.want) })
	}
}

func TestRBACHasNoWildcards(t *testing.T) {
	for name, args := range valuesFiles(t) {
		for _, obj := range render(t, args...) {
			if obj.GetKind() != "ClusterRole" && obj.GetKind() != "Role" {
				continue
			}
			role := &rbacv1.ClusterRole{}
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, role))
			for _, rule := range role.Rules {
				for _, field := range [][]string{rule.Verbs, rule.Resources, rule.APIGroups, rule.ResourceNames} {
					assert.NotContains(t, field, "*", "%s: %s %s has a wildcard rule %v", name, obj.GetKind(), obj.GetName(), rule)
				}
			}
		}
	}
}

func deployments(t *testing.T, args ...string) []*appsv1.Deployment {
	t.Helper()
	var out []*appsv1.Deployment
	for _, obj := range render(t, args...) {
		if obj.GetKind() != "Deployment" {
			continue
		}
		d := &appsv1.Deployment{}
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, d))
		out = append(out, d)
	}
	require.NotEmpty(t, out)
	return out
}

// workload is a rendered object that runs pods: a Deployment, or the uninstall hook's Job.
type workload struct {
	// name is kind/name, e.g. Job/seedscaler-uninstall.
	name string
	pod  corev1.PodTemplateSpec
}

func workloads(t *testing.T, args ...string) []workload {
	t.Helper()
	var out []workload
	for _, obj := range render(t, args...) {
		switch obj.GetKind() {
		case "Deployment":
			d := &appsv1.Deployment{}
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, d))
			out = append(out, workload{name: "Deployment/" + d.Name, pod: d.Spec.Template})
		case "Job":
			j := &batchv1.Job{}
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, j))
			out = append(out, workload{name: "Job/" + j.Name, pod: j.Spec.Template})
		}
	}
	require.NotEmpty(t, out)
	return out
}

// Every pod meets the restricted Pod Security Standard, the uninstall hook's Job's too,
// with the same security contexts; every Deployment's containers have probes.
func TestEveryPodIsRestricted(t *testing.T) {
	for name, args := range valuesFiles(t) {
		all := workloads(t, args...)
		var jobs int
		for _, w := range all {
			pod := w.pod.Spec
			require.NotNil(t, pod.SecurityContext, w.name)
			assert.True(t, *pod.SecurityContext.RunAsNonRoot, "%s/%s runAsNonRoot", name, w.name)
			require.NotNil(t, pod.SecurityContext.SeccompProfile, w.name)
			assert.Equal(t, "RuntimeDefault", string(pod.SecurityContext.SeccompProfile.Type), w.name)
			assert.Equal(t, all[0].pod.Spec.SecurityContext, pod.SecurityContext, "%s/%s", name, w.name)
			for _, c := range pod.Containers {
				sc := c.SecurityContext
				require.NotNil(t, sc, "%s/%s/%s", name, w.name, c.Name)
				assert.False(t, *sc.AllowPrivilegeEscalation, "%s/%s", w.name, c.Name)
				assert.True(t, *sc.ReadOnlyRootFilesystem, "%s/%s", w.name, c.Name)
				require.NotNil(t, sc.Capabilities)
				assert.Equal(t, "ALL", string(sc.Capabilities.Drop[0]), "%s/%s", w.name, c.Name)
				assert.Equal(t, all[0].pod.Spec.Containers[0].SecurityContext, sc, "%s/%s/%s", name, w.name, c.Name)
				if strings.HasPrefix(w.name, "Job/") {
					jobs++
					continue // runs to completion: nothing to probe
				}
				assert.NotNil(t, c.LivenessProbe, "%s/%s has no liveness probe", w.name, c.Name)
				assert.NotNil(t, c.ReadinessProbe, "%s/%s has no readiness probe", w.name, c.Name)
			}
		}
		assert.Equal(t, 1, jobs, "%s: the uninstall hook's Job was not rendered", name)
	}
}

// A container with a memory limit tells the Go runtime: GOMEMLIMIT from that limit, so that
// the garbage collector works harder near it rather than letting the heap grow into the OOM
// killer. Without a limit there is nothing to pass.
func TestMemoryLimitReachesTheGoRuntime(t *testing.T) {
	var limited, unlimited int
	for name, args := range valuesFiles(t) {
		// The scheduler without a memory limit, every other part with the default's.
		for _, d := range deployments(t, append(args, "--set", "scheduler.resources.limits=null")...) {
			for _, c := range d.Spec.Template.Spec.Containers {
				var limit *corev1.EnvVar
				for i := range c.Env {
					if c.Env[i].Name == "GOMEMLIMIT" {
						limit = &c.Env[i]
					}
				}
				if _, ok := c.Resources.Limits[corev1.ResourceMemory]; !ok {
					unlimited++
					assert.Nil(t, limit, "%s/%s has no memory limit but sets GOMEMLIMIT", name, d.Name)
					continue
				}
				limited++
				require.NotNil(t, limit, "%s/%s has a memory limit and no GOMEMLIMIT", name, d.Name)
				require.NotNil(t, limit.ValueFrom, "%s/%s", name, d.Name)
				require.NotNil(t, limit.ValueFrom.ResourceFieldRef, "%s/%s", name, d.Name)
				assert.Equal(t, corev1.ResourceFieldSelector{ContainerName: c.Name, Resource: "limits.memory"}, *limit.ValueFrom.ResourceFieldRef, "%s/%s", name, d.Name)
			}
		}
	}
	assert.NotZero(t, limited, "no container with a memory limit was rendered")
	assert.NotZero(t, unlimited, "no container without a memory limit was rendered")
}

// extraEnv reaches the part's container after the chart's own variables, so that an
// operator can set GOGC back to Go's default for a part on the metrics path.
func TestExtraEnvReachesTheContainer(t *testing.T) {
	var found bool
	for _, d := range deployments(t, "--set", "adapter.extraEnv[0].name=GOGC", "--set-string", "adapter.extraEnv[0].value=100") {
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, env := range c.Env {
				if env.Name != "GOGC" {
					continue
				}
				assert.Equal(t, "adapter", c.Name, "only the adapter was given GOGC")
				assert.Equal(t, "100", env.Value)
				found = true
			}
		}
	}
	assert.True(t, found, "no container got GOGC")
}

// hpaMetrics are the resource names each rendered HorizontalPodAutoscaler scales on, by name.
func hpaMetrics(t *testing.T, args ...string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, obj := range render(t, args...) {
		if obj.GetKind() != "HorizontalPodAutoscaler" {
			continue
		}
		var hpa autoscalingv2.HorizontalPodAutoscaler
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &hpa))
		out[hpa.Name] = []string{}
		for _, m := range hpa.Spec.Metrics {
			require.NotNil(t, m.Resource, "%s: %s", hpa.Name, m.Type)
			out[hpa.Name] = append(out[hpa.Name], string(m.Resource.Name))
		}
	}
	return out
}

// Every replica of every part with an HPA caches every object it serves: replicas share the
// work, not the memory, so replicas added for memory would not lower it. The HPAs scale on
// CPU unless a memory target is set.
func TestHPAsScaleOnCPUUnlessAMemoryTargetIsSet(t *testing.T) {
	parts := map[string]string{"adapter": "seedscaler-adapter", "autoscaler": "seedscaler-autoscaler", "seedController": "seedscaler-seed-controller", "setController": "seedscaler-set-controller"}
	var all, memory []string
	for part := range parts {
		all = append(all, "--set", part+".hpa.enabled=true")
		if part != "adapter" {
			all = append(all, "--set", part+".replicasMode=object-locks", "--set", part+".leaderElect=false")
		}
		memory = append(memory, "--set", part+".hpa.targetMemoryUtilizationPercentage=70")
	}
	metrics := hpaMetrics(t, all...)
	withMemory := hpaMetrics(t, append(all, memory...)...)
	for part, name := range parts {
		assert.Equal(t, []string{"cpu"}, metrics[name], "%s: %v", part, metrics)
		assert.Equal(t, []string{"cpu", "memory"}, withMemory[name], "%s: %v", part, withMemory)
	}
}

// An HPA needs the resource metrics API (metrics-server); without it, it warns and never
// scales. So no part has one unless asked: the adapter runs its replicas, kept available by
// its PodDisruptionBudget.
func TestNoHPAByDefault(t *testing.T) {
	objs := render(t)
	var pdbs []string
	for _, obj := range objs {
		assert.NotEqual(t, "HorizontalPodAutoscaler", obj.GetKind(), "HPA %s is rendered by default", obj.GetName())
		if obj.GetKind() == "PodDisruptionBudget" {
			pdbs = append(pdbs, obj.GetName())
		}
	}
	assert.Equal(t, []string{"seedscaler-adapter"}, pdbs)
	for _, d := range deployments(t) {
		want := int32(1)
		if d.Name == "seedscaler-adapter" {
			want = 2
		}
		if assert.NotNil(t, d.Spec.Replicas, d.Name) {
			assert.Equal(t, want, *d.Spec.Replicas, d.Name)
		}
	}
}

// An HPA owns its Deployment's replicas: a Deployment that names replicas as well is set
// back to them by every `helm upgrade`. Whichever part has an HPA, its Deployment has no
// replicas, and no Deployment has two HPAs; every other Deployment has its replicas.
func TestAPartWithAnHPALeavesItsReplicasToIt(t *testing.T) {
	allHPAs := []string{"--set", "adapter.hpa.enabled=true"}
	for _, part := range []string{"seedController", "setController", "autoscaler"} {
		allHPAs = append(allHPAs, "--set", part+".replicasMode=object-locks", "--set", part+".leaderElect=false", "--set", part+".hpa.enabled=true")
	}
	cases := map[string][]string{
		"adapter HPA":  {"--set", "adapter.hpa.enabled=true"},
		"every HPA":    allHPAs,
		"object locks": {"-f", filepath.Join(chartDir(t), "ci", "object-locks-values.yaml")},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			objs := render(t, args...)
			scaled := map[string]int{}
			for _, obj := range objs {
				if obj.GetKind() != "HorizontalPodAutoscaler" {
					continue
				}
				var hpa autoscalingv2.HorizontalPodAutoscaler
				require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &hpa))
				require.Equal(t, "Deployment", hpa.Spec.ScaleTargetRef.Kind, hpa.Name)
				scaled[hpa.Spec.ScaleTargetRef.Name]++
			}
			require.NotEmpty(t, scaled, "no HPA rendered")
			for _, d := range deployments(t, args...) {
				switch scaled[d.Name] {
				case 0:
					assert.NotNil(t, d.Spec.Replicas, "%s has no HPA and no replicas", d.Name)
				case 1:
					if !assert.Nil(t, d.Spec.Replicas, "%s has an HPA and replicas too: every upgrade resets the HPA's count", d.Name) {
						t.Logf("%s: replicas %d", d.Name, *d.Spec.Replicas)
					}
				default:
					assert.Fail(t, "several HPAs scale one Deployment", "%s: %d HPAs", d.Name, scaled[d.Name])
				}
				delete(scaled, d.Name)
			}
			assert.Empty(t, scaled, "HPAs of Deployments that are not rendered")
		})
	}
}

// The chart must never deploy a subcommand that does not exist, or pass a flag it does not
// know: every container's args, the Deployments' and the uninstall hook Job's, are parsed
// by the real binary (with --help, so nothing runs).
func TestEveryDeploymentRunsARealSubcommandWithKnownFlags(t *testing.T) {
	bin, err := testenv.BuildSeedscaler(t.TempDir(), testenv.Shipped)
	require.NoError(t, err)

	for name, args := range valuesFiles(t) {
		var jobs int
		for _, w := range workloads(t, args...) {
			if strings.HasPrefix(w.name, "Job/") {
				jobs++
			}
			for _, c := range w.pod.Spec.Containers {
				require.NotEmpty(t, c.Args, "%s/%s has no subcommand", w.name, c.Name)
				cmd := exec.Command(bin, append(append([]string{}, c.Args...), "--help")...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				stdout, err := cmd.Output()
				require.NoError(t, err, "%s: %s runs `seedscaler %s`, which the binary refuses:\n%s", name, w.name, strings.Join(c.Args, " "), stderr.String())
				assert.Contains(t, string(stdout), fmt.Sprintf("seedscaler %s", c.Args[0]), "%s: %s: --help of %s", name, w.name, c.Args[0])
			}
		}
		assert.Equal(t, 1, jobs, "%s: the uninstall hook's Job was not checked", name)
	}
}

// Every CRD is a template switched per API group (a garden cluster serves
// core.gardener.cloud and seedmanagement.gardener.cloud itself): crds.gardenerCore,
// crds.seedManagement and crds.autoscaling. Each switch leaves the other groups alone; the
// CRDs are kept on uninstall, and crds/, which no value can switch off, holds nothing.
func TestCRDsAreSwitchablePerGroup(t *testing.T) {
	crds := func(objs []*unstructured.Unstructured, group string) []string {
		var names []string
		for _, o := range objs {
			if o.GetKind() == "CustomResourceDefinition" && strings.HasSuffix(o.GetName(), "."+group) {
				names = append(names, o.GetName())
				assert.Equal(t, "keep", o.GetAnnotations()["helm.sh/resource-policy"], "%s must survive uninstall", o.GetName())
			}
		}
		return names
	}
	core := []string{"seeds.core.gardener.cloud", "shoots.core.gardener.cloud", "cloudprofiles.core.gardener.cloud", "namespacedcloudprofiles.core.gardener.cloud"}
	seedManagement := []string{"managedseeds.seedmanagement.gardener.cloud", "managedseedsets.seedmanagement.gardener.cloud"}
	autoscaling := []string{"seedautoscalers.autoscaling.seedscaler.io"}
	all := render(t)
	assert.ElementsMatch(t, core, crds(all, "core.gardener.cloud"))
	assert.ElementsMatch(t, seedManagement, crds(all, "seedmanagement.gardener.cloud"))
	assert.ElementsMatch(t, autoscaling, crds(all, "autoscaling.seedscaler.io"))

	noCore := render(t, "--set", "crds.gardenerCore=false")
	assert.Empty(t, crds(noCore, "core.gardener.cloud"))
	assert.ElementsMatch(t, seedManagement, crds(noCore, "seedmanagement.gardener.cloud"))
	assert.ElementsMatch(t, autoscaling, crds(noCore, "autoscaling.seedscaler.io"))

	noSeedManagement := render(t, "--set", "crds.seedManagement=false")
	assert.ElementsMatch(t, core, crds(noSeedManagement, "core.gardener.cloud"))
	assert.Empty(t, crds(noSeedManagement, "seedmanagement.gardener.cloud"))
	assert.ElementsMatch(t, autoscaling, crds(noSeedManagement, "autoscaling.seedscaler.io"))

	noAutoscaling := render(t, "--set", "crds.autoscaling=false")
	assert.ElementsMatch(t, core, crds(noAutoscaling, "core.gardener.cloud"))
	assert.ElementsMatch(t, seedManagement, crds(noAutoscaling, "seedmanagement.gardener.cloud"))
	assert.Empty(t, crds(noAutoscaling, "autoscaling.seedscaler.io"))

	_, err := os.Stat(filepath.Join(chartDir(t), "crds"))
	assert.True(t, os.IsNotExist(err), "crds/ cannot be switched off: CRDs belong in files/<group>-crds (err=%v)", err)
}

// hookObjects are the rendered objects of helm hooks, by kind.
func hookObjects(t *testing.T, args ...string) map[string]*unstructured.Unstructured {
	t.Helper()
	out := map[string]*unstructured.Unstructured{}
	for _, obj := range render(t, args...) {
		if _, ok := obj.GetAnnotations()["helm.sh/hook"]; !ok {
			continue
		}
		require.NotContains(t, out, obj.GetKind(), "two hooks of kind %s", obj.GetKind())
		out[obj.GetKind()] = obj
	}
	return out
}

// Before helm uninstall deletes the parts' RBAC, a pre-delete Job stops the parts and
// deletes their Leases. Its ServiceAccount, Role and RoleBinding exist before it (lower
// weights) and go with it; its rights are namespaced and exactly what it does; its args
// select every Deployment of the release and name the parts that run.
func TestUninstallHookStopsThePartsWithItsOwnNamespacedRBAC(t *testing.T) {
	minimal := []string{"-f", filepath.Join(chartDir(t), "ci", "minimal-values.yaml")}
	hooks := hookObjects(t, minimal...)
	require.ElementsMatch(t, []string{"ServiceAccount", "Role", "RoleBinding", "Job"}, slices.Collect(maps.Keys(hooks)))
	weight := map[string]int{}
	for kind, obj := range hooks {
		a := obj.GetAnnotations()
		assert.Equal(t, "pre-delete", a["helm.sh/hook"], kind)
		assert.Equal(t, "before-hook-creation,hook-succeeded", a["helm.sh/hook-delete-policy"], kind)
		w, err := strconv.Atoi(a["helm.sh/hook-weight"])
		require.NoError(t, err, "%s: hook weight", kind)
		weight[kind] = w
		assert.Equal(t, "seedscaler-system", obj.GetNamespace(), kind)
	}
	assert.Less(t, weight["ServiceAccount"], weight["RoleBinding"])
	assert.Less(t, weight["Role"], weight["RoleBinding"])
	assert.Less(t, weight["RoleBinding"], weight["Job"], "the Job would start without its rights")

	role := &rbacv1.Role{}
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(hooks["Role"].Object, role))
	assert.Equal(t, []rbacv1.PolicyRule{
		{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"list"}},
		{APIGroups: []string{"apps"}, Resources: []string{"deployments/scale"}, Verbs: []string{"patch"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"list", "delete"}},
	}, role.Rules)
	binding := &rbacv1.RoleBinding{}
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(hooks["RoleBinding"].Object, binding))
	assert.Equal(t, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: role.Name}, binding.RoleRef)
	job := &batchv1.Job{}
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(hooks["Job"].Object, job))
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: job.Spec.Template.Spec.ServiceAccountName, Namespace: "seedscaler-system"}}, binding.Subjects)
	assert.Equal(t, hooks["ServiceAccount"].GetName(), job.Spec.Template.Spec.ServiceAccountName)

	flags := map[string]string{}
	for _, arg := range job.Spec.Template.Spec.Containers[0].Args[1:] {
		name, value, _ := strings.Cut(arg, "=")
		flags[name] = value
	}
	selector, err := labels.Parse(flags["--selector"])
	require.NoError(t, err)
	var parts []string
	for _, d := range deployments(t, minimal...) {
		assert.True(t, selector.Matches(labels.Set(d.Labels)), "the hook does not stop %s: %s", d.Name, selector)
		parts = append(parts, d.Labels["app.kubernetes.io/component"])
		// The hook waits for the Deployments' pods, never for its own.
		podSelector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		require.NoError(t, err)
		assert.False(t, podSelector.Matches(labels.Set(job.Spec.Template.Labels)), "%s selects the hook's pod", d.Name)
	}
	assert.ElementsMatch(t, parts, strings.Split(flags["--parts"], ","), "the hook deletes the Leases of other parts than the release runs")
	assert.Equal(t, "seedscaler-system", flags["--namespace"])
	assert.Equal(t, "seedscaler-system", flags["--lease-namespace"], "the parts keep their Leases in the release namespace")
	assert.Equal(t, "2m", flags["--timeout"])

	assert.Empty(t, hookObjects(t, "--set", "uninstall.hook.enabled=false"))
}
