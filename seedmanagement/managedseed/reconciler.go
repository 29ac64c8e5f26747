// Package managedseed is the ManagedSeed half of the seed controller: once a ManagedSeed's
// Shoot has reconciled, it registers the Seed from the seed template or the gardenlet's
// seedConfig, keeps the Seed's metadata, spec, capacity and allocatable in step with the
// ManagedSeed, and deletes the Seed only when no shoot uses it any more.
package managedseed

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/membership"
	"github.com/seedscaler/seedscaler/internal/objectlock"
	"github.com/seedscaler/seedscaler/internal/setcapacity"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// DefaultDeletionRecheckInterval is how often a blocked deletion looks again even without
// a shoot or seed event: a backstop, since the informers that feed the usage index and
// this controller deliver events in no particular order relative to each other.
const DefaultDeletionRecheckInterval = 30 * time.Second

// Reconciler registers and deletes the Seeds of ManagedSeeds.
type Reconciler struct {
	Client   client.Client
	Clock    clock.Clock
	Recorder events.EventRecorder
	// Usage counts shoots per seed; the seed lifecycle controller feeds it.
	Usage *usage.Index
	// DefaultResources are the capacity of a seed whose ManagedSeed configures none
	// (DefaultResources() when nil).
	DefaultResources corev1.ResourceList
	// DeletionRecheckInterval is how often a blocked deletion is rechecked.
	DeletionRecheckInterval time.Duration
	// Replicas says how replicas of this controller share objects: nil or leader-election
	// mode reconciles every object here; object-locks mode locks each one (internal/objectlock).
	Replicas *objectlock.Replicas

	// shootsBySeed finds the cached shoots on a seed (seedNamesIndex).
	shootsBySeed *controllerutils.ClusterIndex[*gardencorev1beta1.Shoot]
}

// errSeedConflict is returned when the Seed exists but was not registered by this ManagedSeed.
var errSeedConflict = errors.New("seed registered by someone else")

// +kubebuilder:rbac:groups=seedmanagement.gardener.cloud,resources=managedseeds,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=seedmanagement.gardener.cloud,resources=managedseeds/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=seedmanagement.gardener.cloud,resources=managedseeds/finalizers,verbs=update
// +kubebuilder:rbac:groups=core.gardener.cloud,resources=seeds,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=core.gardener.cloud,resources=seeds/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=core.gardener.cloud,resources=shoots,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile gets the ManagedSeed, handles its deletion or ensures its finalizer, registers
// its Seed once the Shoot has reconciled, and writes the ManagedSeed's status once, at the end.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (result reconcile.Result, retErr error) {
	ms := &seedmanagementv1alpha1.ManagedSeed{}
	if err := r.Client.Get(ctx, req.NamespacedName, ms); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}

	before := ms.DeepCopy()
	defer func() {
		if apierrors.IsConflict(retErr) {
			// The cache was behind; try again soon, quietly, without claiming this generation.
			result, retErr = reconcile.Result{RequeueAfter: time.Second}, nil
		} else if retErr == nil {
			ms.Status.ObservedGeneration = ms.Generation
		}
		// A ManagedSeed that is gone (its finalizer was just removed) has no status to write.
		if err := controllerutils.PatchStatus(ctx, r.Client, ms, before, false); client.IgnoreNotFound(err) != nil {
			retErr = errors.Join(retErr, err)
		}
	}()

	if ms.DeletionTimestamp != nil {
		return r.reconcileDelete(ctx, ms)
	}
	if err := controllerutils.EnsureFinalizer(ctx, r.Client, ms, Finalizer); err != nil {
		return reconcile.Result{}, err
	}
	return r.reconcileNormal(ctx, ms)
}

