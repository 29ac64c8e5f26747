package autoscaler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
)

func TestReadDirectionPause(t *testing.T) {
	const (
		in  = autoscalingv1alpha1.AnnotationPausedScaleIn
		out = autoscalingv1alpha1.AnnotationPausedScaleOut
	)
	tests := []struct {
		name        string
		annotations map[string]string
		wantPaused  recommend.PausedDirections
		wantSet     bool
		wantStatus  metav1.ConditionStatus
		wantReason  controllerutils.Reason
		wantMessage []string
	}{
		{name: "no annotation", annotations: map[string]string{"other": "true"}},
		{name: "scale-in", annotations: map[string]string{in: "true"}, wantPaused: recommend.PausedDirections{ScaleIn: true}, wantSet: true,
			wantStatus: metav1.ConditionTrue, wantReason: recommend.ReasonScaleInPaused,
			wantMessage: []string{"scale-in is paused by the annotation autoscaling.seedscaler.io/paused-scale-in", `set it to "false" or remove it to resume`}},
		{name: "scale-out", annotations: map[string]string{out: "true", in: "false"}, wantPaused: recommend.PausedDirections{ScaleOut: true}, wantSet: true,
			wantStatus: metav1.ConditionTrue, wantReason: recommend.ReasonScaleOutPaused,
			wantMessage: []string{"scale-out is paused by the annotation autoscaling.seedscaler.io/paused-scale-out"}},
		{name: "both", annotations: map[string]string{in: "true", out: "true"}, wantPaused: recommend.PausedDirections{ScaleIn: true, ScaleOut: true}, wantSet: true,
			wantStatus: metav1.ConditionTrue, wantReason: recommend.ReasonScaleInAndOutPaused,
			wantMessage: []string{"holds the target at its replicas and goes on measuring"}},
		{name: "false is not paused, and said", annotations: map[string]string{in: "false"}, wantSet: true,
			wantStatus: metav1.ConditionFalse, wantReason: recommend.ReasonNotPaused},
		{name: "an invalid value holds its direction and names the fix", annotations: map[string]string{in: "yes", out: "false"},
			wantPaused: recommend.PausedDirections{ScaleIn: true}, wantSet: true, wantStatus: metav1.ConditionTrue, wantReason: recommend.ReasonInvalidPauseAnnotation,
			wantMessage: []string{`annotation autoscaling.seedscaler.io/paused-scale-in="yes" is neither "true" nor "false"`, `scale-in is held as if it were "true"`}},
		{name: "spelling is exact", annotations: map[string]string{out: "True"},
			wantPaused: recommend.PausedDirections{ScaleOut: true}, wantSet: true, wantStatus: metav1.ConditionTrue, wantReason: recommend.ReasonInvalidPauseAnnotation,
			wantMessage: []string{`annotation autoscaling.seedscaler.io/paused-scale-out="True"`}},
		{name: "paused-replicas takes precedence", annotations: map[string]string{in: "true", autoscalingv1alpha1.AnnotationPausedReplicas: "3"},
			wantPaused: recommend.PausedDirections{ScaleIn: true}, wantSet: true, wantStatus: metav1.ConditionTrue, wantReason: recommend.ReasonScaleInPaused,
			wantMessage: []string{`the annotation autoscaling.seedscaler.io/paused-replicas="3" takes precedence while it is set`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := readDirectionPause(tt.annotations)
			assert.Equal(t, tt.wantPaused, p.paused)
			assert.Equal(t, tt.wantSet, p.set)
			if !tt.wantSet {
				return
			}
			assert.Equal(t, tt.wantStatus, p.condition.Status)
			assert.Equal(t, tt.wantReason, p.condition.Reason)
			for _, m := range tt.wantMessage {
				assert.Contains(t, p.condition.Message, m)
			}
		})
	}
}

// paused-replicas takes what the API allows a set's replicas: 0 to 1000. Above it, as for
// any value that is not a number of replicas, the target holds where it is and the
// condition names the annotation, its value and the bound.
func TestPausedReplicasAreBounded(t *testing.T) {
	const current = 5
	decided := recommend.Decision{DesiredReplicas: 7, Reason: "decided"}
	tests := []struct {
		value        string
		wantReplicas int32
		wantReason   controllerutils.Reason
	}{
		{value: "0", wantReplicas: 0, wantReason: recommend.ReasonScalingPaused},
		{value: "3", wantReplicas: 3, wantReason: recommend.ReasonScalingPaused},
		{value: "1000", wantReplicas: 1000, wantReason: recommend.ReasonScalingPaused},
		{value: "1001", wantReplicas: current, wantReason: recommend.ReasonInvalidPausedReplicas},
		{value: "30000", wantReplicas: current, wantReason: recommend.ReasonInvalidPausedReplicas},
		{value: "2147483647", wantReplicas: current, wantReason: recommend.ReasonInvalidPausedReplicas},
		{value: "-1", wantReplicas: current, wantReason: recommend.ReasonInvalidPausedReplicas},
		{value: "three", wantReplicas: current, wantReason: recommend.ReasonInvalidPausedReplicas},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			sa := &autoscalingv1alpha1.SeedAutoscaler{ObjectMeta: metav1.ObjectMeta{
				Annotations: map[string]string{autoscalingv1alpha1.AnnotationPausedReplicas: tt.value},
			}}
			d := pause(sa, current, decided)
			assert.Equal(t, tt.wantReplicas, d.DesiredReplicas)
			assert.Equal(t, tt.wantReason, d.ScalingActive.Reason)
			if tt.wantReason == recommend.ReasonInvalidPausedReplicas {
				assert.Equal(t, `annotation autoscaling.seedscaler.io/paused-replicas="`+tt.value+`" is not a whole number of replicas from 0 to 1000 (such as "3"): the autoscaler holds the target at its 5 replicas until the annotation is corrected or removed`,
					d.ScalingActive.Message)
			}
		})
	}
}

// A consolidation drain only prepares a scale-in: pausing scale-in gives it up.
func TestPausedScaleInCancelsAConsolidationDrain(t *testing.T) {
	ms := &seedmanagementv1alpha1.ManagedSeed{ObjectMeta: metav1.ObjectMeta{Name: "s-0"}}
	obs := &observation{current: 3, seeds: map[string]*gardencorev1beta1.Seed{}}
	r := &Reconciler{}
	hold := recommend.Decision{DesiredReplicas: 3}
	assert.Empty(t, r.cancelReason(obs, ms, hold, false, false))
	assert.Equal(t, "scale-in is paused by the annotation autoscaling.seedscaler.io/paused-scale-in, so the emptied seed would not be removed",
		r.cancelReason(obs, ms, hold, false, true))
}
