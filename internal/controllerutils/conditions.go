// Package controllerutils is the plumbing every controller of seedscaler shares: conditions,
// the one status write of a reconcile, finalizers and typed events.
package controllerutils

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Reason is the reason of a condition or an event: one UpperCamelCase word, such as
// SeedRegistered. Users match it in alerts and runbooks, so a reason, once shipped, keeps
// its spelling.
type Reason string

// Outcome is what a decision says of one condition: its status, reason and message (a
// sentence). Decisions return it; SetCondition writes it.
type Outcome struct {
	Status  metav1.ConditionStatus
	Reason  Reason
	Message string
}

// True is an outcome of status True.
func True(reason Reason, message string) Outcome {
	return Outcome{Status: metav1.ConditionTrue, Reason: reason, Message: message}
}

// False is an outcome of status False.
func False(reason Reason, message string) Outcome {
	return Outcome{Status: metav1.ConditionFalse, Reason: reason, Message: message}
}

// Unknown is an outcome of status Unknown.
func Unknown(reason Reason, message string) Outcome {
	return Outcome{Status: metav1.ConditionUnknown, Reason: reason, Message: message}
}

// IsTrue reports whether the outcome's status is True.
func (o Outcome) IsTrue() bool { return o.Status == metav1.ConditionTrue }

// SetCondition sets the condition of conditionType to the outcome, observed at generation,
// and reports whether its status, reason, message or observed generation changed. Its last
// transition time moves to now only when its status changes (or it is new).
func SetCondition(conditions *[]metav1.Condition, conditionType string, o Outcome, generation int64, now time.Time) bool {
	return meta.SetStatusCondition(conditions, metav1.Condition{
		Type:               conditionType,
		Status:             o.Status,
		Reason:             string(o.Reason),
		Message:            o.Message,
		ObservedGeneration: generation,
		LastTransitionTime: metav1.NewTime(now),
	})
}

// ConditionChanged reports whether the condition of conditionType in conditions, not yet
// set to the outcome, is missing or has another status or reason: the moment to record an
// event about the outcome, once and not on every reconcile while it holds.
func ConditionChanged(conditions []metav1.Condition, conditionType string, o Outcome) bool {
	c := meta.FindStatusCondition(conditions, conditionType)
	return c == nil || c.Status != o.Status || c.Reason != string(o.Reason)
}