// reconcileNormal waits for the shoot, then creates or updates the Seed and its status.
func (r *Reconciler) reconcileNormal(ctx context.Context, ms *seedmanagementv1alpha1.ManagedSeed) (reconcile.Result, error) {
	shootName := ""
	if ms.Spec.Shoot != nil {
		shootName = ms.Spec.Shoot.Name
	}
	shoot, err := r.getShoot(ctx, ms.Namespace, shootName)
	if err != nil {
		return reconcile.Result{}, err
	}
	shootReconciled := ShootReconciled(shootName, shoot)
	r.setCondition(ms, seedmanagementv1alpha1.ManagedSeedShootReconciled, shootReconciled)
	if !shootReconciled.IsTrue() {
		// A registered seed stays as it is while its shoot reconciles again; template
		// changes wait for the shoot, as in Gardener.
		if meta.FindStatusCondition(ms.Status.Conditions, seedmanagementv1alpha1.ManagedSeedSeedRegistered) == nil {
			r.setCondition(ms, seedmanagementv1alpha1.ManagedSeedSeedRegistered, controllerutils.False(ReasonWaitingForShoot,
				fmt.Sprintf("The seed is registered once Shoot %s has reconciled successfully.", shootName)))
		}
		return reconcile.Result{}, nil
	}

	desired, err := DesiredSeed(ms)
	if err != nil {
		// Only a change of the ManagedSeed can fix this; its update event brings us back.
		r.setCondition(ms, seedmanagementv1alpha1.ManagedSeedSeedRegistered, controllerutils.False(ReasonInvalidSpec, err.Error()))
		return reconcile.Result{}, nil
	}
	return r.registerSeed(ctx, ms, shoot, desired)
}

