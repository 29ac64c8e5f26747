package drain

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/scheduler/controller"
)

// Rollback undoes failed control plane migrations of the scheduler's shoots: it sets
// spec.seedName back to status.seedName, where the control plane still runs. The shoot
// already counts there, so the roll-back needs no room; nothing is lost. A drain leaves the
// shoot where it is for the configured cool-down afterwards.
type Rollback struct {
	// Drain remembers the failure for its cool-down, and lends its client, clock, recorder
	// and scheduler.
	Drain *Reconciler
}

// Reconcile rolls back the shoot's migration when it failed.
func (r *Rollback) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	d := r.Drain
	// Whole and live: the description of the failure is not in the scheduler's cache.
	shoot := &gardencorev1beta1.Shoot{}
	if err := d.Reader.Get(ctx, req.NamespacedName, shoot); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	back, failed := FailedMigration(shoot)
	if !failed || !controller.Responsible(shoot, d.Config.SchedulerName) {
		return ctrl.Result{}, nil
	}
	to := ptr.Deref(shoot.Spec.SeedName, "")
	why := ""
	if op := shoot.Status.LastOperation; op != nil {
		why = op.Description
	}
	if err := d.Scheduler.Rebind(ctx, shoot, back); err != nil {
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil // the newer shoot comes with its own event
		}
		return ctrl.Result{}, fmt.Errorf("rolling back the migration of shoot %s to seed %s: %w", req, back, err)
	}
	// The cool-down counts from the roll-back on this controller's clock: the failure's
	// lastUpdateTime is the gardenlet's.
	d.recordFailure(usage.Key(shoot), d.Clock.Now())
	d.Scheduler.CountMigration(controller.MigrationRolledBack)
	logr.FromContextOrDiscard(ctx).Info("Rolled back a failed control plane migration", "shoot", klog.KObj(shoot), "seed", klog.KRef("", back), "failedSeed", klog.KRef("", to))
	controllerutils.Event(d.Recorder, shoot, nil, EventMigrationRolledBack, "Migrate",
		"%s", controllerutils.Truncate(fmt.Sprintf("The control plane migration to seed %s failed and was rolled back: the shoot stays on seed %s. %s", to, back, why), 1024))
	return ctrl.Result{}, nil
}
