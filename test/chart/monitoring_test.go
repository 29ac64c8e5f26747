//go:build integration

package chart

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/internal/manifest"
)

// Under prometheus-operator every label a part writes must arrive as the part wrote it: the
// exporter's and the scheduler's `namespace` is a shoot's or a set's, not the release
// namespace the operator adds as a target label (kube-state-metrics' chart honors labels
// for the same reason). And every part's job is `seedscaler-<part>`, whatever the release is
// called, so that alerts match it exactly.
func TestServiceMonitorsHonorThePartsLabelsAndNameTheJobAfterThePart(t *testing.T) {
	for _, release := range []string{"seedscaler", "garden-autoscaling"} {
		objs := renderRelease(t, release, "--set", "monitoring.serviceMonitors=true")
		jobs := map[string]bool{}
		for _, o := range objs {
			if o.GetKind() != "ServiceMonitor" {
				continue
			}
			part := o.GetLabels()["app.kubernetes.io/component"]
			endpoints, _, err := unstructured.NestedSlice(o.Object, "spec", "endpoints")
			require.NoError(t, err)
			require.Len(t, endpoints, 1, "%s", o.GetName())
			ep := endpoints[0].(map[string]any)
			assert.Equal(t, true, ep["honorLabels"], "%s: the part's own labels must win over the operator's target labels", o.GetName())
			relabelings, _ := ep["relabelings"].([]any)
			job := ""
			for _, r := range relabelings {
				r := r.(map[string]any)
				if r["targetLabel"] == "job" {
					job, _ = r["replacement"].(string)
				}
			}
			assert.Equal(t, "seedscaler-"+part, job, "%s (release %s)", o.GetName(), release)
			jobs[job] = true
		}
		assert.Len(t, jobs, 6, "release %s: one ServiceMonitor per part: %v", release, jobs)
	}
}

func renderRelease(t *testing.T, release string, extra ...string) []*unstructured.Unstructured {
	t.Helper()
	args := append([]string{"template", release, chartDir(t), "--namespace", "seedscaler-system", "--kube-version", kubeVersion}, extra...)
	out, err := helm(t, args...)
	require.NoError(t, err, out)
	objs, err := manifest.Read(strings.NewReader(out))
	require.NoError(t, err)
	return objs
}

// Without a label the operator's Prometheus selects, nothing is scraped and nothing says so
// at run time: the install notes say it. Notes render on install only, so this dry-runs
// installs against a real kube-apiserver.
func TestNotesWarnWhenServiceMonitorsCarryNoReleaseLabel(t *testing.T) {
	env, _, kcFile := apiServer(t)
	// The operator's kinds, with an open schema: enough for helm to map them.
	sch := runtime.NewScheme()
	require.NoError(t, apiextensionsv1.AddToScheme(sch))
	cl, err := client.New(env.Config, client.Options{Scheme: sch})
	require.NoError(t, err)
	for _, kind := range []string{"ServiceMonitor", "PrometheusRule"} {
		plural := strings.ToLower(kind) + "s"
		crd := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: plural + ".monitoring.coreos.com"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: "monitoring.coreos.com", Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, ListKind: kind + "List", Plural: plural, Singular: strings.ToLower(kind)},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
			},
		}
		require.NoError(t, cl.Create(context.Background(), crd))
	}
	notes := func(args ...string) string {
		out, err := helm(t, append([]string{"install", "seedscaler", chartDir(t), "--kubeconfig", kcFile,
			"--namespace", "seedscaler-system", "--create-namespace", "--dry-run=client"}, args...)...)
		require.NoError(t, err, out)
		return out[strings.Index(out, "NOTES:"):]
	}
	assert.Contains(t, notes("--set", "monitoring.serviceMonitors=true"), "--set monitoring.labels.release=")
	assert.NotContains(t, notes("--set", "monitoring.serviceMonitors=true", "--set", "monitoring.labels.release=kps"), "WARNING")
	assert.NotContains(t, notes("--set", "monitoring.serviceMonitors=false"), "WARNING")
}
