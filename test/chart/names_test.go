//go:build integration

package chart

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// everything renders every object the chart has: object locks and HPAs, the scheduler's
// configuration, the adapter's rules and client configuration, ServiceMonitors and the
// PrometheusRule, NetworkPolicies and the metrics reader's binding.
var everything = []string{
	"--set", "seedController.replicasMode=object-locks,seedController.leaderElect=false,seedController.hpa.enabled=true",
	"--set", "adapter.hpa.enabled=true",
	"--set", "scheduler.config.schedulerName=seedscaler-scheduler",
	"--set", "adapter.rules.seriesQuery=up",
	"--set", "adapter.prometheus.clientConfig.inline.basic_auth.username=seedscaler",
	"--set", "monitoring.serviceMonitors=true,monitoring.prometheusRule=true",
	"--set", "networkPolicy.enabled=true,networkPolicy.apiServerCIDRs={10.250.0.0/16}",
	"--set", "monitoring.prometheusServiceAccounts[0].namespace=monitoring,monitoring.prometheusServiceAccounts[0].name=prometheus",
}

// dnsLabel is what a Service's name must be, and every name of the chart is.
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// named reports whether an object's name is the chart's to choose: not a CRD's, an
// APIService's (group and version) or a Namespace's.
func named(o *unstructured.Unstructured) bool {
	switch o.GetKind() {
	case "CustomResourceDefinition", "APIService", "Namespace":
		return false
	}
	return true
}

// Whatever the release is called (helm allows 53 characters), every object's name is a DNS
// label of at most 63 characters that ends as it does for a short release name: a long
// release name is shortened, never a suffix, and two long release names that begin alike
// name their objects apart.
func TestNamesFitInADNSLabelAndKeepTheirSuffix(t *testing.T) {
	const long, other = "garden-landscape-europe-west1-production-autoscaling1", "garden-landscape-europe-west1-production-autoscaling2"
	require.Len(t, long, 53, "the longest release name helm allows")

	short := renderRelease(t, "seedscaler", everything...)
	longObjs := renderRelease(t, long, everything...)
	otherObjs := renderRelease(t, other, everything...)
	require.Len(t, longObjs, len(short))

	for _, o := range longObjs {
		if !named(o) {
			continue
		}
		assert.LessOrEqual(t, len(o.GetName()), 63, "%s %s", o.GetKind(), o.GetName())
		assert.Regexp(t, dnsLabel, o.GetName(), o.GetKind())
	}
	for _, s := range short {
		if !named(s) {
			continue
		}
		suffix := strings.TrimPrefix(s.GetName(), "seedscaler")
		found := false
		for _, o := range longObjs {
			if o.GetKind() == s.GetKind() && o.GetNamespace() == s.GetNamespace() &&
				strings.HasPrefix(o.GetName(), long[:20]) && strings.HasSuffix(o.GetName(), suffix) {
				found = true
			}
		}
		assert.True(t, found, "%s %s: no such object of release %s ends in %q", s.GetKind(), s.GetName(), long, suffix)
	}

	names := map[string]bool{}
	for _, o := range longObjs {
		if named(o) {
			names[goldenKey(o)] = true
		}
	}
	for _, o := range otherObjs {
		if named(o) {
			assert.False(t, names[goldenKey(o)], "releases %s and %s both create %s", long, other, goldenKey(o))
		}
	}
}