// registerSeed creates or updates the desired Seed and its status, and says so in the
// SeedRegistered condition and in events. shoot is the ManagedSeed's shoot.
func (r *Reconciler) registerSeed(ctx context.Context, ms *seedmanagementv1alpha1.ManagedSeed, shoot *gardencorev1beta1.Shoot, desired *gardencorev1beta1.Seed) (reconcile.Result, error) {
	log := logf.FromContext(ctx)
	seed, created, updated, err := r.applySeed(ctx, ms, desired)
	if errors.Is(err, errSeedConflict) {
		msg := fmt.Sprintf("Seed %s exists but was not registered by this ManagedSeed (its label %s is not %q): rename the ManagedSeed or remove the other seed.",
			ms.Name, membership.LabelManagedSeedNamespace, ms.Namespace)
		if changed := r.setCondition(ms, seedmanagementv1alpha1.ManagedSeedSeedRegistered, controllerutils.False(ReasonSeedConflict, msg)); changed {
			controllerutils.Event(r.Recorder, ms, nil, EventSeedConflict, "Register", "%s", msg)
		}
		return reconcile.Result{RequeueAfter: r.DeletionRecheckInterval}, nil
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	switch {
	case created:
		log.Info("Registered seed", "seed", klog.KObj(seed))
		controllerutils.Event(r.Recorder, ms, seed, EventSeedRegistered, "Register", "Registered Seed %s.", seed.Name)
	case updated:
		log.Info("Updated seed from the ManagedSeed", "seed", klog.KObj(seed))
		controllerutils.Event(r.Recorder, ms, seed, EventSeedUpdated, "Update", "Updated Seed %s from the ManagedSeed.", seed.Name)
	}

	parent, err := r.parentSeed(ctx, shoot)
	if err != nil {
		return reconcile.Result{}, err
	}
	if err := r.applySeedStatus(ctx, ms, seed, parent); err != nil {
		return reconcile.Result{}, err
	}
	r.setCondition(ms, seedmanagementv1alpha1.ManagedSeedSeedRegistered, controllerutils.True(ReasonSeedRegistered,
		fmt.Sprintf("Seed %s is registered.", seed.Name)))
	return reconcile.Result{}, nil
}

// reconcileDelete deletes the Seed once no shoot occupies it, and releases the ManagedSeed
// once the Seed is gone. The Shoot is left alone: it belongs to whoever created it.
func (r *Reconciler) reconcileDelete(ctx context.Context, ms *seedmanagementv1alpha1.ManagedSeed) (reconcile.Result, error) {
	log := logf.FromContext(ctx)
	if !controllerutil.ContainsFinalizer(ms, Finalizer) {
		return reconcile.Result{}, nil
	}

	seed := &gardencorev1beta1.Seed{}
	err := r.Client.Get(ctx, client.ObjectKey{Name: ms.Name}, seed)
	switch {
	case apierrors.IsNotFound(err):
		return reconcile.Result{}, controllerutils.RemoveFinalizer(ctx, r.Client, ms, Finalizer)
	case err != nil:
		return reconcile.Result{}, fmt.Errorf("reading Seed %s of ManagedSeed %s: %w", ms.Name, client.ObjectKeyFromObject(ms), err)
	case !RegisteredBy(seed, ms):
		log.Info("Seed of the same name was not registered by this ManagedSeed, leaving it", "seed", klog.KObj(seed))
		return reconcile.Result{}, controllerutils.RemoveFinalizer(ctx, r.Client, ms, Finalizer)
	case seed.DeletionTimestamp != nil:
		r.setCondition(ms, seedmanagementv1alpha1.ManagedSeedSeedRegistered, controllerutils.False(ReasonSeedDeleting,
			fmt.Sprintf("Waiting for Seed %s to be deleted.", seed.Name)))
		return reconcile.Result{RequeueAfter: r.DeletionRecheckInterval}, nil
	}

	shoots, err := r.shootsOn(seed.Name)
	if err != nil {
		return reconcile.Result{}, err
	}
	if blocked, msg := DeletionBlocked(seed.Name, shoots); blocked {
		if changed := r.setCondition(ms, seedmanagementv1alpha1.ManagedSeedSeedRegistered, controllerutils.False(ReasonDeletionBlocked, msg)); changed {
			log.Info("Seed deletion blocked by shoots", "seed", klog.KObj(seed), "shoots", len(shoots))
			controllerutils.Event(r.Recorder, ms, seed, EventDeletionBlocked, "Delete", "%s", msg)
		}
		return reconcile.Result{RequeueAfter: r.DeletionRecheckInterval}, nil
	}

	if err := r.Client.Delete(ctx, seed, client.Preconditions{UID: &seed.UID}); client.IgnoreNotFound(err) != nil {
		return reconcile.Result{}, fmt.Errorf("deleting Seed %s of ManagedSeed %s: %w", seed.Name, client.ObjectKeyFromObject(ms), err)
	}
	log.Info("Deleted seed, no shoot uses it", "seed", klog.KObj(seed))
	controllerutils.Event(r.Recorder, ms, seed, EventSeedDeleted, "Delete", "Deleted Seed %s: no shoot uses it.", seed.Name)
	r.setCondition(ms, seedmanagementv1alpha1.ManagedSeedSeedRegistered, controllerutils.False(ReasonSeedDeleting,
		fmt.Sprintf("Seed %s is being deleted.", seed.Name)))
	// The Seed's delete event brings us back to remove the finalizer.
	return reconcile.Result{}, nil
}

// shootsOn returns the keys of the shoots on a seed, sorted: those the usage index counts,
// and those the shoot cache holds under the seed. The cache's store is updated before any
// event handler runs, the index by one of them, so asking both closes the window in which
// one has not seen a shoot yet (at start-up, or between the informer's listeners). A
// seed is deleted only when both say it is empty.
func (r *Reconciler) shootsOn(seedName string) ([]string, error) {
	keys := map[string]bool{}
	for _, key := range r.Usage.ShootsOn(seedName) {
		keys[key] = true
	}
	cached, err := r.shootsBySeed.List(seedName)
	if err != nil {
		return nil, fmt.Errorf("looking up the shoots on seed %s: %w", seedName, err)
	}
	for _, shoot := range cached {
		keys[usage.Key(shoot)] = true
	}
	return slices.Sorted(maps.Keys(keys)), nil
}

func (r *Reconciler) getShoot(ctx context.Context, namespace, name string) (*gardencorev1beta1.Shoot, error) {
	if name == "" {
		return nil, nil
	}
	shoot := &gardencorev1beta1.Shoot{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, shoot); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading Shoot %s/%s: %w", namespace, name, err)
	}
	return shoot, nil
}

