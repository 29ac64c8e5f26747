package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/controller"
	"github.com/seedscaler/seedscaler/scheduler/placement"
)

// Path is where the webhook is served; the chart's ValidatingWebhookConfiguration names it.
const Path = "/validate-shoot-binding"

// EventSeedBindingForced is the reason of the event that records a forced binding.
const EventSeedBindingForced = "SeedBindingForced"

// auditAnnotation is the key (prefixed by the kube-apiserver with the webhook's name) under
// which the audit event of a forced binding records it.
const auditAnnotation = "forced-binding"

// errNotSynced: the replica has not yet seen every seed and shoot, and could wrongly admit a
// binding onto a full seed.
var errNotSynced = errors.New("the scheduler has not yet seen every seed and shoot; try again in a moment")

// Checker judges a placement someone else makes as the scheduler judges its own
// (*placement.Placer): with its filters, on its seeds and usage, under its lock.
type Checker interface {
	Check(ctx context.Context, shoot *gardencorev1beta1.Shoot, judge func(placement.View)) error
}

// Webhook checks bindings of Shoots with the scheduler it is served by.
type Webhook struct {
	// Checker judges a binding on the scheduler's view.
	Checker Checker
	// SchedulerName is the scheduler whose shoots the webhook checks.
	SchedulerName string
	// Synced reports whether the scheduler has seen every seed and shoot of the initial
	// lists; the webhook judges nothing before.
	Synced func() bool
	// SchedulerUsername is the user the scheduler's own requests come as; its binds were
	// checked when it decided them and pass.
	SchedulerUsername string
	// Decoder decodes the request's Shoots.
	Decoder admission.Decoder
	// Recorder records forced bindings.
	Recorder events.EventRecorder
}

// Handle answers one admission request for a Shoot.
func (w *Webhook) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.UserInfo.Username == w.SchedulerUsername {
		return admission.Allowed("the scheduler's own binding")
	}
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	shoot := &gardencorev1beta1.Shoot{}
	if err := w.Decoder.DecodeRaw(req.Object, shoot); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the Shoot: %w", err))
	}
	var old *gardencorev1beta1.Shoot
	if req.Operation == admissionv1.Update {
		old = &gardencorev1beta1.Shoot{}
		if err := w.Decoder.DecodeRaw(req.OldObject, old); err != nil {
			return admission.Errored(http.StatusBadRequest, fmt.Errorf("decoding the old Shoot: %w", err))
		}
	}
	b, ok := BindingOf(old, shoot)
	if !ok {
		return admission.Allowed("spec.seedName is not set or not changed")
	}
	if !controller.Responsible(shoot, w.SchedulerName) {
		return admission.Allowed("the shoot is another scheduler's")
	}
	if w.Synced != nil && !w.Synced() {
		return admission.Errored(http.StatusServiceUnavailable, errNotSynced)
	}

	v := w.check(ctx, b)
	if !v.Allowed {
		return admission.Denied(v.Message)
	}
	if v.Rejection == nil {
		return admission.Allowed("")
	}
	w.recordForced(ctx, req, b, v)
	res := admission.Allowed("").WithWarnings(v.Message)
	res.AuditAnnotations = map[string]string{
		auditAnnotation: fmt.Sprintf("seed %s: %s: %s; forced by %s: %s", b.Seed, v.Rejection.Reason, v.Rejection.Message, req.UserInfo.Username, v.Forced),
	}
	return res
}

// check judges the binding on the scheduler's view. The seeds and their usage are read
// under the lock of the scheduler's decisions (placement.Placer's Check), so that the check
// sees the scheduler's binds reserved but not yet seen by the informer.
func (w *Webhook) check(ctx context.Context, b Binding) Verdict {
	var v Verdict
	if err := w.Checker.Check(ctx, b.Shoot, func(view placement.View) {
		v = Check(view.Decider, view.Input, view.Seed(b.Seed), view.Seed(b.From), b)
	}); err != nil {
		return Unjudged(b, err)
	}
	return v
}

// recordForced leaves the audit trail of a forced binding: a log line and an event on the
// Shoot naming who forced what past which rejection. A dry run records nothing.
func (w *Webhook) recordForced(ctx context.Context, req admission.Request, b Binding, v Verdict) {
	if ptr.Deref(req.DryRun, false) {
		return
	}
	logr.FromContextOrDiscard(ctx).Info("Seed binding forced past the scheduler's check",
		"shoot", klog.KObj(b.Shoot), "seed", klog.KRef("", b.Seed), "user", req.UserInfo.Username,
		"reason", v.Rejection.Reason, "rejection", v.Rejection.Message, "why", v.Forced)
	w.Recorder.Eventf(b.Shoot, nil, corev1.EventTypeWarning, EventSeedBindingForced, "Bind",
		"%s forced the binding to seed %s (%s), which the scheduler refuses: %s: %s",
		req.UserInfo.Username, b.Seed, v.Forced, v.Rejection.Reason, v.Rejection.Message)
}
