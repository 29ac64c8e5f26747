package simulator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
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
	"github.com/seedscaler/seedscaler/internal/usage"
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

// shootView is what the gardenlets read of the shoots.
type shootView struct {
	// shoot returns a ManagedSeed's shoot by namespace and name; nil when it does not exist.
	shoot func(namespace, name string) *gardencorev1beta1.Shoot
	// hosted returns the shoots (namespace/name) a seed hosts: by spec.seedName, or by
	// status.seedName while a control plane migrates away. Only deletions in a garden ask.
	hosted func(seed string) ([]string, error)
}

// operation is the last operation of a ManagedSeed's shoot; nil when it has none or does
// not exist.
func (v shootView) operation(namespace, name string) *gardencorev1beta1.LastOperation {
	if shoot := v.shoot(namespace, name); shoot != nil {
		return shoot.Status.LastOperation
	}
	return nil
}

// parentSeed is the seed a ManagedSeed's shoot runs on, whose gardenlet deploys the
// ManagedSeed's gardenlet; nil when ms is nil or the seed is unknown.
func parentSeed(ms *seedmanagementv1alpha1.ManagedSeed, shoots shootView, seeds map[string]*gardencorev1beta1.Seed) *gardencorev1beta1.Seed {
	if ms == nil || ms.Spec.Shoot == nil {
		return nil
	}
	shoot := shoots.shoot(ms.Namespace, ms.Spec.Shoot.Name)
	if shoot == nil || shoot.Spec.SeedName == nil {
		return nil
	}
	return seeds[*shoot.Spec.SeedName]
}

// listedShoots is the view of a list of shoots. Only the ManagedSeeds' own shoots are kept
// by name, and the shoots per seed are counted only when asked: a map of every shoot would
// be built and thrown away each tick.
func listedShoots(managedSeeds []seedmanagementv1alpha1.ManagedSeed, shoots []gardencorev1beta1.Shoot) shootView {
	byName := make(map[types.NamespacedName]*gardencorev1beta1.Shoot, len(managedSeeds))
	for i := range managedSeeds {
		if ms := &managedSeeds[i]; ms.Spec.Shoot != nil {
			byName[types.NamespacedName{Namespace: ms.Namespace, Name: ms.Spec.Shoot.Name}] = nil
		}
	}
	for i := range shoots {
		key := client.ObjectKeyFromObject(&shoots[i])
		if _, ok := byName[key]; ok {
			byName[key] = &shoots[i]
		}
	}
	return shootView{
		shoot: func(namespace, name string) *gardencorev1beta1.Shoot {
			return byName[types.NamespacedName{Namespace: namespace, Name: name}]
		},
		hosted: hostedOnce(func() ([]gardencorev1beta1.Shoot, error) { return shoots, nil }),
	}
}

// hostedOnce counts the shoots of every seed from list, on the first question only.
func hostedOnce(list func() ([]gardencorev1beta1.Shoot, error)) func(seed string) ([]string, error) {
	var (
		once   sync.Once
		bySeed map[string][]string
		err    error
	)
	return func(seed string) ([]string, error) {
		once.Do(func() {
			var shoots []gardencorev1beta1.Shoot
			if shoots, err = list(); err != nil {
				return
			}
			bySeed = map[string][]string{}
			for i := range shoots {
				for _, name := range usage.SeedNames(&shoots[i]) {
					bySeed[name] = append(bySeed[name], usage.Key(&shoots[i]))
				}
			}
		})
		return bySeed[seed], err
	}
}

