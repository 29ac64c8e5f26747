package autoscaler

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
)

// pause applies the pause annotation to a decision: the target goes to the paused replicas;
// with a value that is not a number of replicas the API allows, it stays where it is.
func pause(sa *autoscalingv1alpha1.SeedAutoscaler, current int32, d recommend.Decision) recommend.Decision {
	v, ok := sa.Annotations[autoscalingv1alpha1.AnnotationPausedReplicas]
	if !ok {
		return d
	}
	n, ok := pausedReplicas(v)
	if !ok {
		return recommend.Pause(d, current, controllerutils.False(recommend.ReasonInvalidPausedReplicas, fmt.Sprintf(
			"annotation %s=%q is not a whole number of replicas from 0 to %d (such as \"3\"): the autoscaler holds the target at its %d replicas until the annotation is corrected or removed",
			autoscalingv1alpha1.AnnotationPausedReplicas, v, autoscalingv1alpha1.MaxReplicasLimit, current)))
	}
	return recommend.Pause(d, n, controllerutils.False(recommend.ReasonScalingPaused, fmt.Sprintf(
		"paused at %d replicas by the annotation %s; remove it to resume autoscaling", n, autoscalingv1alpha1.AnnotationPausedReplicas)))
}

// pausedReplicas reads the paused-replicas annotation: a whole number from 0 to the most
// replicas the API allows. No schema checks an annotation, so the bound is here: a typo
// such as 30000 must not ask for thousands of seeds.
func pausedReplicas(v string) (int32, bool) {
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || n < 0 || n > autoscalingv1alpha1.MaxReplicasLimit {
		return 0, false
	}
	return int32(n), true
}

// directionPause is what the paused-scale-in and paused-scale-out annotations say.
type directionPause struct {
	// paused are the directions held.
	paused recommend.PausedDirections
	// condition is the DirectionPaused condition; meaningful only when set.
	condition controllerutils.Outcome
	// set is false when neither annotation is there: then there is no condition either.
	set bool
}

// readDirectionPause reads the paused-scale-in and paused-scale-out annotations. A value
// other than "true" or "false" holds its direction, as "true" would: whoever wrote it meant
// to pause something, and the condition names the annotation and the values it takes.
func readDirectionPause(annotations map[string]string) directionPause {
	var p directionPause
	var invalid []string
	read := func(annotation, direction string) bool {
		v, ok := annotations[annotation]
		if !ok {
			return false
		}
		p.set = true
		switch v {
		case "true":
			return true
		case "false":
			return false
		}
		invalid = append(invalid, fmt.Sprintf(
			"annotation %s=%q is neither \"true\" nor \"false\": %s is held as if it were \"true\" until the annotation is corrected (\"true\" pauses %s, \"false\" or no annotation resumes it)",
			annotation, v, direction, direction))
		return true
	}
	p.paused.ScaleIn = read(autoscalingv1alpha1.AnnotationPausedScaleIn, "scale-in")
	p.paused.ScaleOut = read(autoscalingv1alpha1.AnnotationPausedScaleOut, "scale-out")
	if !p.set {
		return p
	}

	resume := "; set it to \"false\" or remove it to resume"
	switch {
	case len(invalid) > 0:
		p.condition = controllerutils.True(recommend.ReasonInvalidPauseAnnotation, strings.Join(invalid, "; "))
	case p.paused.ScaleIn && p.paused.ScaleOut:
		p.condition = controllerutils.True(recommend.ReasonScaleInAndOutPaused, fmt.Sprintf(
			"scale-in and scale-out are paused by the annotations %s and %s: the autoscaler holds the target at its replicas and goes on measuring; set them to \"false\" or remove them to resume",
			autoscalingv1alpha1.AnnotationPausedScaleIn, autoscalingv1alpha1.AnnotationPausedScaleOut))
	case p.paused.ScaleIn:
		p.condition = controllerutils.True(recommend.ReasonScaleInPaused, fmt.Sprintf(
			"scale-in is paused by the annotation %s: the autoscaler may add replicas but removes none%s",
			autoscalingv1alpha1.AnnotationPausedScaleIn, resume))
	case p.paused.ScaleOut:
		p.condition = controllerutils.True(recommend.ReasonScaleOutPaused, fmt.Sprintf(
			"scale-out is paused by the annotation %s: the autoscaler may remove replicas but adds none%s",
			autoscalingv1alpha1.AnnotationPausedScaleOut, resume))
	default:
		p.condition = controllerutils.False(recommend.ReasonNotPaused, "neither scale-in nor scale-out is paused: the pause annotations say \"false\"")
	}
	if v, ok := annotations[autoscalingv1alpha1.AnnotationPausedReplicas]; ok && p.condition.IsTrue() {
		p.condition.Message += fmt.Sprintf("; the annotation %s=%q takes precedence while it is set", autoscalingv1alpha1.AnnotationPausedReplicas, v)
	}
	return p
}

// holdDirections applies the paused-scale-in and paused-scale-out annotations to a decision
// and says so in the DirectionPaused condition, with an event each time it changes. Without
// either annotation there is no condition.
func (r *Reconciler) holdDirections(sa *autoscalingv1alpha1.SeedAutoscaler, current int32, d recommend.Decision) recommend.Decision {
	p := readDirectionPause(sa.Annotations)
	if !p.set {
		if c := meta.FindStatusCondition(sa.Status.Conditions, autoscalingv1alpha1.SeedAutoscalerDirectionPaused); c != nil {
			meta.RemoveStatusCondition(&sa.Status.Conditions, autoscalingv1alpha1.SeedAutoscalerDirectionPaused)
			if c.Status == metav1.ConditionTrue {
				r.event(sa, EventNotPaused, "Evaluate", "neither scale-in nor scale-out is paused any more: the annotations %s and %s are gone",
					autoscalingv1alpha1.AnnotationPausedScaleIn, autoscalingv1alpha1.AnnotationPausedScaleOut)
			}
		}
		return d
	}
	if controllerutils.ConditionChanged(sa.Status.Conditions, autoscalingv1alpha1.SeedAutoscalerDirectionPaused, p.condition) {
		r.event(sa, directionPausedEvent(p.condition.Reason), "Evaluate", "%s", p.condition.Message)
	}
	r.setCondition(sa, autoscalingv1alpha1.SeedAutoscalerDirectionPaused, p.condition)
	return recommend.HoldDirections(d, current, p.paused)
}

// directionPausedEvent is the event of a reason of DirectionPaused: a Warning for a value
// that needs fixing, Normal for what someone chose.
func directionPausedEvent(reason controllerutils.Reason) controllerutils.EventReason {
	switch reason {
	case recommend.ReasonScaleInPaused:
		return EventScaleInPaused
	case recommend.ReasonScaleOutPaused:
		return EventScaleOutPaused
	case recommend.ReasonScaleInAndOutPaused:
		return EventScaleInAndOutPaused
	case recommend.ReasonNotPaused:
		return EventNotPaused
	default:
		return EventInvalidPauseAnnotation
	}
}
