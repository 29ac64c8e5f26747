package controllerutils

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
)

// EventReason is the reason of an event together with its type: declare event reasons as
// constants of Normal, for what went as intended, or Warning, for what someone should look
// at, such as
//
//	const EventSeedRegistered = controllerutils.Normal("SeedRegistered")
type EventReason interface {
	// Type is the event's type, Normal or Warning.
	Type() string
	// Reason is the event's reason.
	Reason() string
}

// Normal is the reason of an event of type Normal.
type Normal Reason

// Warning is the reason of an event of type Warning.
type Warning Reason

// Type is the event type, Normal.
func (Normal) Type() string { return corev1.EventTypeNormal }

// Reason is the event reason.
func (n Normal) Reason() string { return string(n) }

// Type is the event type, Warning.
func (Warning) Type() string { return corev1.EventTypeWarning }

// Reason is the event reason.
func (w Warning) Reason() string { return string(w) }

// Event records an event about regarding (and related, which may be nil) with the reason's
// type. action says what the controller did or tried (Register, Delete, Scale); note is a
// sentence, formatted with args. A nil recorder records nothing.
func Event(recorder events.EventRecorder, regarding, related runtime.Object, reason EventReason, action, note string, args ...any) {
	if recorder == nil {
		return
	}
	recorder.Eventf(regarding, related, reason.Type(), reason.Reason(), action, note, args...)
}