// Every name an object refers to is one the chart renders, for a short release name and for
// one so long that names are shortened: the roles and ServiceAccounts of bindings, a
// Deployment's ServiceAccount, Secrets and ConfigMaps, an HPA's Deployment, the Services of
// APIServices and of the webhook, the policies of admission bindings, and the users the
// admission policies and the webhook let bind.
func TestEveryReferenceNamesARenderedObject(t *testing.T) {
	long := strings.Repeat("x", 40) + "-landscape-eu" // 53 characters
	require.Len(t, long, 53)
	for _, release := range []string{"seedscaler", long} {
		t.Run(fmt.Sprintf("%d characters", len(release)), func(t *testing.T) {
			objs := renderRelease(t, release, everything...)
			rendered := map[string]bool{}
			for _, o := range objs {
				rendered[fmt.Sprintf("%s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName())] = true
			}
			refs := references(t, objs)
			require.NotEmpty(t, refs)
			for _, ref := range refs {
				assert.True(t, rendered[ref.to], "%s refers to %s, which is not rendered", ref.from, ref.to)
			}
		})
	}
}

// reference is an object's reference to another, as goldenKey names both.
type reference struct{ from, to string }

// outside are the objects the chart refers to and others create: Kubernetes' own roles, and
// the Prometheus ServiceAccount `everything` names.
var outside = map[string]bool{
	"ClusterRole /system:auth-delegator":                         true,
	"Role kube-system/extension-apiserver-authentication-reader": true,
	"ServiceAccount monitoring/prometheus":                       true,
}

// serviceAccountUser finds the ServiceAccounts named as users, e.g. in a CEL expression.
var serviceAccountUser = regexp.MustCompile(`system:serviceaccount:([a-z0-9-]+):([a-z0-9-]+)`)

func references(t *testing.T, objs []*unstructured.Unstructured) []reference {
	t.Helper()
	var out []reference
	add := func(o *unstructured.Unstructured, kind, namespace, name string) {
		to := fmt.Sprintf("%s %s/%s", kind, namespace, name)
		if !outside[to] {
			out = append(out, reference{from: goldenKey(o), to: to})
		}
	}
	str := func(obj map[string]any, fields ...string) string {
		s, _, err := unstructured.NestedString(obj, fields...)
		require.NoError(t, err)
		return s
	}
	for _, o := range objs {
		ns := o.GetNamespace()
		switch o.GetKind() {
		case "ClusterRoleBinding", "RoleBinding":
			refNS := ns
			if str(o.Object, "roleRef", "kind") == "ClusterRole" {
				refNS = ""
			}
			add(o, str(o.Object, "roleRef", "kind"), refNS, str(o.Object, "roleRef", "name"))
			subjects, _, _ := unstructured.NestedSlice(o.Object, "subjects")
			for _, s := range subjects {
				s := s.(map[string]any)
				add(o, s["kind"].(string), s["namespace"].(string), s["name"].(string))
			}
		case "Deployment", "Job":
			spec, _, _ := unstructured.NestedMap(o.Object, "spec", "template", "spec")
			add(o, "ServiceAccount", ns, spec["serviceAccountName"].(string))
			volumes, _, _ := unstructured.NestedSlice(spec, "volumes")
			for _, v := range volumes {
				v := v.(map[string]any)
				if s, ok := v["secret"].(map[string]any); ok {
					add(o, "Secret", ns, s["secretName"].(string))
				}
				if c, ok := v["configMap"].(map[string]any); ok {
					add(o, "ConfigMap", ns, c["name"].(string))
				}
			}
			containers, _, _ := unstructured.NestedSlice(spec, "containers")
			for _, c := range containers {
				for _, arg := range c.(map[string]any)["args"].([]any) {
					for _, m := range serviceAccountUser.FindAllStringSubmatch(arg.(string), -1) {
						add(o, "ServiceAccount", m[1], m[2])
					}
				}
			}
		case "HorizontalPodAutoscaler":
			add(o, str(o.Object, "spec", "scaleTargetRef", "kind"), ns, str(o.Object, "spec", "scaleTargetRef", "name"))
		case "APIService":
			add(o, "Service", str(o.Object, "spec", "service", "namespace"), str(o.Object, "spec", "service", "name"))
		case "ValidatingWebhookConfiguration":
			webhooks, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
			for _, w := range webhooks {
				w := w.(map[string]any)
				add(o, "Service", str(w, "clientConfig", "service", "namespace"), str(w, "clientConfig", "service", "name"))
				conditions, _, _ := unstructured.NestedSlice(w, "matchConditions")
				for _, c := range conditions {
					for _, m := range serviceAccountUser.FindAllStringSubmatch(c.(map[string]any)["expression"].(string), -1) {
						add(o, "ServiceAccount", m[1], m[2])
					}
				}
			}
		case "ValidatingAdmissionPolicyBinding":
			add(o, "ValidatingAdmissionPolicy", "", str(o.Object, "spec", "policyName"))
		case "ValidatingAdmissionPolicy":
			variables, _, _ := unstructured.NestedSlice(o.Object, "spec", "variables")
			for _, v := range variables {
				for _, m := range serviceAccountUser.FindAllStringSubmatch(v.(map[string]any)["expression"].(string), -1) {
					add(o, "ServiceAccount", m[1], m[2])
				}
			}
		}
	}
	return out
}
