//go:build integration

package chart

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// namespacedKinds are resources no part may have cluster-wide: each is a Role where the work is.
var namespacedKinds = []string{"leases", "pods", "configmaps", "controllerrevisions"}

// No ClusterRole of any values file grants Leases, Pods, ConfigMaps or ControllerRevisions;
// the Roles that do sit in the namespace of the work, and the lock Roles exist in
// object-locks mode only.
func TestNoPartHasNamespacedKindsClusterWide(t *testing.T) {
	for name, args := range valuesFiles(t) {
		t.Run(name, func(t *testing.T) {
			for _, obj := range render(t, args...) {
				if obj.GetKind() != "ClusterRole" {
					continue
				}
				role := &rbacv1.ClusterRole{}
				require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, role))
				for _, rule := range role.Rules {
					for _, kind := range namespacedKinds {
						assert.NotContains(t, rule.Resources, kind, "ClusterRole %s grants %s cluster-wide: %v", obj.GetName(), kind, rule)
					}
				}
			}
		})
	}

	roles := func(args ...string) map[string]string {
		out := map[string]string{}
		for _, obj := range render(t, args...) {
			if obj.GetKind() == "Role" {
				out[obj.GetName()] = obj.GetNamespace()
			}
		}
		return out
	}
	byDefault := roles("--set", "scheduler.config.regionConfigNamespace=regions")
	assert.Equal(t, "gardener-system-seed-lease", byDefault["seedscaler-seed-controller-heartbeats"])
	assert.Equal(t, "regions", byDefault["seedscaler-scheduler-region-configs"])
	assert.Equal(t, "garden", byDefault["seedscaler-set-controller-seed-management"])
	assert.NotContains(t, byDefault, "seedscaler-seed-controller-locks", "object lock rights without object locks")

	namespaces := func(args ...string) []string {
		var out []string
		for _, obj := range render(t, args...) {
			if obj.GetKind() == "Namespace" {
				assert.Equal(t, "keep", obj.GetAnnotations()["helm.sh/resource-policy"], "namespace %s is deleted with the release", obj.GetName())
				assert.NotContains(t, obj.GetLabels(), "app.kubernetes.io/instance", "namespace %s carries the release's labels, which outlive it", obj.GetName())
				out = append(out, obj.GetName())
			}
		}
		return out
	}
	// helm template has no cluster to look namespaces up in: every one the Roles need.
	assert.ElementsMatch(t, []string{"garden", "gardener-system-seed-lease", "regions"}, namespaces("--set", "scheduler.config.regionConfigNamespace=regions"))
	assert.Empty(t, namespaces("--set", "createNamespaces=false"))

	locks := roles("--set", "setController.replicasMode=object-locks,setController.leaderElect=false")
	assert.Equal(t, "seedscaler-system", locks["seedscaler-set-controller-locks"])
	assert.NotContains(t, locks, "seedscaler-set-controller-leader-election")
}

// The set controller watches ControllerRevisions in the namespaces its Roles cover.
func TestSetControllerWatchesRevisionsWhereItMayWriteThem(t *testing.T) {
	for _, d := range deployments(t, "--set", "admission.seedManagementNamespaces={garden,landscape-b}") {
		if d.Name == "seedscaler-set-controller" {
			assert.Contains(t, d.Spec.Template.Spec.Containers[0].Args, "--seed-management-namespaces=garden,landscape-b")
			return
		}
	}
	t.Fatal("no set controller Deployment")
}

func serviceMonitorEndpoint(t *testing.T, objs []*unstructured.Unstructured, part string) map[string]any {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == "ServiceMonitor" && o.GetLabels()["app.kubernetes.io/component"] == part {
			endpoints, _, err := unstructured.NestedSlice(o.Object, "spec", "endpoints")
			require.NoError(t, err)
			require.Len(t, endpoints, 1)
			return endpoints[0].(map[string]any)
		}
	}
	t.Fatalf("no ServiceMonitor of %s", part)
	return nil
}

// Secure metrics by default: every part runs --metrics-secure=true with the rights to review
// tokens, the ServiceMonitors scrape HTTPS with Prometheus' token, and the metrics reader is
// bound to the Prometheus named in values. metrics.secure=false turns all of it off.
func TestMetricsAreSecureByDefaultAndPlainOnRequest(t *testing.T) {
	for _, secure := range []bool{true, false} {
		args := []string{"--set", "monitoring.serviceMonitors=true",
			"--set", "monitoring.prometheusServiceAccounts[0].namespace=monitoring,monitoring.prometheusServiceAccounts[0].name=kps-prometheus"}
		if !secure {
			args = append(args, "--set", "metrics.secure=false")
		}
		objs := render(t, args...)
		for _, d := range deployments(t, args...) {
			assert.Contains(t, d.Spec.Template.Spec.Containers[0].Args, map[bool]string{true: "--metrics-secure=true", false: "--metrics-secure=false"}[secure], d.Name)
		}
		ep := serviceMonitorEndpoint(t, objs, "exporter")
		var reader *rbacv1.ClusterRoleBinding
		for _, o := range objs {
			switch {
			case o.GetKind() == "ClusterRole" && o.GetLabels()["app.kubernetes.io/component"] == "scheduler":
				role := &rbacv1.ClusterRole{}
				require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, role))
				reviews := slices.ContainsFunc(role.Rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.Resources, "tokenreviews") })
				assert.Equal(t, secure, reviews, "tokenreviews")
			case o.GetKind() == "ClusterRoleBinding" && o.GetName() == "seedscaler-metrics-reader":
				reader = &rbacv1.ClusterRoleBinding{}
				require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, reader))
			}
		}
		if !secure {
			assert.Nil(t, reader)
			assert.NotContains(t, ep, "scheme")
			assert.NotContains(t, ep, "bearerTokenFile")
			continue
		}
		assert.Equal(t, "https", ep["scheme"])
		assert.Equal(t, "/var/run/secrets/kubernetes.io/serviceaccount/token", ep["bearerTokenFile"])
		assert.Equal(t, map[string]any{"insecureSkipVerify": true}, ep["tlsConfig"])
		require.NotNil(t, reader, "no binding of the metrics reader")
		assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: "kps-prometheus", Namespace: "monitoring"}}, reader.Subjects)
	}
}

