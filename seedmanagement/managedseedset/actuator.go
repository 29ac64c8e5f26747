package managedseedset

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// ConditionReplicaFailed is True while replicas of the set have a failed shoot whose retries
// are used up.
const ConditionReplicaFailed = "ReplicaFailed"

// Reasons of the set's conditions.
const (
	// ScaleInBlocked
	ReasonNotEnoughRemovableReplicas controllerutils.Reason = "NotEnoughRemovableReplicas"
	ReasonScaleInPossible            controllerutils.Reason = "ScaleInPossible"
	// ReplicaFailed
	ReasonRetriesExhausted controllerutils.Reason = "RetriesExhausted"
	ReasonNoFailedReplicas controllerutils.Reason = "NoFailedReplicas"
)

// Reasons of the events the set controller records on a set.
const (
	EventCreatingShoot                 = controllerutils.Normal("CreatingShoot")
	EventCreatingManagedSeed           = controllerutils.Normal("CreatingManagedSeed")
	EventRetryingShoot                 = controllerutils.Normal("RetryingShoot")
	EventNotRetryingShoot              = controllerutils.Warning("NotRetryingShoot")
	EventDeletingManagedSeed           = controllerutils.Normal("DeletingManagedSeed")
	EventDeletingShoot                 = controllerutils.Normal("DeletingShoot")
	EventUpdatingReplica               = controllerutils.Normal("UpdatingReplica")
	EventWaiting                       = controllerutils.Normal("Waiting")
	EventReplicaReady                  = controllerutils.Normal("ReplicaReady")
	EventReplicaRemoved                = controllerutils.Normal("ReplicaRemoved")
	EventScaleInBlocked                = controllerutils.Warning("ScaleInBlocked")
	EventRevisionCreated               = controllerutils.Normal("RevisionCreated")
	EventWaitingForReplicasToBeRemoved = controllerutils.Warning("WaitingForReplicasToBeRemoved")
	EventReconcileError                = controllerutils.Warning("ReconcileError")
)

// annotationConfirmDeletion on a Shoot confirms its deletion to Gardener.
const annotationConfirmDeletion = "confirmation.gardener.cloud/deletion"

// Actuator is the set controller's domain logic: it reads a set's replicas and revisions,
// takes the one step decide picks, and computes the set's status.
type Actuator struct {
	// LiveReplicas reads a set's Shoots and ManagedSeeds from the kube-apiserver instead of
	// the cache (object-locks mode: the last write may be another replica's).
	LiveReplicas bool
	Client       client.Client
	// APIReader confirms on the kube-apiserver, not the cache, that a seed is empty before
	// its ManagedSeed is deleted.
	APIReader       client.Reader
	Clock           clock.PassiveClock
	Recorder        events.EventRecorder
	Usage           *usage.Index
	MaxShootRetries int32

	expectations *expectations
}

// Outcome is what one actuation left to do: what the Reconciler needs to decide when to look again.
type Outcome struct {
	// replicasLeft counts the replicas that still exist (for the deletion of the set).
	replicasLeft int
	// inFlight is true while a replica waits on the gardenlet or the seed controller.
	inFlight bool
	// recheck asks for another look soon: the cache was behind the kube-apiserver.
	recheck bool
}

// Reconcile takes one step towards the set's spec (or towards zero replicas while the set is
// deleted) and leaves the status that describes the set afterwards in set.Status, also when
// it fails half way. It logs through the logger of ctx.
func (a *Actuator) Reconcile(ctx context.Context, set *seedmanagementv1alpha1.ManagedSeedSet) (Outcome, error) {
	log := logr.FromContextOrDiscard(ctx)
	w, revs, err := a.observe(ctx, set)
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{replicasLeft: len(w.replicas)}

	d := decide(w)
	if d.replica != nil {
		log.V(1).Info("Next step", "replica", d.replica.name, "ordinal", d.replica.ordinal, "step", d.step.kind.String(), "reason", d.step.reason)
	}
	if err := a.settlePending(ctx, set, w, d); err != nil {
		return out, err
	}
	recheck, err := a.execute(ctx, set, revs, w, d)
	if err != nil {
		return out, err
	}
	out.recheck = recheck
	out.inFlight = d.step.kind != stepNone

	a.computeStatus(set, w, revs)
	if err := a.pruneRevisions(ctx, set, revs, w.replicas); err != nil {
		return out, err
	}
	return out, nil
}

