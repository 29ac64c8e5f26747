package managedseedset

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// annotationConfirmDeletion on a Shoot confirms its deletion to Gardener.
const annotationConfirmDeletion = "confirmation.gardener.cloud/deletion"

// action is the step decide picked, with what taking it needs.
type action struct {
	set     *seedmanagementv1alpha1.ManagedSeedSet
	replica *replica
	// key is the name of the replica's Shoot and ManagedSeed.
	key  client.ObjectKey
	step step
	// newReplica: the step adds a replica with a new ordinal.
	newReplica bool
	world      world
	revs       *revisions
	// previous is the pending replica before this step.
	previous *seedmanagementv1alpha1.PendingReplica
	log      logr.Logger
}

// execute takes the decided step, one method per kind of step. It returns true when it held
// the step back because the cache was behind the kube-apiserver, so the set should be looked
// at again soon.
func (a *Actuator) execute(ctx context.Context, set *seedmanagementv1alpha1.ManagedSeedSet, revs *revisions, w world, d decision) (bool, error) {
	log := logr.FromContextOrDiscard(ctx)
	if d.replica == nil || d.step.kind == stepNone {
		return false, nil
	}
	replica := d.replica
	if d.newReplica {
		replica = newReplica(set.Name, replica.ordinal)
	}
	act := action{set: set, replica: replica, key: client.ObjectKey{Namespace: set.Namespace, Name: replica.name},
		step: d.step, newReplica: d.newReplica, world: w, revs: revs, previous: set.Status.PendingReplica,
		log: log.WithValues("replica", replica.name)}
	a.setPending(&set.Status, replica.name, d.step)

	switch d.step.kind {
	case stepWait, stepGiveUp:
		a.wait(act)
	case stepCreateShoot:
		return false, a.createShoot(ctx, act)
	case stepCreateManagedSeed:
		return false, a.createManagedSeed(ctx, act)
	case stepRetryShoot:
		return false, a.retryShoot(ctx, act)
	case stepDeleteManagedSeed:
		return a.deleteManagedSeed(ctx, act)
	case stepDeleteShoot:
		return false, a.deleteShoot(ctx, act)
	case stepUpdate:
		return false, a.update(ctx, act)
	}
	return false, nil
}

// wait says, once per replica and reason, what the pending replica waits for.
func (a *Actuator) wait(act action) {
	if p := act.previous; p == nil || p.Name != act.replica.name || p.Reason != act.step.reason {
		act.log.Info("Waiting for replica", "reason", act.step.reason)
		a.event(act.set, EventWaiting, "Reconcile", "Waiting for replica %s: %s", act.replica.name, describe(act.step.reason))
	}
}

// createdAt is the revision a replica's missing Shoot or ManagedSeed is created at, and its
// templates: a replica that lost one of them gets it back at its own revision; a new one gets
// the revision its ordinal is due.
func (act action) createdAt() (string, revisionData) {
	name := act.replica.revision()
	if t, ok := act.revs.templates[name]; ok {
		return name, t
	}
	name = revisionFor(act.replica.ordinal, act.world.partition, act.revs).Name
	return name, act.revs.templates[name]
}

func (a *Actuator) createShoot(ctx context.Context, act action) error {
	revision, templates := act.createdAt()
	act.log.Info("Creating Shoot", "revision", revision, "newReplica", act.newReplica)
	a.event(act.set, EventCreatingShoot, "Create", "Creating Shoot %s of replica %d at revision %s", act.key, act.replica.ordinal, revision)
	if err := a.Client.Create(ctx, newShoot(act.set, act.replica.name, revision, templates)); err != nil {
		return fmt.Errorf("creating Shoot %s: %w", act.key, err)
	}
	if act.newReplica {
		act.set.Status.NextReplicaNumber = act.replica.ordinal + 1
	}
	a.expect(act.set, &gardencorev1beta1.Shoot{}, act.key, exists)
	return nil
}

func (a *Actuator) createManagedSeed(ctx context.Context, act action) error {
	revision, templates := act.createdAt()
	act.log.Info("Creating ManagedSeed", "revision", revision)
	a.event(act.set, EventCreatingManagedSeed, "Create", "Creating ManagedSeed %s: its Shoot reconciled", act.key)
	if err := a.Client.Create(ctx, newManagedSeed(act.set, act.replica.name, revision, templates)); client.IgnoreAlreadyExists(err) != nil {
		return fmt.Errorf("creating ManagedSeed %s: %w", act.key, err)
	}
	a.expect(act.set, &seedmanagementv1alpha1.ManagedSeed{}, act.key, exists)
	return nil
}