func TestShootInfoValueReachesTheExporter(t *testing.T) {
	for _, on := range []bool{true, false} {
		for _, d := range deployments(t, "--set", map[bool]string{true: "exporter.shootInfo=true", false: "exporter.shootInfo=false"}[on]) {
			if d.Name == "seedscaler-exporter" {
				assert.Equal(t, !on, slices.Contains(d.Spec.Template.Spec.Containers[0].Args, "--shoot-info=false"))
			}
		}
	}
}

// NetworkPolicies: none by default; enabled, every pod of the release admits Prometheus on
// its metrics port only, and the adapter's API port and the scheduler's webhook port admit
// the kube-apiserver's CIDRs only. Enabled without CIDRs is refused, naming the value.
func TestNetworkPoliciesRender(t *testing.T) {
	for _, o := range render(t) {
		assert.NotEqual(t, "NetworkPolicy", o.GetKind(), "a NetworkPolicy by default: %s", o.GetName())
	}
	out, err := helm(t, "template", "seedscaler", chartDir(t), "--kube-version", kubeVersion, "--set", "networkPolicy.enabled=true")
	require.Error(t, err)
	assert.Contains(t, out, "networkPolicy.apiServerCIDRs")

	policies := map[string]*networkingv1.NetworkPolicy{}
	for _, o := range render(t, "--set", "networkPolicy.enabled=true", "--set", "networkPolicy.apiServerCIDRs={10.250.0.0/16,192.168.1.0/24}") {
		if o.GetKind() != "NetworkPolicy" {
			continue
		}
		p := &networkingv1.NetworkPolicy{}
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, p))
		policies[p.Name] = p
	}
	require.Len(t, policies, 3, "metrics, adapter and scheduler: %v", policies)

	metrics := policies["seedscaler-metrics"]
	require.NotNil(t, metrics)
	assert.Equal(t, map[string]string{"app.kubernetes.io/name": "seedscaler", "app.kubernetes.io/instance": "seedscaler"}, metrics.Spec.PodSelector.MatchLabels)
	assert.Equal(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}, metrics.Spec.PolicyTypes)
	require.Len(t, metrics.Spec.Ingress, 1)
	require.Len(t, metrics.Spec.Ingress[0].From, 1)
	from := metrics.Spec.Ingress[0].From[0]
	require.NotNil(t, from.NamespaceSelector, "any namespace's pods would match")
	require.NotNil(t, from.PodSelector, "every pod of the namespace would match")
	assert.Equal(t, map[string]string{"kubernetes.io/metadata.name": "monitoring"}, from.NamespaceSelector.MatchLabels)
	assert.Equal(t, map[string]string{"app.kubernetes.io/name": "prometheus"}, from.PodSelector.MatchLabels)
	require.Len(t, metrics.Spec.Ingress[0].Ports, 1)
	assert.Equal(t, "metrics", metrics.Spec.Ingress[0].Ports[0].Port.String())

	for part, port := range map[string]string{"adapter": "https", "scheduler": "webhook"} {
		p := policies["seedscaler-"+part+"-apiserver"]
		require.NotNil(t, p, part)
		assert.Equal(t, part, p.Spec.PodSelector.MatchLabels["app.kubernetes.io/component"])
		require.Len(t, p.Spec.Ingress, 1)
		var cidrs []string
		for _, f := range p.Spec.Ingress[0].From {
			require.NotNil(t, f.IPBlock, "%s admits more than the kube-apiserver's CIDRs", part)
			assert.Nil(t, f.PodSelector)
			assert.Nil(t, f.NamespaceSelector)
			cidrs = append(cidrs, f.IPBlock.CIDR)
		}
		assert.Equal(t, []string{"10.250.0.0/16", "192.168.1.0/24"}, cidrs, part)
		require.Len(t, p.Spec.Ingress[0].Ports, 1)
		assert.Equal(t, port, p.Spec.Ingress[0].Ports[0].Port.String(), part)
	}

	// Without the adapter, no CIDRs are needed; the scheduler's webhook port stays closed.
	for _, o := range render(t, "--set", "networkPolicy.enabled=true", "--set", "adapter.enabled=false") {
		if o.GetKind() == "NetworkPolicy" {
			assert.Equal(t, "seedscaler-metrics", o.GetName())
		}
	}
	assertSchemaRejects(t, []string{"networkPolicy.apiServerCIDRs={10.250.0.0}"}, "apiServerCIDRs")
}