// observe reads the set's revisions (creating the update revision when the templates
// changed) and replicas into the world decide looks at, and writes the selector, the update
// revision and the next replica number into the status.
func (a *Actuator) observe(ctx context.Context, set *seedmanagementv1alpha1.ManagedSeedSet) (world, *revisions, error) {
	status := &set.Status
	selector, err := metav1.LabelSelectorAsSelector(set.Spec.Selector.AsMetav1())
	if err != nil {
		return world{}, nil, fmt.Errorf("spec.selector of ManagedSeedSet %s/%s: %w", set.Namespace, set.Name, err)
	}
	status.Selector = selector.String()

	owned, err := a.ownedRevisions(ctx, set)
	if err != nil {
		return world{}, nil, err
	}
	revs, err := a.ensureRevisions(ctx, set, status, owned)
	if err != nil {
		return world{}, nil, err
	}
	if revs.update.Name != status.UpdateRevision {
		a.event(set, EventRevisionCreated, "Update", "Templates are at revision %s (number %d)", revs.update.Name, revs.update.Revision)
	}
	status.UpdateRevision = revs.update.Name

	replicas, err := a.replicas(ctx, set)
	if err != nil {
		return world{}, nil, err
	}
	w := world{
		replicas:       replicas,
		pending:        status.PendingReplica,
		target:         int(ptr.Deref(set.Spec.Replicas, 1)),
		partition:      partitionOf(set),
		updateRevision: revs.update.Name,
		nextOrdinal:    status.NextReplicaNumber,
		maxRetries:     a.MaxShootRetries,
	}
	if set.DeletionTimestamp != nil {
		w.target = 0
	}
	for _, replica := range replicas {
		w.nextOrdinal = max(w.nextOrdinal, replica.ordinal+1)
	}
	status.NextReplicaNumber = w.nextOrdinal
	return w, revs, nil
}

func partitionOf(set *seedmanagementv1alpha1.ManagedSeedSet) int32 {
	if s := set.Spec.UpdateStrategy; s != nil && s.RollingUpdate != nil && s.RollingUpdate.Partition != nil {
		return *s.RollingUpdate.Partition
	}
	return 0
}

// revisionFor is the revision a replica with the given ordinal is created at: the update
// revision from the partition up, the current revision below it.
func revisionFor(ordinal, partition int32, revs *revisions) *appsv1.ControllerRevision {
	if ordinal >= partition {
		return revs.update
	}
	return revs.current
}

// ownedBy returns where to read the set's Shoots, ManagedSeeds and ControllerRevisions from
// and how to select them: from the cache by owner index, or with LiveReplicas from the
// kube-apiserver by the set label all of them carry.
func (a *Actuator) ownedBy(set *seedmanagementv1alpha1.ManagedSeedSet) (client.Reader, []client.ListOption) {
	if a.LiveReplicas {
		return a.APIReader, []client.ListOption{client.InNamespace(set.Namespace), client.MatchingLabels{seedmanagementv1alpha1.LabelManagedSeedSet: set.Name}}
	}
	return a.Client, []client.ListOption{client.InNamespace(set.Namespace), client.MatchingFields{indexControllerSet: set.Name}}
}

// ownedRevisions lists the ControllerRevisions the set controls.
func (a *Actuator) ownedRevisions(ctx context.Context, set *seedmanagementv1alpha1.ManagedSeedSet) ([]*appsv1.ControllerRevision, error) {
	list := &appsv1.ControllerRevisionList{}
	reader, owned := a.ownedBy(set)
	if err := reader.List(ctx, list, owned...); err != nil {
		return nil, fmt.Errorf("listing the ControllerRevisions of ManagedSeedSet %s/%s: %w", set.Namespace, set.Name, err)
	}
	var out []*appsv1.ControllerRevision
	for i := range list.Items {
		if metav1.IsControlledBy(&list.Items[i], set) {
			out = append(out, &list.Items[i])
		}
	}
	return out, nil
}

