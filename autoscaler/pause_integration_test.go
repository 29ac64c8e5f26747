//go:build integration

package autoscaler_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// annotate sets (a value) or removes (nil) annotations of the fixture's autoscaler.
func (f *fixture) annotate(annotations map[string]*string) {
	f.t.Helper()
	sa := f.get()
	// A merge patch, not an update: the controller writes the status meanwhile.
	patch := client.MergeFrom(sa.DeepCopy())
	if sa.Annotations == nil {
		sa.Annotations = map[string]string{}
	}
	for k, v := range annotations {
		if v == nil {
			delete(sa.Annotations, k)
		} else {
			sa.Annotations[k] = *v
		}
	}
	require.NoError(f.t, env.Client.Patch(f.ctx, sa, patch))
}

// printedColumn is the cell of the named column that `kubectl get seedas` prints for the
// fixture's autoscaler: the kube-apiserver's server-side table of the CRD's print columns.
func (f *fixture) printedColumn(column string) string {
	f.t.Helper()
	httpClient, err := rest.HTTPClientFor(env.Config)
	require.NoError(f.t, err)
	url := fmt.Sprintf("%s/apis/autoscaling.seedscaler.io/v1alpha1/namespaces/%s/seedautoscalers/%s", strings.TrimSuffix(env.Config.Host, "/"), f.ns, f.name)
	req, err := http.NewRequestWithContext(f.ctx, http.MethodGet, url, nil)
	require.NoError(f.t, err)
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := httpClient.Do(req)
	require.NoError(f.t, err)
	defer resp.Body.Close()
	tbl := &metav1.Table{}
	require.NoError(f.t, json.NewDecoder(resp.Body).Decode(tbl))
	require.Len(f.t, tbl.Rows, 1)
	for i, c := range tbl.ColumnDefinitions {
		if c.Name == column {
			return fmt.Sprint(tbl.Rows[0].Cells[i])
		}
	}
	require.FailNow(f.t, "no such column", column)
	return ""
}

