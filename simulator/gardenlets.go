package simulator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

// Reasons of the BackupBucketsReady condition the simulated gardenlets write.
const (
	ReasonBackupBucketsAvailable   = "BackupBucketsAvailable"
	ReasonBackupBucketsUnavailable = "BackupBucketsUnavailable"
)

// GardenletRuns says whether a gardenlet runs for a seed: for a seed registered by a
// ManagedSeed (named like the seed) once the ManagedSeed's shoot succeeded, and on while
// the shoot is reconciled again (its cluster exists: a reconcile in flight or failed does
// not stop it); for any other seed when renewUnmanaged is set. shootOperation looks up the
// lastOperation of a shoot by namespace and name (nil when it has none or does not exist).
func GardenletRuns(seedName string, managed map[string]*seedmanagementv1alpha1.ManagedSeed, shootOperation func(namespace, name string) *gardencorev1beta1.LastOperation, renewUnmanaged bool) bool {
	ms, ok := managed[seedName]
	if !ok {
		return renewUnmanaged
	}
	if ms.Spec.Shoot == nil {
		return false
	}
	op := shootOperation(ms.Namespace, ms.Spec.Shoot.Name)
	return op != nil && (op.State == gardencorev1beta1.LastOperationStateSucceeded || op.Type == gardencorev1beta1.LastOperationTypeReconcile)
}

// seedFaults are the faults injected by hand with the faults annotation on the seed.
func seedFaults(seed *gardencorev1beta1.Seed) []FaultType {
	var out []FaultType
	for f := range strings.SplitSeq(seed.Annotations[AnnotationFaults], ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, FaultType(f))
		}
	}
	return out
}

func (s *Simulator) faulty(seed *gardencorev1beta1.Seed, typ FaultType, elapsed time.Duration) bool {
	return FaultActive(s.cfg.Faults, typ, seed.Name, elapsed) || slices.Contains(seedFaults(seed), typ)
}

// shootOperations looks up the last operation of the ManagedSeeds' shoots in a list of
// shoots. Only the ManagedSeeds' own shoots are kept: a map of every shoot would be built and
// thrown away each tick.
func shootOperations(managedSeeds []seedmanagementv1alpha1.ManagedSeed, shoots []gardencorev1beta1.Shoot) func(namespace, name string) *gardencorev1beta1.LastOperation {
	operations := make(map[types.NamespacedName]*gardencorev1beta1.LastOperation, len(managedSeeds))
	for i := range managedSeeds {
		if ms := &managedSeeds[i]; ms.Spec.Shoot != nil {
			operations[types.NamespacedName{Namespace: ms.Namespace, Name: ms.Spec.Shoot.Name}] = nil
		}
	}
	for i := range shoots {
		key := client.ObjectKeyFromObject(&shoots[i])
		if _, ok := operations[key]; ok {
			operations[key] = shoots[i].Status.LastOperation
		}
	}
	return func(namespace, name string) *gardencorev1beta1.LastOperation {
		return operations[types.NamespacedName{Namespace: namespace, Name: name}]
	}
}

// runGardenlets plays the gardenlets every tick until ctx ends, apart from the steps: it
// reads the seeds, the ManagedSeeds and only their own shoots.
func (s *Simulator) runGardenlets(ctx context.Context) {
	ticker := s.clock.NewTicker(s.cfg.Tick.Duration)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
		}
		s.stateMu.Lock()
		started, start := s.started, s.start
		s.stateMu.Unlock()
		if !started {
			continue // the first step has not read the landscape yet
		}
		seeds := &gardencorev1beta1.SeedList{}
		managedSeeds := &seedmanagementv1alpha1.ManagedSeedList{}
		if err := errors.Join(s.client.List(ctx, seeds), s.client.List(ctx, managedSeeds)); err != nil {
			log.FromContext(ctx).Error(err, "Listing the seeds for the gardenlets")
			continue
		}
		operation := func(namespace, name string) *gardencorev1beta1.LastOperation {
			shoot := &gardencorev1beta1.Shoot{}
			if err := s.client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, shoot); err != nil {
				return nil
			}
			return shoot.Status.LastOperation
		}
		now := s.clock.Now()
		if errs := s.reconcileGardenlets(ctx, seeds.Items, managedSeeds.Items, operation, now, s.simulated(now.Sub(start))); len(errs) > 0 {
			log.FromContext(ctx).Error(errors.Join(errs...), "Playing the gardenlets")
		}
	}
}

