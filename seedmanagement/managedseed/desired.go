package managedseed

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/membership"
)

// Reasons of the ShootReconciled condition.
const (
	ReasonShootNotSpecified     controllerutils.Reason = "ShootNotSpecified"
	ReasonShootNotFound         controllerutils.Reason = "ShootNotFound"
	ReasonShootReconciling      controllerutils.Reason = "ShootReconciling"
	ReasonShootReconcileFailed  controllerutils.Reason = "ShootReconcileFailed"
	ReasonShootDeleting         controllerutils.Reason = "ShootDeleting"
	ReasonShootReconcileSucceed controllerutils.Reason = "ShootReconcileSucceeded"
)

// Reasons of the SeedRegistered condition.
const (
	ReasonWaitingForShoot controllerutils.Reason = "WaitingForShoot"
	ReasonInvalidSpec     controllerutils.Reason = "InvalidSpec"
	ReasonSeedConflict    controllerutils.Reason = "SeedConflict"
	ReasonSeedRegistered  controllerutils.Reason = "SeedRegistered"
	ReasonDeletionBlocked controllerutils.Reason = "DeletionBlocked"
	ReasonSeedDeleting    controllerutils.Reason = "SeedDeleting"
)

// Reasons of the events on a ManagedSeed; those that a condition reports too have its
// reason.
const (
	EventSeedRegistered  = controllerutils.Normal(ReasonSeedRegistered)
	EventSeedUpdated     = controllerutils.Normal("SeedUpdated")
	EventSeedConflict    = controllerutils.Warning(ReasonSeedConflict)
	EventDeletionBlocked = controllerutils.Warning(ReasonDeletionBlocked)
	EventSeedDeleted     = controllerutils.Normal("SeedDeleted")
)

// Finalizer on a ManagedSeed keeps it until its Seed is gone.
const Finalizer = "seedmanagement.gardener.cloud/managedseed"

// ShootReconciled decides the ShootReconciled condition from the ManagedSeed's shoot (nil
// when it does not exist). Only a shoot whose last create or reconcile succeeded is
// reconciled: the seed is registered, or updated, only then.
func ShootReconciled(shootName string, shoot *gardencorev1beta1.Shoot) controllerutils.Outcome {
	switch {
	case shootName == "":
		return controllerutils.False(ReasonShootNotSpecified, "spec.shoot.name is empty: name the Shoot, in the ManagedSeed's namespace, to register as a seed.")
	case shoot == nil:
		return controllerutils.False(ReasonShootNotFound, fmt.Sprintf("Waiting for Shoot %s to be created.", shootName))
	case shoot.DeletionTimestamp != nil:
		return controllerutils.False(ReasonShootDeleting, fmt.Sprintf("Shoot %s is being deleted.", shootName))
	}
	op := shoot.Status.LastOperation
	if op == nil {
		return controllerutils.False(ReasonShootReconciling, fmt.Sprintf("Waiting for Shoot %s to be reconciled for the first time.", shootName))
	}
	if op.Type == gardencorev1beta1.LastOperationTypeDelete {
		return controllerutils.False(ReasonShootDeleting, fmt.Sprintf("Shoot %s is being deleted (last operation %s %s).", shootName, op.Type, op.State))
	}
	switch op.State {
	case gardencorev1beta1.LastOperationStateSucceeded:
		return controllerutils.True(ReasonShootReconcileSucceed, fmt.Sprintf("Shoot %s was reconciled successfully.", shootName))
	case gardencorev1beta1.LastOperationStateFailed, gardencorev1beta1.LastOperationStateError, gardencorev1beta1.LastOperationStateAborted:
		msg := fmt.Sprintf("Shoot %s last %s ended %s", shootName, op.Type, op.State)
		if op.Description != "" {
			msg += ": " + op.Description
		}
		return controllerutils.False(ReasonShootReconcileFailed, msg+".")
	default:
		return controllerutils.False(ReasonShootReconciling, fmt.Sprintf("Waiting for Shoot %s: its %s is %s.", shootName, op.Type, op.State))
	}
}

