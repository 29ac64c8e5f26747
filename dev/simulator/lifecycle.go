package simulator

import (
	"math"
	"math/rand/v2"
	"time"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

// ShootAction is what the simulated infrastructure does next with a shoot that is not
// being deleted.
type ShootAction string

const (
	// ActionNone leaves the shoot as it is.
	ActionNone ShootAction = "None"
	// ActionCreate starts creating the shoot on its seed: Create/Processing, and
	// status.seedName follows spec.seedName.
	ActionCreate ShootAction = "Create"
	// ActionReconcile starts reconciling a changed spec: Reconcile/Processing.
	ActionReconcile ShootAction = "Reconcile"
	// ActionRetry retries a failed operation: Processing again, of the same type.
	ActionRetry ShootAction = "Retry"
	// ActionFinish ends the operation in flight: Succeeded, or Failed by the failure rate.
	ActionFinish ShootAction = "Finish"
	// ActionMigrate starts migrating the control plane of a running shoot whose
	// spec.seedName changed: Migrate/Processing, status.seedName still the old seed until
	// the migration succeeds.
	ActionMigrate ShootAction = "Migrate"
)

// ShootTransition is the next step of a shoot's lifecycle.
type ShootTransition struct {
	Action ShootAction
	// RemoveRetry removes the gardener.cloud/operation=retry annotation, which is consumed
	// whatever the state: Gardener removes it once it has acted on it.
	RemoveRetry bool
}

// NextShootTransition decides the next step of a bound shoot's lifecycle from its state,
// the time its operation in flight is due (zero when none is known) and now. An unbound
// shoot is left alone: it waits for the scheduler.
func NextShootTransition(shoot *gardencorev1beta1.Shoot, due, now time.Time) ShootTransition {
	spec := shoot.Spec.SeedName
	if spec == nil || *spec == "" {
		return ShootTransition{Action: ActionNone}
	}
	retry := shoot.Annotations[seedmanagementv1alpha1.AnnotationOperation] == seedmanagementv1alpha1.OperationRetry
	t := ShootTransition{Action: ActionNone, RemoveRetry: retry}
	op := shoot.Status.LastOperation
	switch {
	case shoot.Status.SeedName == nil || op == nil:
		// Newly bound; whatever lastOperation the scheduler left (Pending, Error) is not ours.
		t.Action = ActionCreate
	case *shoot.Status.SeedName != *spec:
		t.Action = nextMigrationAction(op, retry, due, now)
	case op.Type == gardencorev1beta1.LastOperationTypeMigrate && op.State == gardencorev1beta1.LastOperationStateFailed:
		// The failed migration was rolled back (spec.seedName names the old seed again):
		// the control plane is reconciled where it still runs.
		if shoot.Status.ObservedGeneration < shoot.Generation || retry {
			t.Action = ActionReconcile
		}
	case op.State == gardencorev1beta1.LastOperationStateProcessing:
		if !due.IsZero() && !now.Before(due) {
			t.Action = ActionFinish
		}
	case op.State == gardencorev1beta1.LastOperationStateFailed:
		if retry || shoot.Status.ObservedGeneration < shoot.Generation {
			t.Action = ActionRetry
		}
	case op.State == gardencorev1beta1.LastOperationStateSucceeded:
		if shoot.Status.ObservedGeneration < shoot.Generation {
			t.Action = ActionReconcile
		}
	default:
		t.Action = ActionCreate
	}
	return t
}

// nextMigrationAction is the next step of a shoot whose control plane runs on another seed
// than spec.seedName names: start a migration, end the one in flight when due, retry a
// failed one when asked to (otherwise it waits to be rolled back).
func nextMigrationAction(op *gardencorev1beta1.LastOperation, retry bool, due, now time.Time) ShootAction {
	if op.Type != gardencorev1beta1.LastOperationTypeMigrate {
		return ActionMigrate
	}
	switch op.State {
	case gardencorev1beta1.LastOperationStateProcessing:
		if !due.IsZero() && !now.Before(due) {
			return ActionFinish
		}
		return ActionNone
	case gardencorev1beta1.LastOperationStateFailed:
		if retry {
			return ActionRetry
		}
		return ActionNone
	}
	// A migration that succeeded and was followed by another change of spec.seedName.
	return ActionMigrate
}

// Jittered varies d by up to ±jitter·d; u is a uniform draw in [0, 1).
func Jittered(d time.Duration, jitter, u float64) time.Duration {
	return time.Duration(float64(d) * (1 + jitter*(2*u-1)))
}

// DrawLifetime draws a shoot lifetime; false means the shoot lives forever.
func DrawLifetime(l Lifetime, r *rand.Rand) (time.Duration, bool) {
	switch l.Distribution {
	case DistributionExponential:
		return time.Duration(r.ExpFloat64() * float64(l.Mean.Duration)), true
	case DistributionUniform:
		return l.Min.Duration + time.Duration(r.Float64()*float64(l.Max.Duration-l.Min.Duration)), true
	}
	return 0, false
}

// PickWeighted returns the index whose weight interval holds u·Σweights; u is a uniform
// draw in [0, 1). All weights zero picks index 0.
func PickWeighted(weights []float64, u float64) int {
	total := 0.0
	for _, w := range weights {
		total += math.Max(w, 0)
	}
	x := u * total
	for i, w := range weights {
		x -= math.Max(w, 0)
		if x < 0 {
			return i
		}
	}
	return 0
}

// FaultActive says whether a fault of the given type hits the seed at simulated time t.
func FaultActive(faults []Fault, typ FaultType, seed string, t time.Duration) bool {
	for _, f := range faults {
		if f.Type == typ && f.Seed == seed && t >= f.At.Duration && t < f.At.Duration+f.Duration.Duration {
			return true
		}
	}
	return false
}