// Pausing a direction holds the target that way only, while the autoscaler goes on
// measuring and recording what it would do; paused-replicas wins over it; an invalid value
// holds its direction and says how to fix it; removing the annotation resumes.
func TestPausedDirectionsHoldTheTargetThatWayOnly(t *testing.T) {
	const (
		in  = autoscalingv1alpha1.AnnotationPausedScaleIn
		out = autoscalingv1alpha1.AnnotationPausedScaleOut
	)
	f := newFixture(t, "paused-directions")
	f.createHotSet()
	f.createAutoscaler(1, 10, 50, &autoscalingv1alpha1.SeedAutoscalerBehavior{
		ScaleDown: &autoscalingv1alpha1.ScalingRules{StabilizationWindowSeconds: ptr.To[int32](0)},
	})
	f.annotate(map[string]*string{out: ptr.To("true")})
	f.start(false)

	// 90% of target 50% wants 4 replicas; scale-out is paused.
	f.waitForReason(autoscalingv1alpha1.SeedAutoscalerScalingLimited, "ScaleOutPaused")
	st := f.get().Status
	assert.Equal(t, int32(2), f.specReplicas())
	assert.Equal(t, int32(2), st.DesiredReplicas)
	assert.Equal(t, "90%/50%", st.Targets, "still measured")
	assert.Equal(t, int32(4), st.Recommendations[len(st.Recommendations)-1].Replicas, "still recorded")
	assert.Equal(t, "the autoscaler wants 4 replicas, but scale-out is paused by the annotation autoscaling.seedscaler.io/paused-scale-out: holding at 2",
		f.condition(autoscalingv1alpha1.SeedAutoscalerScalingLimited).Message)
	paused := f.condition(autoscalingv1alpha1.SeedAutoscalerDirectionPaused)
	assert.Equal(t, metav1.ConditionTrue, paused.Status)
	assert.Equal(t, "ScaleOutPaused", paused.Reason)
	assert.Equal(t, "ScaleOutPaused", f.printedColumn("DirectionPaused"))
	assert.Len(t, f.eventsOnceThere("ScaleOutPaused", 1), 1)
	f.clock.Step(time.Minute)
	f.waitForEvaluation()
	assert.Equal(t, int32(2), f.specReplicas())
	assert.Len(t, f.events("ScaleOutPaused"), 1, "one event per change, not per evaluation")
	assert.Empty(t, f.events("SuccessfulRescale"))

	// Not "true" or "false": held as if it were "true", and said.
	f.annotate(map[string]*string{out: ptr.To("yes")})
	f.waitForReason(autoscalingv1alpha1.SeedAutoscalerDirectionPaused, "InvalidPauseAnnotation")
	notes := f.eventsOnceThere("InvalidPauseAnnotation", 1)
	assert.Contains(t, notes[0], `annotation autoscaling.seedscaler.io/paused-scale-out="yes" is neither "true" nor "false"`)
	assert.Equal(t, int32(2), f.specReplicas())

	// Removed: scale-out resumes and the condition goes.
	f.annotate(map[string]*string{out: nil})
	require.Eventually(t, func() bool { return f.specReplicas() == 4 }, timeout, tick)
	assert.NotEmpty(t, f.eventsOnceThere("NotPaused", 1))
	f.waitForStatus("no DirectionPaused condition", func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		return meta.FindStatusCondition(st.Conditions, autoscalingv1alpha1.SeedAutoscalerDirectionPaused) == nil
	})

	// Demand falls to 10% with scale-in paused: the target keeps its 4 replicas.
	f.annotate(map[string]*string{in: ptr.To("true")})
	f.waitForReason(autoscalingv1alpha1.SeedAutoscalerDirectionPaused, "ScaleInPaused")
	f.metrics.setUsage(gardencorev1beta1.ResourceShoots, replicaName(f.name, 0), 10)
	f.metrics.setUsage(gardencorev1beta1.ResourceShoots, replicaName(f.name, 1), 10)
	f.clock.Step(time.Minute)
	f.waitForTargets("10%/50%")
	f.waitForReason(autoscalingv1alpha1.SeedAutoscalerScalingLimited, "ScaleInPaused")
	assert.Equal(t, int32(4), f.specReplicas())

	// paused-replicas wins: the target goes to 3, a scale-in, although scale-in is paused.
	f.annotate(map[string]*string{autoscalingv1alpha1.AnnotationPausedReplicas: ptr.To("3")})
	require.Eventually(t, func() bool { return f.specReplicas() == 3 }, timeout, tick)
	f.waitForStatus("the precedence in DirectionPaused", func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		c := meta.FindStatusCondition(st.Conditions, autoscalingv1alpha1.SeedAutoscalerDirectionPaused)
		return c != nil && c.Reason == "ScaleInPaused" &&
			strings.Contains(c.Message, `the annotation autoscaling.seedscaler.io/paused-replicas="3" takes precedence while it is set`)
	})

	// Without paused-replicas, scale-in is paused again; lifting it scales in to what the
	// set can remove (its two replicas without a seed).
	f.annotate(map[string]*string{autoscalingv1alpha1.AnnotationPausedReplicas: nil})
	f.clock.Step(time.Minute)
	f.waitForEvaluation()
	f.waitForReason(autoscalingv1alpha1.SeedAutoscalerScalingLimited, "ScaleInPaused")
	assert.Equal(t, int32(3), f.specReplicas())
	f.annotate(map[string]*string{in: ptr.To("false")})
	require.Eventually(t, func() bool { return f.specReplicas() == 2 }, timeout, tick)
	f.waitForReason(autoscalingv1alpha1.SeedAutoscalerDirectionPaused, "NotPaused")
	assert.Equal(t, metav1.ConditionFalse, f.condition(autoscalingv1alpha1.SeedAutoscalerDirectionPaused).Status)
}