// retryShoot asks the gardenlet to retry the replica's failed Shoot, and counts the retry on
// the Shoot.
func (a *Actuator) retryShoot(ctx context.Context, act action) error {
	counter := AnnotationReconcileRetries
	if act.world.removing(act.replica) {
		counter = AnnotationDeleteRetries
	}
	value := strconv.Itoa(int(act.step.retries))
	act.log.Info("Retrying shoot", "retry", act.step.retries, "maxRetries", act.world.maxRetries)
	a.event(act.set, EventRetryingShoot, "Retry", "Retrying Shoot %s (%s), retry %d of %d",
		act.key, lastOperationDescription(act.replica.shoot), act.step.retries, act.world.maxRetries)
	if err := a.annotateShoot(ctx, act.replica.shoot, seedmanagementv1alpha1.AnnotationOperation, seedmanagementv1alpha1.OperationRetry, counter, value); err != nil {
		return fmt.Errorf("asking Shoot %s for a retry: %w", act.key, err)
	}
	a.expect(act.set, &gardencorev1beta1.Shoot{}, act.key, hasAnnotation(counter, value))
	return nil
}

// deleteManagedSeed scales in by deleting the replica's ManagedSeed, unless the
// kube-apiserver shows shoots on its seed that the cache did not have yet: then it holds the
// step back and returns true.
func (a *Actuator) deleteManagedSeed(ctx context.Context, act action) (bool, error) {
	// The decision counted shoots from the cache, which may not show a shoot the scheduler
	// bound a moment ago. Deleting a ManagedSeed cannot be undone, so the count is
	// confirmed on the kube-apiserver first (scale-in is rare; this is its only list).
	onSeed, err := a.shootsOnSeed(ctx, act.replica.name)
	if err != nil {
		return false, err
	}
	if len(onSeed) > 0 {
		act.log.Info("Not deleting ManagedSeed: the kube-apiserver shows shoots the cache did not have yet", "shoots", onSeed)
		act.set.Status.PendingReplica = act.previous
		return true, nil
	}
	ms := act.replica.managedSeed
	act.log.Info("Deleting ManagedSeed", "shootsOnSeed", act.replica.shootsOnSeed, "priority", act.replica.priority(), "ready", act.replica.ready())
	a.event(act.set, EventDeletingManagedSeed, "Delete", "Deleting ManagedSeed %s: scaling in to %d replicas, its seed hosts no shoots", act.key, act.world.target)
	if err := a.Client.Delete(ctx, ms, client.Preconditions{UID: &ms.UID}); client.IgnoreNotFound(err) != nil {
		return false, fmt.Errorf("deleting ManagedSeed %s: %w", act.key, err)
	}
	a.expect(act.set, &seedmanagementv1alpha1.ManagedSeed{}, act.key, goneOrDeleting)
	return false, nil
}

// deleteShoot deletes the Shoot of a replica whose ManagedSeed is gone, confirming the
// deletion first as Gardener asks.
func (a *Actuator) deleteShoot(ctx context.Context, act action) error {
	shoot := act.replica.shoot
	act.log.Info("Deleting Shoot")
	a.event(act.set, EventDeletingShoot, "Delete", "Deleting Shoot %s: its ManagedSeed is gone", act.key)
	if shoot.Annotations[annotationConfirmDeletion] != "true" {
		if err := a.annotateShoot(ctx, shoot, annotationConfirmDeletion, "true"); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("confirming the deletion of Shoot %s: %w", act.key, err)
		}
	}
	if err := a.Client.Delete(ctx, shoot, client.Preconditions{UID: &shoot.UID}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting Shoot %s: %w", act.key, err)
	}
	a.expect(act.set, &gardencorev1beta1.Shoot{}, act.key, goneOrDeleting)
	return nil
}