// applySeed creates the desired Seed or brings the existing one's labels, annotations and
// spec in line with it.
func (r *Reconciler) applySeed(ctx context.Context, ms *seedmanagementv1alpha1.ManagedSeed, desired *gardencorev1beta1.Seed) (seed *gardencorev1beta1.Seed, created, updated bool, err error) {
	existing := &gardencorev1beta1.Seed{}
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(desired), existing); err != nil {
		if !apierrors.IsNotFound(err) {
			return nil, false, false, fmt.Errorf("reading Seed %s of ManagedSeed %s: %w", desired.Name, client.ObjectKeyFromObject(ms), err)
		}
		if err := r.Client.Create(ctx, desired); err != nil {
			return nil, false, false, fmt.Errorf("creating Seed %s of ManagedSeed %s: %w", desired.Name, client.ObjectKeyFromObject(ms), err)
		}
		return desired, true, false, nil
	}
	if !RegisteredBy(existing, ms) {
		return existing, false, false, errSeedConflict
	}
	desired.Annotations = KeepDrainAnnotations(desired.Annotations, existing.Annotations)
	if maps.Equal(existing.Labels, desired.Labels) && maps.Equal(existing.Annotations, desired.Annotations) &&
		equality.Semantic.DeepEqual(existing.Spec, desired.Spec) {
		return existing, false, false, nil
	}
	existing.Labels, existing.Annotations, existing.Spec = desired.Labels, desired.Annotations, desired.Spec
	if err := r.Client.Update(ctx, existing); err != nil {
		return nil, false, false, fmt.Errorf("updating Seed %s of ManagedSeed %s: %w", desired.Name, client.ObjectKeyFromObject(ms), err)
	}
	return existing, false, true, nil
}

// parentSeed is the seed the ManagedSeed's shoot runs on, whose gardenlet deploys the
// ManagedSeed's gardenlet; nil when the shoot has no seed or the seed is not registered.
func (r *Reconciler) parentSeed(ctx context.Context, shoot *gardencorev1beta1.Shoot) (*gardencorev1beta1.Seed, error) {
	if shoot == nil || shoot.Spec.SeedName == nil {
		return nil, nil
	}
	parent := &gardencorev1beta1.Seed{}
	if err := r.Client.Get(ctx, client.ObjectKey{Name: *shoot.Spec.SeedName}, parent); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading seed %s, the parent of Shoot %s: %w", *shoot.Spec.SeedName, client.ObjectKeyFromObject(shoot), err)
	}
	return parent, nil
}

// applySeedStatus writes the seed's capacity, allocatable, observedGeneration and, when
// any of them changes, a succeeded Reconcile lastOperation: the gardenlet configuration's
// resources merged with the parent gardenlet's. It leaves conditions and usage to the seed
// lifecycle controller.
func (r *Reconciler) applySeedStatus(ctx context.Context, ms *seedmanagementv1alpha1.ManagedSeed, seed, parent *gardencorev1beta1.Seed) error {
	capacity, allocatable := setcapacity.SeedResources(setcapacity.GardenletResources(ms.Spec.Gardenlet, parent), r.DefaultResources)
	before := seed.DeepCopy()
	changed := false
	if !equality.Semantic.DeepEqual(seed.Status.Capacity, capacity) {
		seed.Status.Capacity, changed = capacity, true
	}
	if !equality.Semantic.DeepEqual(seed.Status.Allocatable, allocatable) {
		seed.Status.Allocatable, changed = allocatable, true
	}
	if seed.Status.ObservedGeneration != seed.Generation {
		seed.Status.ObservedGeneration, changed = seed.Generation, true
	}
	op := seed.Status.LastOperation
	if changed || op == nil || op.Type != gardencorev1beta1.LastOperationTypeReconcile || op.State != gardencorev1beta1.LastOperationStateSucceeded {
		seed.Status.LastOperation = &gardencorev1beta1.LastOperation{
			Type:           gardencorev1beta1.LastOperationTypeReconcile,
			State:          gardencorev1beta1.LastOperationStateSucceeded,
			Progress:       100,
			Description:    fmt.Sprintf("Seed registered from ManagedSeed %s.", client.ObjectKeyFromObject(ms)),
			LastUpdateTime: metav1.NewTime(r.Clock.Now()),
		}
	}
	if err := controllerutils.PatchStatus(ctx, r.Client, seed, before, false); err != nil {
		return fmt.Errorf("registering Seed %s from ManagedSeed %s: %w", seed.Name, client.ObjectKeyFromObject(ms), err)
	}
	return nil
}

// setCondition sets a condition of the ManagedSeed and reports whether its status, reason
// or message changed.
func (r *Reconciler) setCondition(ms *seedmanagementv1alpha1.ManagedSeed, conditionType string, o controllerutils.Outcome) bool {
	return controllerutils.SetCondition(&ms.Status.Conditions, conditionType, o, ms.Generation, r.Clock.Now())
}
