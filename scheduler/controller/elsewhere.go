package controller

import (
	"strings"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
)

// GardenerSchedulingFailed begins the status.lastOperation description gardener-scheduler
// writes on a shoot it cannot place, beside a SchedulingFailed event. This scheduler words
// its own report "Failed to schedule shoot:", so the shoots another seedscaler scheduler
// reports (and counts in its own pending-fit) are not counted twice.
const GardenerSchedulingFailed = "Failed to schedule Shoot"

// ReportedUnschedulable says whether a shoot's scheduler reported that it cannot place the
// shoot, as gardener-scheduler reports it: status.lastOperation of type Create and state
// Pending whose description begins with GardenerSchedulingFailed. The status, not the
// event: the scheduler caches shoots anyway, and a watch of events would cache every
// event of the garden.
func ReportedUnschedulable(shoot *gardencorev1beta1.Shoot) bool {
	op := shoot.Status.LastOperation
	return op != nil &&
		op.Type == gardencorev1beta1.LastOperationTypeCreate &&
		op.State == gardencorev1beta1.LastOperationStatePending &&
		strings.HasPrefix(op.Description, GardenerSchedulingFailed)
}

// PendingElsewhere says whether a shoot that another scheduler places counts in
// pending-fit: it is not this scheduler's (Responsible), has no seed, is not being deleted,
// and its scheduler reported it unschedulable. Such a shoot asks a ManagedSeedSet for a new
// seed as the scheduler's own unschedulable shoots do; the scheduler never binds it.
func PendingElsewhere(shoot *gardencorev1beta1.Shoot, schedulerName string) bool {
	return !Responsible(shoot, schedulerName) &&
		shoot.Spec.SeedName == nil &&
		shoot.DeletionTimestamp == nil &&
		ReportedUnschedulable(shoot)
}

// StopsWaiting says whether an update of a shoot ends its wait for a seed: it had none and
// now has one, or its deletion began. The shoot then leaves pending-fit at once, whichever
// scheduler placed it.
func StopsWaiting(old, cur *gardencorev1beta1.Shoot) bool {
	if old.Spec.SeedName != nil {
		return false
	}
	return cur.Spec.SeedName != nil || (old.DeletionTimestamp == nil && cur.DeletionTimestamp != nil)
}
