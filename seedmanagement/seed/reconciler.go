// Package seed keeps the lifecycle status of every Seed, managed or not: GardenletReady from
// the seed's heartbeat Lease, and status.usage from the shoot usage index.
package seed

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/objectlock"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// LeaseNamespace holds one heartbeat Lease per seed, named like the seed, renewed by
// whoever runs the seed's gardenlet.
const LeaseNamespace = gardencorev1beta1.SeedLeaseNamespace

// DefaultHeartbeatGracePeriod is how long a heartbeat stays fresh: Gardener's default
// seed monitor period.
const DefaultHeartbeatGracePeriod = 40 * time.Second

// Reconciler writes GardenletReady and status.usage of Seeds. It owns nothing else in
// the seed's status: other conditions (BackupBucketsReady) and capacity are left alone.
type Reconciler struct {
	Client client.Client
	Clock  clock.Clock
	// Usage counts shoots per seed. The controller's shoot watch feeds it, so a seed is
	// reconciled only after the index has seen the shoot event that concerns it.
	Usage *usage.Index
	// GracePeriod is how long after its last renewal a heartbeat Lease counts as fresh.
	GracePeriod time.Duration
	// Replicas says how replicas of this controller share objects: nil or leader-election
	// mode reconciles every object here; object-locks mode locks each one (internal/objectlock).
	Replicas *objectlock.Replicas
}

// +kubebuilder:rbac:groups=core.gardener.cloud,resources=seeds,verbs=get;list;watch
// +kubebuilder:rbac:groups=core.gardener.cloud,resources=seeds/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=core.gardener.cloud,resources=shoots,verbs=get;list;watch
// Heartbeat Leases are read in LeaseNamespace only (a Role there), as the cache watches them.
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch,namespace=gardener-system-seed-lease

// Reconcile brings a seed's GardenletReady condition and shoot usage up to date and asks
// to be called again the moment a fresh heartbeat would go stale.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	log := logf.FromContext(ctx)

	seed := &gardencorev1beta1.Seed{}
	if err := r.Client.Get(ctx, req.NamespacedName, seed); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}

	renewTime, err := r.heartbeatRenewTime(ctx, seed.Name)
	if err != nil {
		return reconcile.Result{}, err
	}
	now := r.Clock.Now()
	heartbeat := GardenletReady(renewTime, now, r.GracePeriod)
	shoots := r.Usage.Count(seed.Name)

	before := seed.DeepCopy()
	wasReady := meta.FindStatusCondition(seed.Status.Conditions, gardencorev1beta1.SeedGardenletReady)
	controllerutils.SetCondition(&seed.Status.Conditions, gardencorev1beta1.SeedGardenletReady, heartbeat.Outcome, seed.Generation, now)
	setShootUsage(&seed.Status, shoots)
	// Optimistic lock: a merge patch replaces the whole conditions list, and other
	// writers (the simulator's BackupBucketsReady) must not be overwritten.
	if err := controllerutils.PatchStatus(ctx, r.Client, seed, before, true); err != nil {
		switch {
		case apierrors.IsConflict(err):
			// Someone else wrote the status meanwhile; start over from their version.
			return reconcile.Result{RequeueAfter: time.Second}, nil
		case apierrors.IsNotFound(err):
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if wasReady == nil || wasReady.Status != heartbeat.Status {
		var from metav1.ConditionStatus
		if wasReady != nil {
			from = wasReady.Status
		}
		log.Info("GardenletReady changed", "seed", klog.KObj(seed), "from", from, "to", heartbeat.Status, "reason", heartbeat.Reason)
	}
	return reconcile.Result{RequeueAfter: heartbeat.RecheckAfter}, nil
}

// heartbeatRenewTime returns when the seed's heartbeat Lease was last renewed, or nil
// when it has no Lease or one never renewed.
func (r *Reconciler) heartbeatRenewTime(ctx context.Context, seedName string) (*time.Time, error) {
	lease := &coordinationv1.Lease{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: LeaseNamespace, Name: seedName}, lease); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading the heartbeat Lease %s/%s of seed %s: %w", LeaseNamespace, seedName, seedName, err)
	}
	if lease.Spec.RenewTime == nil {
		return nil, nil
	}
	t := lease.Spec.RenewTime.Time
	return &t, nil
}

// setShootUsage sets status.usage.shoots, keeping other usage entries and the quantity's
// spelling while its value stays.
func setShootUsage(status *gardencorev1beta1.SeedStatus, shoots int) {
	want := resource.NewQuantity(int64(shoots), resource.DecimalSI)
	if have, ok := status.Usage[gardencorev1beta1.ResourceShoots]; ok && have.Cmp(*want) == 0 {
		return
	}
	if status.Usage == nil {
		status.Usage = corev1.ResourceList{}
	}
	status.Usage[gardencorev1beta1.ResourceShoots] = *want
}