// runGardenlets plays the gardenlets every tick until ctx ends, apart from the steps: it
// reads the seeds, the ManagedSeeds and only their own shoots (every shoot only when a
// deletion in a garden needs the shoots of a seed).
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
		view := shootView{
			shoot: func(namespace, name string) *gardencorev1beta1.Shoot {
				shoot := &gardencorev1beta1.Shoot{}
				if err := s.client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, shoot); err != nil {
					return nil
				}
				return shoot
			},
			hosted: hostedOnce(func() ([]gardencorev1beta1.Shoot, error) {
				shoots := &gardencorev1beta1.ShootList{}
				err := s.client.List(ctx, shoots, client.UnsafeDisableDeepCopy)
				return shoots.Items, err
			}),
		}
		now := s.clock.Now()
		if errs := s.reconcileGardenlets(ctx, seeds.Items, managedSeeds.Items, view, now, s.simulated(now.Sub(start))); len(errs) > 0 {
			log.FromContext(ctx).Error(errors.Join(errs...), "Playing the gardenlets")
		}
	}
}

// reconcileGardenlets renews the heartbeat Lease of every seed whose gardenlet runs and
// reports its backup buckets, unless a fault says otherwise. In a garden the gardenlets
// also register and unregister the Seeds of ManagedSeeds and report their seeds' status.
func (s *Simulator) reconcileGardenlets(ctx context.Context, seeds []gardencorev1beta1.Seed, managedSeeds []seedmanagementv1alpha1.ManagedSeed,
	shoots shootView, now time.Time, elapsed time.Duration) []error {
	managed := make(map[string]*seedmanagementv1alpha1.ManagedSeed, len(managedSeeds))
	for i := range managedSeeds {
		managed[managedSeeds[i].Name] = &managedSeeds[i]
	}
	byName := make(map[string]*gardencorev1beta1.Seed, len(seeds))
	for i := range seeds {
		byName[seeds[i].Name] = &seeds[i]
	}
	var errs errorList
	var installations func() ([]unstructured.Unstructured, error)
	if s.Garden {
		installations = sync.OnceValues(func() ([]unstructured.Unstructured, error) {
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(gardencorev1beta1.GroupVersion.WithKind("ControllerInstallationList"))
			err := s.client.List(ctx, list)
			return list.Items, err
		})
		// The gardenlet of each ManagedSeed's parent seed registers, or unregisters, its Seed.
		s.forEach(len(managedSeeds), func(i int) {
			if err := s.reconcileManagedSeed(ctx, &managedSeeds[i], byName[managedSeeds[i].Name], shoots, now); err != nil {
				errs.add(err)
			}
		})
	}

	// A heartbeat more often than once a tick cannot be kept anyway.
	interval := max(s.real(s.cfg.Gardenlets.HeartbeatInterval.Duration), s.cfg.Tick.Duration)
	if err := s.ensureNamespace(ctx, LeaseNamespace); err != nil {
		return append(errs.errs, err)
	}
	s.forEach(len(seeds), func(i int) {
		seed := &seeds[i]
		if !GardenletRuns(seed.Name, managed, shoots.operation, *s.cfg.Gardenlets.RenewUnmanagedSeeds) {
			return
		}
		heartbeat := !s.faulty(seed, FaultHeartbeat, elapsed)
		if heartbeat {
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
		backupReady := !s.faulty(seed, FaultBackup, elapsed)
		if s.Garden {
			ms := managed[seed.Name]
			if err := s.reconcileGardenSeed(ctx, seed, ms, parentSeed(ms, shoots, byName), heartbeat, backupReady, shoots, installations, now); err != nil {
				errs.add(err)
			}
			return
		}
		if seed.Spec.Backup != nil {
			if err := s.reportBackup(ctx, seed, backupReady, now); err != nil {
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
	status, reason, message := backupCondition(ready)
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

// backupCondition is the BackupBucketsReady condition of a seed whose backup buckets are
// ready or, under a backup fault, not.
func backupCondition(ready bool) (metav1.ConditionStatus, string, string) {
	if !ready {
		return metav1.ConditionFalse, ReasonBackupBucketsUnavailable, "The seed's backup buckets are unavailable (simulated fault)."
	}
	return metav1.ConditionTrue, ReasonBackupBucketsAvailable, "The seed's backup buckets are available (simulated)."
}

func createNamespace(ctx context.Context, c client.Client, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return nil
}
