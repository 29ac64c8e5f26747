package chart

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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
