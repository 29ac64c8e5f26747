//go:build integration

package chart

import (
	"context"
	"os"
	"path/filepath"
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
	"sigs.k8s.io/yaml"

	"github.com/seedscaler/seedscaler/test/framework/manifest"
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

// The chart ships alerts/seedscaler.rules.yaml as it is, with the service level of shoots
// waiting for a seed that monitoring.shootSchedulingSLO sets: by default unchanged, else
// with the recorded objective and the bucket every SLI reads replaced, in the PrometheusRule
// and in the plain ConfigMap alike. The objective may come from --set, which keeps decimals
// as strings.
func TestRulesCarryTheServiceLevelTheValuesSet(t *testing.T) {
	source, err := os.ReadFile(filepath.Join(chartDir(t), "files", "alerts", "seedscaler.rules.yaml"))
	require.NoError(t, err)

	// rendered returns the rules of the PrometheusRule and of the ConfigMap.
	rendered := func(set ...string) (prometheusRule, configMap map[string]any) {
		args := []string{"--set", "monitoring.prometheusRule=true"}
		for _, s := range set {
			args = append(args, "--set", s)
		}
		for _, o := range render(t, args...) {
			switch o.GetKind() {
			case "PrometheusRule":
				prometheusRule = o.Object["spec"].(map[string]any)
			case "ConfigMap":
				if text, ok, _ := unstructured.NestedString(o.Object, "data", "seedscaler.rules.yaml"); ok {
					require.NoError(t, yaml.Unmarshal([]byte(text), &configMap))
				}
			}
		}
		require.NotNil(t, prometheusRule, "no PrometheusRule")
		require.NotNil(t, configMap, "no rules ConfigMap")
		return prometheusRule, configMap
	}
	// exprs returns the expressions of the group seedscaler.slo by the record or alert.
	exprs := func(rules map[string]any) map[string]string {
		out := map[string]string{}
		for _, g := range rules["groups"].([]any) {
			group := g.(map[string]any)
			if group["name"] != "seedscaler.slo" {
				continue
			}
			for _, r := range group["rules"].([]any) {
				rule := r.(map[string]any)
				name, _ := rule["record"].(string)
				if name == "" {
					name, _ = rule["alert"].(string)
				}
				out[name] = rule["expr"].(string)
			}
		}
		require.NotEmpty(t, out, "no group seedscaler.slo")
		return out
	}

	var want map[string]any
	require.NoError(t, yaml.Unmarshal(source, &want))
	prometheusRule, configMap := rendered()
	assert.Equal(t, want, prometheusRule, "by default the PrometheusRule holds the rules as they are")
	assert.Equal(t, want, configMap, "by default the ConfigMap holds the rules as they are")

	prometheusRule, configMap = rendered("monitoring.shootSchedulingSLO.objective=0.995", "monitoring.shootSchedulingSLO.thresholdSeconds=120")
	assert.Equal(t, prometheusRule, configMap, "the PrometheusRule and the ConfigMap hold the same rules")
	defaults, changed := exprs(want), exprs(prometheusRule)
	assert.Equal(t, "vector(0.995)", changed["seedscaler:shoot_scheduling_objective:ratio"])
	sli := 0
	for name, expr := range changed {
		assert.NotContains(t, expr, `"60(`, "%s still reads the bucket of 60 s", name)
		if strings.Contains(defaults[name], `le=~"60(\\.0)?"`) {
			sli++
			assert.Equal(t, strings.ReplaceAll(defaults[name], `le=~"60(\\.0)?"`, `le=~"120(\\.0)?"`), expr, "%s", name)
		} else if name != "seedscaler:shoot_scheduling_objective:ratio" {
			assert.Equal(t, defaults[name], expr, "%s reads neither the objective nor the threshold", name)
		}
	}
	assert.Equal(t, 7, sli, "the 5m rate within the threshold and the SLIs of the six longer windows read the threshold's bucket")
}

// monitoring.serviceMonitor sets how every part is scraped: the interval, the timeout when
// given, and relabelings after the chart's own job relabeling, which stays first so that a
// user's relabeling sees the job the alerts match. A timeout longer than the interval, which
// Prometheus refuses, fails the render naming both values.
func TestServiceMonitorsScrapeAsTheValuesSay(t *testing.T) {
	endpoints := func(args ...string) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, o := range render(t, append([]string{"--set", "monitoring.serviceMonitors=true"}, args...)...) {
			if o.GetKind() != "ServiceMonitor" {
				continue
			}
			eps, _, err := unstructured.NestedSlice(o.Object, "spec", "endpoints")
			require.NoError(t, err)
			require.Len(t, eps, 1, o.GetName())
			out[o.GetLabels()["app.kubernetes.io/component"]] = eps[0].(map[string]any)
		}
		require.Len(t, out, 6, "one ServiceMonitor per part")
		return out
	}
	job := func(part string) map[string]any {
		return map[string]any{"targetLabel": "job", "replacement": "seedscaler-" + part}
	}

	for part, ep := range endpoints() {
		assert.Equal(t, "15s", ep["interval"], part)
		assert.NotContains(t, ep, "scrapeTimeout", "%s: Prometheus' own timeout unless one is set", part)
		assert.Equal(t, []any{job(part)}, ep["relabelings"], part)
	}

	for part, ep := range endpoints("--set", "monitoring.serviceMonitor.interval=1m",
		"--set", "monitoring.serviceMonitor.scrapeTimeout=45s",
		"--set", "monitoring.serviceMonitor.relabelings[0].targetLabel=cluster",
		"--set", "monitoring.serviceMonitor.relabelings[0].replacement=garden-eu") {
		assert.Equal(t, "1m", ep["interval"], part)
		assert.Equal(t, "45s", ep["scrapeTimeout"], part)
		assert.Equal(t, []any{job(part), map[string]any{"targetLabel": "cluster", "replacement": "garden-eu"}}, ep["relabelings"], part)
	}

	out, err := helm(t, "template", "seedscaler", chartDir(t), "--kube-version", kubeVersion, "--set", "monitoring.serviceMonitors=true",
		"--set", "monitoring.serviceMonitor.interval=30s", "--set", "monitoring.serviceMonitor.scrapeTimeout=1m")
	require.Error(t, err, "a timeout longer than the interval was rendered")
	assert.Contains(t, out, "monitoring.serviceMonitor.scrapeTimeout 1m is longer than monitoring.serviceMonitor.interval 30s")
	// Equal is what Prometheus allows, and 1m30s is compared as 90 seconds, not by its text.
	endpoints("--set", "monitoring.serviceMonitor.interval=1m30s", "--set", "monitoring.serviceMonitor.scrapeTimeout=90s")
	endpoints("--set", "monitoring.serviceMonitor.interval=2m", "--set", "monitoring.serviceMonitor.scrapeTimeout=1m30s")
}

func TestSchemaRejectsBadServiceMonitorValues(t *testing.T) {
	cases := []struct {
		name string
		set  []string
		want string
	}{
		{"interval without unit", []string{"monitoring.serviceMonitor.interval=15"}, "/monitoring/serviceMonitor/interval"},
		{"empty interval", []string{"monitoring.serviceMonitor.interval="}, "/monitoring/serviceMonitor/interval"},
		{"timeout that is no duration", []string{"monitoring.serviceMonitor.scrapeTimeout=soon"}, "/monitoring/serviceMonitor/scrapeTimeout"},
		{"relabeling key in Prometheus' own spelling", []string{"monitoring.serviceMonitor.relabelings[0].target_label=cluster"}, "additional properties 'target_label' not allowed"},
		{"unknown relabeling action", []string{"monitoring.serviceMonitor.relabelings[0].action=rename"}, "/monitoring/serviceMonitor/relabelings/0/action"},
		{"misspelled settings key", []string{"monitoring.serviceMonitor.intervall=30s"}, "additional properties 'intervall' not allowed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assertSchemaRejects(t, tc.set, tc.want) })
	}
}