// update brings the replica's Shoot and ManagedSeed to the update revision (rolling update).
func (a *Actuator) update(ctx context.Context, act action) error {
	rev := act.revs.update
	templates := act.revs.templates[rev.Name]
	act.log.Info("Updating replica", "from", act.replica.revision(), "to", rev.Name)
	a.event(act.set, EventUpdatingReplica, "Update", "Updating replica %s from revision %s to %s (rolling update, partition %d)",
		act.replica.name, orNone(act.replica.revision()), rev.Name, act.world.partition)
	if act.replica.shoot != nil {
		shoot := act.replica.shoot.DeepCopy()
		if err := a.patchLocked(ctx, shoot, func() { updateShoot(act.set, shoot, rev.Name, templates) }); err != nil {
			return fmt.Errorf("updating Shoot %s to revision %s: %w", act.key, rev.Name, err)
		}
		a.expect(act.set, &gardencorev1beta1.Shoot{}, act.key, changedFrom(act.replica.shoot.ResourceVersion))
	}
	if act.replica.managedSeed != nil {
		ms := act.replica.managedSeed.DeepCopy()
		if err := a.patchLocked(ctx, ms, func() { updateManagedSeed(act.set, ms, rev.Name, templates) }); err != nil {
			return fmt.Errorf("updating ManagedSeed %s to revision %s: %w", act.key, rev.Name, err)
		}
		a.expect(act.set, &seedmanagementv1alpha1.ManagedSeed{}, act.key, changedFrom(act.replica.managedSeed.ResourceVersion))
	}
	return nil
}

// patchLocked patches obj with what change does to it, guarded by obj's resourceVersion.
func (a *Actuator) patchLocked(ctx context.Context, obj client.Object, change func()) error {
	patch := client.MergeFromWithOptions(obj.DeepCopyObject().(client.Object), client.MergeFromWithOptimisticLock{})
	change()
	return a.Client.Patch(ctx, obj, patch)
}

// annotateShoot sets annotations, given as key, value pairs, on a copy of the shoot in one
// merge patch.
func (a *Actuator) annotateShoot(ctx context.Context, shoot *gardencorev1beta1.Shoot, keyValues ...string) error {
	annotated := shoot.DeepCopy()
	patch := client.MergeFrom(shoot)
	if annotated.Annotations == nil {
		annotated.Annotations = map[string]string{}
	}
	for i := 0; i+1 < len(keyValues); i += 2 {
		annotated.Annotations[keyValues[i]] = keyValues[i+1]
	}
	return a.Client.Patch(ctx, annotated, patch)
}

// shootsOnSeed lists, on the kube-apiserver, the shoots that occupy the seed (spec.seedName
// or status.seedName).
func (a *Actuator) shootsOnSeed(ctx context.Context, seed string) ([]string, error) {
	// The Shoot CRD serves spec.seedName and status.seedName as field selectors (as
	// Gardener's API does): two filtered lists, not a list of every shoot.
	var names []string
	for _, field := range []string{"spec.seedName", "status.seedName"} {
		list := &gardencorev1beta1.ShootList{}
		if err := a.APIReader.List(ctx, list, client.MatchingFields{field: seed}); err != nil {
			return nil, fmt.Errorf("listing Shoots to confirm that seed %s hosts none: %w", seed, err)
		}
		for i := range list.Items {
			if key := usage.Key(&list.Items[i]); !slices.Contains(names, key) {
				names = append(names, key)
			}
		}
	}
	return names, nil
}

// describe says in words what a replica waits for.
func describe(reason seedmanagementv1alpha1.PendingReplicaReason) string {
	switch reason {
	case seedmanagementv1alpha1.ShootReconcilingReason:
		return "its Shoot is reconciling"
	case seedmanagementv1alpha1.ShootDeletingReason:
		return "its Shoot is being deleted"
	case seedmanagementv1alpha1.ShootReconcileFailedReason:
		return "its Shoot failed to reconcile and the retries are used up"
	case seedmanagementv1alpha1.ShootDeleteFailedReason:
		return "its Shoot failed to be deleted and the retries are used up"
	case seedmanagementv1alpha1.ManagedSeedPreparingReason:
		return "its ManagedSeed is waiting for the Seed to be registered"
	case seedmanagementv1alpha1.ManagedSeedDeletingReason:
		return "its ManagedSeed is being deleted (the seed controller deletes the Seed once no shoot uses it)"
	case seedmanagementv1alpha1.SeedNotReadyReason:
		return "its Seed is not ready (GardenletReady is not True)"
	case seedmanagementv1alpha1.ShootNotHealthyReason:
		return "its Shoot has a condition that is False"
	}
	return string(reason)
}

// lastOperationDescription says what the shoot's last operation reported, for events.
func lastOperationDescription(shoot *gardencorev1beta1.Shoot) string {
	if op := shoot.Status.LastOperation; op != nil {
		if op.Description != "" {
			return fmt.Sprintf("%s %s: %s", op.Type, op.State, op.Description)
		}
		return fmt.Sprintf("%s %s", op.Type, op.State)
	}
	return "no last operation"
}