// replicas gathers the set's Shoots and ManagedSeeds (see ownedBy), their Seeds, and the
// number of shoots on each seed (from the usage index), by ascending ordinal.
func (a *Actuator) replicas(ctx context.Context, set *seedmanagementv1alpha1.ManagedSeedSet) ([]*replica, error) {
	byName := map[string]*replica{}
	get := func(name string) *replica {
		ordinal, ok := parseOrdinal(set.Name, name)
		if !ok {
			return nil
		}
		if existing := byName[name]; existing != nil {
			return existing
		}
		created := &replica{name: name, ordinal: ordinal}
		byName[name] = created
		return created
	}
	reader, owned := a.ownedBy(set)
	shoots := &gardencorev1beta1.ShootList{}
	if err := reader.List(ctx, shoots, owned...); err != nil {
		return nil, fmt.Errorf("listing the Shoots of ManagedSeedSet %s/%s: %w", set.Namespace, set.Name, err)
	}
	for i := range shoots.Items {
		if s := &shoots.Items[i]; metav1.IsControlledBy(s, set) {
			if replica := get(s.Name); replica != nil {
				replica.shoot = s
			}
		}
	}
	managedSeeds := &seedmanagementv1alpha1.ManagedSeedList{}
	if err := reader.List(ctx, managedSeeds, owned...); err != nil {
		return nil, fmt.Errorf("listing the ManagedSeeds of ManagedSeedSet %s/%s: %w", set.Namespace, set.Name, err)
	}
	for i := range managedSeeds.Items {
		if ms := &managedSeeds.Items[i]; metav1.IsControlledBy(ms, set) {
			if replica := get(ms.Name); replica != nil {
				replica.managedSeed = ms
			}
		}
	}
	out := make([]*replica, 0, len(byName))
	for _, replica := range byName {
		if replica.managedSeed != nil {
			seed := &gardencorev1beta1.Seed{}
			switch err := a.Client.Get(ctx, client.ObjectKey{Name: replica.name}, seed); {
			case err == nil:
				replica.seed = seed
			case !apierrors.IsNotFound(err):
				return nil, fmt.Errorf("reading Seed %s of ManagedSeedSet %s/%s: %w", replica.name, set.Namespace, set.Name, err)
			}
		}
		replica.shootsOnSeed = a.Usage.Count(replica.name)
		out = append(out, replica)
	}
	slices.SortFunc(out, func(x, y *replica) int { return int(x.ordinal - y.ordinal) })
	return out, nil
}

// settlePending records what became of the previously pending replica when decide moved on
// from it: Ready, removed, or given up.
func (a *Actuator) settlePending(ctx context.Context, set *seedmanagementv1alpha1.ManagedSeedSet, w world, d decision) error {
	log := logr.FromContextOrDiscard(ctx)
	status := &set.Status
	for _, replica := range d.givenUp {
		if p := status.PendingReplica; p != nil && p.Name == replica.name {
			s := replicaStep(replica, w.removing(replica), w.maxRetries)
			if p.Reason != s.reason {
				log.Info("Giving up on replica shoot", "replica", replica.name, "retries", s.retries, "reason", s.reason)
				a.event(set, EventNotRetryingShoot, "Reconcile",
					"Shoot %s/%s failed (%s) and was retried %d times, the maximum: the set moves on without it", set.Namespace, replica.name, s.reason, s.retries)
				a.setPending(status, replica.name, s)
			}
		}
	}
	p := status.PendingReplica
	if p == nil || (d.replica != nil && d.replica.name == p.Name && !d.newReplica) {
		return nil
	}
	var pending *replica
	for _, replica := range w.replicas {
		if replica.name == p.Name {
			pending = replica
		}
	}
	switch {
	case pending == nil:
		log.Info("Replica removed", "replica", p.Name)
		a.event(set, EventReplicaRemoved, "Delete", "Replica %s is removed: its ManagedSeed and Shoot are gone", p.Name)
		status.PendingReplica = nil
	case pending.ready() && !w.removing(pending):
		log.Info("Replica ready", "replica", p.Name)
		a.event(set, EventReplicaReady, "Reconcile", "Replica %s is Ready: its Shoot reconciled and its Seed's gardenlet is ready", p.Name)
		status.PendingReplica = nil
		if err := a.resetRetries(ctx, set, pending); err != nil {
			return err
		}
	case slices.Contains(d.givenUp, pending):
		// Stays pending with its failure until another replica goes in flight.
	default:
		// Abandoned: the set scales in instead of finishing it.
		status.PendingReplica = nil
	}
	return nil
}