// errNoSeedTemplate is returned for a gardenlet section without config.seedConfig.
var errNoSeedTemplate = errors.New("neither spec.seedTemplate nor spec.gardenlet.config.seedConfig is set: give the seed to register in one of them")

// seedTemplate returns the Seed template of a ManagedSeed: spec.seedTemplate, or the
// gardenlet configuration's seedConfig.
func seedTemplate(ms *seedmanagementv1alpha1.ManagedSeed) (*gardencorev1beta1.SeedTemplate, error) {
	if ms.Spec.SeedTemplate != nil {
		return ms.Spec.SeedTemplate, nil
	}
	if g := ms.Spec.Gardenlet; g != nil && g.Config != nil && g.Config.SeedConfig != nil {
		return g.Config.SeedConfig, nil
	}
	return nil, errNoSeedTemplate
}

// DesiredSeed is the Seed a ManagedSeed registers: named like the ManagedSeed, with the
// template's labels, annotations and spec, plus the labels that point back to the
// ManagedSeed and, for a replica of a ManagedSeedSet, to the set. The labels and
// annotations are exactly these: the ManagedSeed is the Seed's source of truth.
func DesiredSeed(ms *seedmanagementv1alpha1.ManagedSeed) (*gardencorev1beta1.Seed, error) {
	tmpl, err := seedTemplate(ms)
	if err != nil {
		return nil, err
	}
	labels := maps.Clone(tmpl.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[membership.LabelManagedSeedNamespace] = ms.Namespace
	delete(labels, seedmanagementv1alpha1.LabelManagedSeedSet)
	delete(labels, seedmanagementv1alpha1.LabelManagedSeedSetNamespace)
	if set, ok := membership.SetOf(ms); ok {
		labels[seedmanagementv1alpha1.LabelManagedSeedSet] = set.Name
		labels[seedmanagementv1alpha1.LabelManagedSeedSetNamespace] = set.Namespace
	}
	seed := &gardencorev1beta1.Seed{
		ObjectMeta: metav1.ObjectMeta{
			Name:        ms.Name,
			Labels:      labels,
			Annotations: maps.Clone(tmpl.Annotations),
		},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	return seed, nil
}

// KeepDrainAnnotations returns the desired annotations of a Seed plus the drain annotations
// (seedscaler.io/drain, seedscaler.io/drain-reason) someone put on the existing Seed: a
// Seed's annotations come from its ManagedSeed, except these, which an operator may set
// on the Seed itself to drain it.
func KeepDrainAnnotations(desired, existing map[string]string) map[string]string {
	for _, key := range []string{gardencorev1beta1.AnnotationDrain, gardencorev1beta1.AnnotationDrainReason} {
		v, ok := existing[key]
		if _, set := desired[key]; !ok || set {
			continue
		}
		if desired == nil {
			desired = map[string]string{}
		}
		desired[key] = v
	}
	return desired
}

// RegisteredBy reports whether seed was registered by the ManagedSeed ms.
func RegisteredBy(seed *gardencorev1beta1.Seed, ms *seedmanagementv1alpha1.ManagedSeed) bool {
	ns, ok := seed.Labels[membership.LabelManagedSeedNamespace]
	return ok && ns == ms.Namespace && seed.Name == ms.Name
}

// DeletionBlocked decides whether a ManagedSeed's Seed may be deleted given the shoots
// (namespace/name keys) that occupy it, and says why not.
func DeletionBlocked(seedName string, shoots []string) (bool, string) {
	if len(shoots) == 0 {
		return false, ""
	}
	const shown = 3
	names := shoots
	if len(names) > shown {
		names = names[:shown]
	}
	list := strings.Join(names, ", ")
	if len(shoots) > shown {
		list += fmt.Sprintf(" and %d more", len(shoots)-shown)
	}
	noun, pronoun := "shoots", "them"
	if len(shoots) == 1 {
		noun, pronoun = "shoot", "it"
	}
	return true, fmt.Sprintf("Seed %s still hosts %d %s (%s): move %s to other seeds or delete %s; the seed is deleted once it is empty.",
		seedName, len(shoots), noun, list, pronoun, pronoun)
}
