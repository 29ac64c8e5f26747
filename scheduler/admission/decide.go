// Package admission checks the bindings the scheduler did not make: a validating webhook,
// served by the scheduler, that refuses a Shoot whose spec.seedName an operator (or any
// client other than the scheduler) sets to a seed the scheduler would not choose for it,
// with the reason the scheduler's own events give, unless the request forces the binding
// with an annotation that is recorded.
package admission

import (
	"fmt"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/scheduler/framework"
)

// AnnotationForceBinding on a Shoot forces the binding its request makes past the check;
// its value says why. Only those allowed to set spec.seedName may set it (the chart's
// ValidatingAdmissionPolicy), and every use is answered with a warning, recorded in the
// kube-apiserver's audit log and as an event on the Shoot.
const AnnotationForceBinding = "scheduling.gardener.cloud/force-binding"

// ReasonSeedNotFound means the seed a binding names does not exist.
const ReasonSeedNotFound framework.Reason = "SeedNotFound"

// ReasonInputUnavailable means what the filters read besides the seed (the shoot's CloudProfile)
// is missing, so the seed cannot be judged.
const ReasonInputUnavailable framework.Reason = "InputUnavailable"

// Binding is a request that binds a shoot to a seed, as the check reads it.
type Binding struct {
	// Shoot is the shoot as the request writes it.
	Shoot *gardencorev1beta1.Shoot
	// Seed is the spec.seedName the request sets.
	Seed string
	// Counted: the shoot already counts on Seed (its status.seedName, a control plane
	// migration going back), so it takes no further place there.
	Counted bool
	// From is the spec.seedName the request changes: the seed the shoot's control plane
	// leaves, a migration. Empty for a first binding.
	From string
}

// BindingOf says whether a request binds a shoot: it sets spec.seedName on a new shoot, or
// sets or changes it on an existing one (old is nil on create). A shoot being deleted is
// never bound.
func BindingOf(old, shoot *gardencorev1beta1.Shoot) (Binding, bool) {
	seed := seedName(shoot)
	if seed == "" || shoot.DeletionTimestamp != nil {
		return Binding{}, false
	}
	if old != nil && seedName(old) == seed {
		return Binding{}, false
	}
	b := Binding{Shoot: shoot, Seed: seed}
	if old != nil {
		b.From = seedName(old)
		for _, counted := range usage.SeedNames(old) {
			b.Counted = b.Counted || counted == seed
		}
	}
	return b, true
}

func seedName(shoot *gardencorev1beta1.Shoot) string {
	if shoot.Spec.SeedName == nil {
		return ""
	}
	return *shoot.Spec.SeedName
}

// Verdict is the answer to a binding.
type Verdict struct {
	// Allowed says whether the binding may be written.
	Allowed bool
	// Rejection is why the seed does not take the shoot; nil when it does.
	Rejection *framework.Rejection
	// Forced is the reason the override annotation gives, when it let a rejected binding
	// through.
	Forced string
	// Message is the denial, or the warning that a rejection was overridden.
	Message string
}

// Filters judge whether a seed takes a shoot (*framework.Profile, placement.Decider).
type Filters interface {
	// Feasible runs the filters on one seed: nil when the seed passes them all.
	Feasible(in *framework.Input, seed *framework.SeedInfo) *framework.Rejection
}

// Check judges a binding with the scheduler's filters (profile.Feasible), on the seed as the
// scheduler sees it (nil: no such seed) and with its usage, which must not yet count the
// shoot unless Binding.Counted says so. A migration (Binding.From) is judged as a move from
// the seed from, as the scheduler sees it (nil: no such seed), with the checks
// gardener-apiserver makes of it (the Migration filter). The strategy that ranks regions is
// not applied: a binding by hand is the choice of a seed the strategy would not rank first.
// in is not changed.
func Check(profile Filters, in *framework.Input, seed, from *framework.SeedInfo, b Binding) Verdict {
	var rej *framework.Rejection
	switch {
	case seed == nil:
		rej = &framework.Rejection{Seed: b.Seed, Status: framework.Status{Reason: ReasonSeedNotFound, Message: "no such seed exists"}}
	case b.From != "" && from == nil:
		rej = &framework.Rejection{Seed: b.Seed, Status: framework.Status{Reason: ReasonSeedNotFound,
			Message: fmt.Sprintf("seed %s, which the shoot's control plane would leave (the spec.seedName the request changes), does not exist, so the migration cannot be judged", b.From)}}
	default:
		judged := *in
		if from != nil {
			judged.MigratingFrom = from.Seed
		}
		if b.Counted {
			// The shoot's own place on the seed is not a new one.
			occupied := in.Usage
			judged.Usage = func(s *framework.SeedInfo) int { return occupied(s) - 1 }
		}
		rej = profile.Feasible(&judged, seed)
	}
	return Judge(b, rej)
}

// Unjudged is the verdict on a binding whose seed could not be judged because what the
// filters read besides the seed is missing (err says what).
func Unjudged(b Binding, err error) Verdict {
	return Judge(b, &framework.Rejection{Seed: b.Seed, Status: framework.Status{Reason: ReasonInputUnavailable, Message: err.Error()}})
}

// Judge turns a rejection (nil: the seed takes the shoot) into a verdict, honoring the
// override annotation.
func Judge(b Binding, rej *framework.Rejection) Verdict {
	if rej == nil {
		return Verdict{Allowed: true}
	}
	why := fmt.Sprintf("%s: %s", rej.Reason, rej.Message)
	force, annotated := b.Shoot.Annotations[AnnotationForceBinding]
	if force != "" {
		return Verdict{
			Allowed:   true,
			Rejection: rej,
			Forced:    force,
			Message: fmt.Sprintf("spec.seedName %q is forced by annotation %s (%q) although the seed does not take the shoot: %s",
				b.Seed, AnnotationForceBinding, force, why),
		}
	}
	msg := fmt.Sprintf("spec.seedName %q: the seed does not take the shoot: %s. Leave spec.seedName empty and the scheduler places the shoot", b.Seed, why)
	if annotated {
		msg += fmt.Sprintf("; annotation %s is present but empty: its value must say why the binding is forced", AnnotationForceBinding)
	} else {
		msg += fmt.Sprintf("; to bind it there anyway, an operator allowed to set spec.seedName adds the annotation %s: \"<why>\" in the same request", AnnotationForceBinding)
	}
	return Verdict{Rejection: rej, Message: msg}
}