// resetRetries removes the retry counters from the shoot of a replica that became Ready, so
// that a later failure gets the full number of retries again.
func (a *Actuator) resetRetries(ctx context.Context, set *seedmanagementv1alpha1.ManagedSeedSet, replica *replica) error {
	if replica.shoot == nil {
		return nil
	}
	_, hasReconcile := replica.shoot.Annotations[AnnotationReconcileRetries]
	_, hasDelete := replica.shoot.Annotations[AnnotationDeleteRetries]
	if !hasReconcile && !hasDelete {
		return nil
	}
	shoot := replica.shoot.DeepCopy()
	patch := client.MergeFrom(shoot.DeepCopy())
	delete(shoot.Annotations, AnnotationReconcileRetries)
	delete(shoot.Annotations, AnnotationDeleteRetries)
	if err := a.Client.Patch(ctx, shoot, patch); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("resetting the retries of Shoot %s/%s: %w", shoot.Namespace, shoot.Name, err)
	}
	a.expect(set, &gardencorev1beta1.Shoot{}, client.ObjectKeyFromObject(shoot), changedFrom(replica.shoot.ResourceVersion))
	return nil
}

// expect records that the cache must show a write of the set's before the set is looked at
// again: obj (an empty object of the written kind) at key, once met says so, or once the
// expectation times out.
func (a *Actuator) expect(set *seedmanagementv1alpha1.ManagedSeedSet, obj client.Object, key client.ObjectKey, met func(client.Object) bool) {
	a.expectations.expect(set.UID, expectation{object: obj, key: key, met: met, deadline: a.Clock.Now().Add(expectationTimeout)})
}

// expectationTimeout bounds how long a set waits for the cache to show one of its writes
// (someone else may have changed the object in between).
const expectationTimeout = time.Minute

// setPending makes the replica the pending one, keeping since while the reason stays.
func (a *Actuator) setPending(status *seedmanagementv1alpha1.ManagedSeedSetStatus, name string, s step) {
	p := status.PendingReplica
	if p == nil || p.Name != name || p.Reason != s.reason {
		p = &seedmanagementv1alpha1.PendingReplica{Name: name, Reason: s.reason, Since: metav1.NewTime(a.Clock.Now())}
	}
	p.Retries = nil
	if s.retries > 0 {
		p.Retries = ptr.To(s.retries)
	}
	status.PendingReplica = p
}

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

// computeStatus sets the counts, the current revision and the conditions from the replicas
// as this reconcile found them.
func (a *Actuator) computeStatus(set *seedmanagementv1alpha1.ManagedSeedSet, w world, revs *revisions) {
	status := &set.Status
	w.pending = status.PendingReplica
	active := w.active()
	var ready, updated int32
	for _, replica := range active {
		if replica.ready() {
			ready++
		}
		if replica.revision() == revs.update.Name {
			updated++
		}
	}
	// The rollout is complete once every replica runs the update revision.
	if int(updated) == len(active) {
		revs.current = revs.update
	}
	var current int32
	for _, replica := range active {
		if replica.revision() == revs.current.Name {
			current++
		}
	}
	status.Replicas = int32(len(active))
	status.ReadyReplicas = ready
	status.UpdatedReplicas = updated
	status.CurrentReplicas = current
	status.CurrentRevision = revs.current.Name

	a.setScaleInBlocked(set, planScaleIn(active, w.target))
	a.setReplicaFailed(set, w)
}