// reconcileGardenlets renews the heartbeat Lease of every seed whose gardenlet runs and
// reports its backup buckets, unless a fault says otherwise.
func (s *Simulator) reconcileGardenlets(ctx context.Context, seeds []gardencorev1beta1.Seed, managedSeeds []seedmanagementv1alpha1.ManagedSeed,
	shootOperation func(namespace, name string) *gardencorev1beta1.LastOperation, now time.Time, elapsed time.Duration) []error {
	managed := make(map[string]*seedmanagementv1alpha1.ManagedSeed, len(managedSeeds))
	for i := range managedSeeds {
		managed[managedSeeds[i].Name] = &managedSeeds[i]
	}

	// A heartbeat more often than once a tick cannot be kept anyway.
	interval := max(s.real(s.cfg.Gardenlets.HeartbeatInterval.Duration), s.cfg.Tick.Duration)
	if err := s.ensureNamespace(ctx, LeaseNamespace); err != nil {
		return []error{err}
	}
	var errs errorList
	s.forEach(len(seeds), func(i int) {
		seed := &seeds[i]
		if !GardenletRuns(seed.Name, managed, shootOperation, *s.cfg.Gardenlets.RenewUnmanagedSeeds) {
			return
		}
		if !s.faulty(seed, FaultHeartbeat, elapsed) {
			s.stateMu.Lock()
			last, ok := s.lastHeartbeat[seed.Name]
			s.stateMu.Unlock()
			if !ok || now.Sub(last) >= interval {
				if err := s.renewLease(ctx, seed.Name, interval, now); err != nil {
					errs.add(err)
				} else {
					s.stateMu.Lock()
					s.lastHeartbeat[seed.Name] = now
					s.stateMu.Unlock()
				}
			}
		}
		if seed.Spec.Backup != nil {
			if err := s.reportBackup(ctx, seed, !s.faulty(seed, FaultBackup, elapsed), now); err != nil {
				errs.add(err)
			}
		}
	})
	return errs.errs
}

func (s *Simulator) renewLease(ctx context.Context, seedName string, interval time.Duration, now time.Time) error {
	renew := metav1.NewMicroTime(now)
	lease := &coordinationv1.Lease{}
	err := s.client.Get(ctx, client.ObjectKey{Namespace: LeaseNamespace, Name: seedName}, lease)
	if apierrors.IsNotFound(err) {
		lease = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: LeaseNamespace, Name: seedName},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity:       ptr.To("gardenlet-" + seedName),
				LeaseDurationSeconds: ptr.To(int32(math.Ceil(3 * interval.Seconds()))),
				AcquireTime:          &renew,
				RenewTime:            &renew,
			},
		}
		if err := s.client.Create(ctx, lease); err != nil && !apierrors.IsAlreadyExists(err) {
			// AlreadyExists: a cache had not seen it yet; the next heartbeat renews it.
			return fmt.Errorf("creating the heartbeat Lease of seed %s: %w", seedName, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the heartbeat Lease of seed %s: %w", seedName, err)
	}
	orig := lease.DeepCopy()
	lease.Spec.RenewTime = &renew
	lease.Spec.HolderIdentity = ptr.To("gardenlet-" + seedName)
	if err := s.client.Patch(ctx, lease, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("renewing the heartbeat Lease of seed %s: %w", seedName, err)
	}
	return nil
}

// reportBackup sets the seed's BackupBucketsReady condition with a server-side apply of that
// one condition, so no other condition or status field is touched.
func (s *Simulator) reportBackup(ctx context.Context, seed *gardencorev1beta1.Seed, ready bool, now time.Time) error {
	status, reason, message := metav1.ConditionTrue, ReasonBackupBucketsAvailable, "The seed's backup buckets are available (simulated)."
	if !ready {
		status, reason, message = metav1.ConditionFalse, ReasonBackupBucketsUnavailable, "The seed's backup buckets are unavailable (simulated fault)."
	}
	if c := meta.FindStatusCondition(seed.Status.Conditions, gardencorev1beta1.SeedBackupBucketsReady); c != nil && c.Status == status && c.Reason == reason {
		return nil
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gardencorev1beta1.GroupVersion.WithKind("Seed"))
	u.SetName(seed.Name)
	condition := map[string]any{
		"type":               gardencorev1beta1.SeedBackupBucketsReady,
		"status":             string(status),
		"reason":             reason,
		"message":            message,
		"lastTransitionTime": now.UTC().Format(time.RFC3339),
	}
	if err := unstructured.SetNestedSlice(u.Object, []any{condition}, "status", "conditions"); err != nil {
		return err
	}
	if err := s.client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("setting condition %s of seed %s: %w", gardencorev1beta1.SeedBackupBucketsReady, seed.Name, err)
	}
	log.FromContext(ctx).Info("Seed backup buckets", "seed", klog.KObj(seed), "ready", ready)
	return nil
}

func createNamespace(ctx context.Context, c client.Client, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return nil
}