// setScaleInBlocked sets ScaleInBlocked from the scale-in plan, and records a Warning when
// what blocks it changes.
func (a *Actuator) setScaleInBlocked(set *seedmanagementv1alpha1.ManagedSeedSet, plan scaleIn) {
	blocked := controllerutils.False(ReasonScaleInPossible, "Every replica a scale-in asks for can be removed.")
	if n := plan.blocked(); n > 0 {
		blocked = controllerutils.True(ReasonNotEnoughRemovableReplicas, fmt.Sprintf(
			"%d of %d replicas to remove cannot be removed: only %d are removable. Hosting shoots: %s. Protected from deletion: %s. Drain or unprotect seeds, or raise spec.replicas.",
			n, plan.asked, len(plan.removable), orNone(strings.Join(plan.hostingShoots, ", ")), orNone(strings.Join(plan.protected, ", "))))
		if old := meta.FindStatusCondition(set.Status.Conditions, seedmanagementv1alpha1.ManagedSeedSetScaleInBlocked); old == nil || old.Status != blocked.Status || old.Message != blocked.Message {
			a.event(set, EventScaleInBlocked, "Scale", "%s", blocked.Message)
			if set.DeletionTimestamp != nil {
				a.event(set, EventWaitingForReplicasToBeRemoved, "Delete", "The set is deleted once its last replica is removed; %d cannot be removed yet", n)
			}
		}
	}
	controllerutils.SetCondition(&set.Status.Conditions, seedmanagementv1alpha1.ManagedSeedSetScaleInBlocked, blocked, set.Generation, a.Clock.Now())
}

// setReplicaFailed sets ReplicaFailed from the replicas whose retries are used up.
func (a *Actuator) setReplicaFailed(set *seedmanagementv1alpha1.ManagedSeedSet, w world) {
	var failed []string
	for _, replica := range w.replicas {
		if replica.givenUp(w.maxRetries) {
			failed = append(failed, replica.name)
		}
	}
	replicaFailed := controllerutils.False(ReasonNoFailedReplicas, "No replica's shoot has failed beyond its retries.")
	if len(failed) > 0 {
		replicaFailed = controllerutils.True(ReasonRetriesExhausted, fmt.Sprintf(
			"The shoots of replicas %s failed after %d retries: fix the cause and annotate the shoot with %s=%s, change the templates, or scale the replica in.",
			strings.Join(failed, ", "), w.maxRetries, seedmanagementv1alpha1.AnnotationOperation, seedmanagementv1alpha1.OperationRetry))
	}
	controllerutils.SetCondition(&set.Status.Conditions, ConditionReplicaFailed, replicaFailed, set.Generation, a.Clock.Now())
}

// pruneRevisions deletes the oldest revisions beyond spec.revisionHistoryLimit that neither
// the status nor any replica refers to.
func (a *Actuator) pruneRevisions(ctx context.Context, set *seedmanagementv1alpha1.ManagedSeedSet, revs *revisions, replicas []*replica) error {
	live := map[string]bool{set.Status.CurrentRevision: true, set.Status.UpdateRevision: true}
	for _, replica := range replicas {
		if replica.shoot != nil {
			live[replica.shoot.Labels[seedmanagementv1alpha1.LabelControllerRevisionHash]] = true
		}
		if replica.managedSeed != nil {
			live[replica.managedSeed.Labels[seedmanagementv1alpha1.LabelControllerRevisionHash]] = true
		}
	}
	limit := int(ptr.Deref(set.Spec.RevisionHistoryLimit, 10))
	for _, rev := range revisionsToPrune(revs.all, live, limit) {
		if err := a.Client.Delete(ctx, rev); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("pruning ControllerRevision %s/%s: %w", rev.Namespace, rev.Name, err)
		}
	}
	return nil
}

func (a *Actuator) event(set *seedmanagementv1alpha1.ManagedSeedSet, reason controllerutils.EventReason, action, note string, args ...any) {
	controllerutils.Event(a.Recorder, set, nil, reason, action, note, args...)
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

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func lastOperationDescription(shoot *gardencorev1beta1.Shoot) string {
	if op := shoot.Status.LastOperation; op != nil {
		if op.Description != "" {
			return fmt.Sprintf("%s %s: %s", op.Type, op.State, op.Description)
		}
		return fmt.Sprintf("%s %s", op.Type, op.State)
	}
	return "no last operation"
}
