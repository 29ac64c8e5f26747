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
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// ConditionReplicaFailed is True while replicas of the set have a failed shoot whose retries
// are used up.
const ConditionReplicaFailed = "ReplicaFailed"

// conditionReason is the reason of a set condition.
type conditionReason string

const (
	reasonNotEnoughRemovable conditionReason = "NotEnoughRemovableReplicas"
	reasonScaleInPossible    conditionReason = "ScaleInPossible"
	reasonRetriesExhausted   conditionReason = "RetriesExhausted"
	reasonNoFailedReplicas   conditionReason = "NoFailedReplicas"
)

// eventReason is the reason of an event the set controller records on a set.
type eventReason string

const (
	EventCreatingShoot        eventReason = "CreatingShoot"
	EventCreatingManagedSeed  eventReason = "CreatingManagedSeed"
	EventRetryingShoot        eventReason = "RetryingShoot"
	EventNotRetryingShoot     eventReason = "NotRetryingShoot"
	EventDeletingManagedSeed  eventReason = "DeletingManagedSeed"
	EventDeletingShoot        eventReason = "DeletingShoot"
	EventUpdatingReplica      eventReason = "UpdatingReplica"
	EventWaiting              eventReason = "Waiting"
	EventReplicaReady         eventReason = "ReplicaReady"
	EventReplicaRemoved       eventReason = "ReplicaRemoved"
	EventScaleInBlocked       eventReason = "ScaleInBlocked"
	EventRevisionCreated      eventReason = "RevisionCreated"
	EventWaitingForRemovals   eventReason = "WaitingForReplicasToBeRemoved"
	EventReconcileError       eventReason = "ReconcileError"
	annotationConfirmDeletion             = "confirmation.gardener.cloud/deletion"
)

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

// outcome of one actuation.
type outcome struct {
	status *seedmanagementv1alpha1.ManagedSeedSetStatus
	// replicasLeft counts the replicas that still exist (for the deletion of the set).
	replicasLeft int
	// inFlight is true while a replica waits on the gardenlet or the seed controller.
	inFlight bool
	// recheck asks for another look soon: the cache was behind the kube-apiserver.
	recheck bool
}

// Reconcile takes one step towards the set's spec (or towards zero replicas while the set is
// deleted) and returns the status that describes the set afterwards.
func (a *Actuator) Reconcile(ctx context.Context, log logr.Logger, set *seedmanagementv1alpha1.ManagedSeedSet) (outcome, error) {
	status := set.Status.DeepCopy()
	out := outcome{status: status}
	selector, err := metav1.LabelSelectorAsSelector(set.Spec.Selector.AsMetav1())
	if err != nil {
		return out, fmt.Errorf("spec.selector of ManagedSeedSet %s/%s: %w", set.Namespace, set.Name, err)
	}
	status.Selector = selector.String()

	owned, err := a.ownedRevisions(ctx, set)
	if err != nil {
		return out, err
	}
	revs, err := a.ensureRevisions(ctx, set, status, owned)
	if err != nil {
		return out, err
	}
	if revs.update.Name != status.UpdateRevision {
		a.event(set, corev1.EventTypeNormal, EventRevisionCreated, "Update", "Templates are at revision %s (number %d)", revs.update.Name, revs.update.Revision)
	}
	status.UpdateRevision = revs.update.Name

	replicas, err := a.replicas(ctx, set)
	if err != nil {
		return out, err
	}
	out.replicasLeft = len(replicas)

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
	for _, r := range replicas {
		w.nextOrdinal = max(w.nextOrdinal, r.ordinal+1)
	}
	status.NextReplicaNumber = w.nextOrdinal

	d := decide(w)
	if d.replica != nil {
		log.V(1).Info("Next step", "replica", d.replica.name, "ordinal", d.replica.ordinal, "step", d.step.kind.String(), "reason", d.step.reason)
	}
	if err := a.settlePending(ctx, log, set, status, w, d); err != nil {
		return out, err
	}
	recheck, err := a.execute(ctx, log, set, status, revs, w, d)
	if err != nil {
		return out, err
	}
	out.recheck = recheck
	out.inFlight = d.step.kind != stepNone

	a.computeStatus(set, status, w, revs)
	if err := a.pruneRevisions(ctx, set, status, revs, replicas); err != nil {
		return out, err
	}
	return out, nil
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
		if r := byName[name]; r != nil {
			return r
		}
		r := &replica{name: name, ordinal: ordinal}
		byName[name] = r
		return r
	}
	reader, owned := a.ownedBy(set)
	shoots := &gardencorev1beta1.ShootList{}
	if err := reader.List(ctx, shoots, owned...); err != nil {
		return nil, fmt.Errorf("listing the Shoots of ManagedSeedSet %s/%s: %w", set.Namespace, set.Name, err)
	}
	for i := range shoots.Items {
		if s := &shoots.Items[i]; metav1.IsControlledBy(s, set) {
			if r := get(s.Name); r != nil {
				r.shoot = s
			}
		}
	}
	managedSeeds := &seedmanagementv1alpha1.ManagedSeedList{}
	if err := reader.List(ctx, managedSeeds, owned...); err != nil {
		return nil, fmt.Errorf("listing the ManagedSeeds of ManagedSeedSet %s/%s: %w", set.Namespace, set.Name, err)
	}
	for i := range managedSeeds.Items {
		if ms := &managedSeeds.Items[i]; metav1.IsControlledBy(ms, set) {
			if r := get(ms.Name); r != nil {
				r.managedSeed = ms
			}
		}
	}
	out := make([]*replica, 0, len(byName))
	for _, r := range byName {
		if r.managedSeed != nil {
			seed := &gardencorev1beta1.Seed{}
			switch err := a.Client.Get(ctx, client.ObjectKey{Name: r.name}, seed); {
			case err == nil:
				r.seed = seed
			case !apierrors.IsNotFound(err):
				return nil, fmt.Errorf("reading Seed %s of ManagedSeedSet %s/%s: %w", r.name, set.Namespace, set.Name, err)
			}
		}
		r.shootsOnSeed = a.Usage.Count(r.name)
		out = append(out, r)
	}
	slices.SortFunc(out, func(x, y *replica) int { return int(x.ordinal - y.ordinal) })
	return out, nil
}

// settlePending records what became of the previously pending replica when decide moved on
// from it: Ready, removed, or given up.
func (a *Actuator) settlePending(ctx context.Context, log logr.Logger, set *seedmanagementv1alpha1.ManagedSeedSet,
	status *seedmanagementv1alpha1.ManagedSeedSetStatus, w world, d decision) error {
	for _, r := range d.givenUp {
		if p := status.PendingReplica; p != nil && p.Name == r.name {
			s := replicaStep(r, w.removing(r), w.maxRetries)
			if p.Reason != s.reason {
				log.Info("Giving up on replica shoot", "replica", r.name, "retries", s.retries, "reason", s.reason)
				a.event(set, corev1.EventTypeWarning, EventNotRetryingShoot, "Reconcile",
					"Shoot %s/%s failed (%s) and was retried %d times, the maximum: the set moves on without it", set.Namespace, r.name, s.reason, s.retries)
				a.setPending(status, r.name, s)
			}
		}
	}
	p := status.PendingReplica
	if p == nil || (d.replica != nil && d.replica.name == p.Name && !d.newReplica) {
		return nil
	}
	var pending *replica
	for _, r := range w.replicas {
		if r.name == p.Name {
			pending = r
		}
	}
	switch {
	case pending == nil:
		log.Info("Replica removed", "replica", p.Name)
		a.event(set, corev1.EventTypeNormal, EventReplicaRemoved, "Delete", "Replica %s is removed: its ManagedSeed and Shoot are gone", p.Name)
		status.PendingReplica = nil
	case pending.ready() && !w.removing(pending):
		log.Info("Replica ready", "replica", p.Name)
		a.event(set, corev1.EventTypeNormal, EventReplicaReady, "Reconcile", "Replica %s is Ready: its Shoot reconciled and its Seed's gardenlet is ready", p.Name)
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
func (a *Actuator) resetRetries(ctx context.Context, set *seedmanagementv1alpha1.ManagedSeedSet, r *replica) error {
	if r.shoot == nil {
		return nil
	}
	_, hasReconcile := r.shoot.Annotations[AnnotationReconcileRetries]
	_, hasDelete := r.shoot.Annotations[AnnotationDeleteRetries]
	if !hasReconcile && !hasDelete {
		return nil
	}
	shoot := r.shoot.DeepCopy()
	patch := client.MergeFrom(shoot.DeepCopy())
	delete(shoot.Annotations, AnnotationReconcileRetries)
	delete(shoot.Annotations, AnnotationDeleteRetries)
	if err := a.Client.Patch(ctx, shoot, patch); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("resetting the retries of Shoot %s/%s: %w", shoot.Namespace, shoot.Name, err)
	}
	a.expectations.expect(set.UID, expectation{object: &gardencorev1beta1.Shoot{}, key: client.ObjectKeyFromObject(shoot),
		met: changedFrom(r.shoot.ResourceVersion), deadline: a.deadline()})
	return nil
}

func (a *Actuator) deadline() time.Time { return a.Clock.Now().Add(expectationTimeout) }

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

// execute takes the decided step. It returns true when it held the step back because the
// cache was behind the kube-apiserver, so the set should be looked at again soon.
func (a *Actuator) execute(ctx context.Context, log logr.Logger, set *seedmanagementv1alpha1.ManagedSeedSet,
	status *seedmanagementv1alpha1.ManagedSeedSetStatus, revs *revisions, w world, d decision) (bool, error) {
	r := d.replica
	if r == nil || d.step.kind == stepNone {
		return false, nil
	}
	if d.newReplica {
		r = &replica{name: replicaName(set.Name, r.ordinal), ordinal: r.ordinal}
	}
	log = log.WithValues("replica", r.name)
	previous := status.PendingReplica
	a.setPending(status, r.name, d.step)
	key := client.ObjectKey{Namespace: set.Namespace, Name: r.name}

	switch d.step.kind {
	case stepWait, stepGiveUp:
		if previous == nil || previous.Name != r.name || previous.Reason != d.step.reason {
			log.Info("Waiting for replica", "reason", d.step.reason)
			a.event(set, corev1.EventTypeNormal, EventWaiting, "Reconcile", "Waiting for replica %s: %s", r.name, describe(d.step.reason))
		}

	case stepCreateShoot:
		// A replica that lost its Shoot gets it back at its own revision; a new one gets the
		// revision its ordinal is due.
		name := r.revision()
		t, ok := revs.templates[name]
		if !ok {
			name = revisionFor(r.ordinal, w.partition, revs).Name
			t = revs.templates[name]
		}
		shoot := newShoot(set, r.name, name, t)
		log.Info("Creating Shoot", "revision", name, "newReplica", d.newReplica)
		a.event(set, corev1.EventTypeNormal, EventCreatingShoot, "Create", "Creating Shoot %s/%s of replica %d at revision %s",
			set.Namespace, r.name, r.ordinal, name)
		if err := a.Client.Create(ctx, shoot); err != nil {
			return false, fmt.Errorf("creating Shoot %s/%s: %w", set.Namespace, r.name, err)
		}
		if d.newReplica {
			status.NextReplicaNumber = r.ordinal + 1
		}
		a.expectations.expect(set.UID, expectation{object: &gardencorev1beta1.Shoot{}, key: key, met: exists, deadline: a.deadline()})

	case stepCreateManagedSeed:
		name := r.revision()
		t, ok := revs.templates[name]
		if !ok {
			name = revisionFor(r.ordinal, w.partition, revs).Name
			t = revs.templates[name]
		}
		ms := newManagedSeed(set, r.name, name, t)
		log.Info("Creating ManagedSeed", "revision", name)
		a.event(set, corev1.EventTypeNormal, EventCreatingManagedSeed, "Create", "Creating ManagedSeed %s/%s: its Shoot reconciled", set.Namespace, r.name)
		if err := a.Client.Create(ctx, ms); client.IgnoreAlreadyExists(err) != nil {
			return false, fmt.Errorf("creating ManagedSeed %s/%s: %w", set.Namespace, r.name, err)
		}
		a.expectations.expect(set.UID, expectation{object: &seedmanagementv1alpha1.ManagedSeed{}, key: key, met: exists, deadline: a.deadline()})

	case stepRetryShoot:
		counter := AnnotationReconcileRetries
		if w.removing(r) {
			counter = AnnotationDeleteRetries
		}
		shoot := r.shoot.DeepCopy()
		patch := client.MergeFrom(shoot.DeepCopy())
		if shoot.Annotations == nil {
			shoot.Annotations = map[string]string{}
		}
		value := strconv.Itoa(int(d.step.retries))
		shoot.Annotations[seedmanagementv1alpha1.AnnotationOperation] = seedmanagementv1alpha1.OperationRetry
		shoot.Annotations[counter] = value
		log.Info("Retrying shoot", "retry", d.step.retries, "maxRetries", w.maxRetries)
		a.event(set, corev1.EventTypeNormal, EventRetryingShoot, "Retry", "Retrying Shoot %s/%s (%s), retry %d of %d",
			set.Namespace, r.name, lastOperationDescription(r.shoot), d.step.retries, w.maxRetries)
		if err := a.Client.Patch(ctx, shoot, patch); err != nil {
			return false, fmt.Errorf("asking Shoot %s/%s for a retry: %w", set.Namespace, r.name, err)
		}
		a.expectations.expect(set.UID, expectation{object: &gardencorev1beta1.Shoot{}, key: key, met: hasAnnotation(counter, value), deadline: a.deadline()})

	case stepDeleteManagedSeed:
		// The decision counted shoots from the cache, which may not show a shoot the scheduler
		// bound a moment ago. Deleting a ManagedSeed cannot be undone, so the count is
		// confirmed on the kube-apiserver first (scale-in is rare; this is its only list).
		onSeed, err := a.shootsOnSeed(ctx, r.name)
		if err != nil {
			return false, err
		}
		if len(onSeed) > 0 {
			log.Info("Not deleting ManagedSeed: the kube-apiserver shows shoots the cache did not have yet", "shoots", onSeed)
			status.PendingReplica = previous
			return true, nil
		}
		log.Info("Deleting ManagedSeed", "shootsOnSeed", r.shootsOnSeed, "priority", r.priority(), "ready", r.ready())
		a.event(set, corev1.EventTypeNormal, EventDeletingManagedSeed, "Delete", "Deleting ManagedSeed %s/%s: scaling in to %d replicas, its seed hosts no shoots",
			set.Namespace, r.name, w.target)
		if err := a.Client.Delete(ctx, r.managedSeed, client.Preconditions{UID: &r.managedSeed.UID}); client.IgnoreNotFound(err) != nil {
			return false, fmt.Errorf("deleting ManagedSeed %s/%s: %w", set.Namespace, r.name, err)
		}
		a.expectations.expect(set.UID, expectation{object: &seedmanagementv1alpha1.ManagedSeed{}, key: key, met: goneOrDeleting, deadline: a.deadline()})

	case stepDeleteShoot:
		log.Info("Deleting Shoot")
		a.event(set, corev1.EventTypeNormal, EventDeletingShoot, "Delete", "Deleting Shoot %s/%s: its ManagedSeed is gone", set.Namespace, r.name)
		if r.shoot.Annotations[annotationConfirmDeletion] != "true" {
			shoot := r.shoot.DeepCopy()
			patch := client.MergeFrom(shoot.DeepCopy())
			if shoot.Annotations == nil {
				shoot.Annotations = map[string]string{}
			}
			shoot.Annotations[annotationConfirmDeletion] = "true"
			if err := a.Client.Patch(ctx, shoot, patch); client.IgnoreNotFound(err) != nil {
				return false, fmt.Errorf("confirming the deletion of Shoot %s/%s: %w", set.Namespace, r.name, err)
			}
		}
		if err := a.Client.Delete(ctx, r.shoot, client.Preconditions{UID: &r.shoot.UID}); client.IgnoreNotFound(err) != nil {
			return false, fmt.Errorf("deleting Shoot %s/%s: %w", set.Namespace, r.name, err)
		}
		a.expectations.expect(set.UID, expectation{object: &gardencorev1beta1.Shoot{}, key: key, met: goneOrDeleting, deadline: a.deadline()})

	case stepUpdate:
		rev := revs.update
		t := revs.templates[rev.Name]
		log.Info("Updating replica", "from", r.revision(), "to", rev.Name)
		a.event(set, corev1.EventTypeNormal, EventUpdatingReplica, "Update", "Updating replica %s from revision %s to %s (rolling update, partition %d)",
			r.name, orNone(r.revision()), rev.Name, w.partition)
		if r.shoot != nil {
			shoot := r.shoot.DeepCopy()
			patch := client.MergeFromWithOptions(shoot.DeepCopy(), client.MergeFromWithOptimisticLock{})
			updateShoot(set, shoot, rev.Name, t)
			if err := a.Client.Patch(ctx, shoot, patch); err != nil {
				return false, fmt.Errorf("updating Shoot %s/%s to revision %s: %w", set.Namespace, r.name, rev.Name, err)
			}
			a.expectations.expect(set.UID, expectation{object: &gardencorev1beta1.Shoot{}, key: key, met: changedFrom(r.shoot.ResourceVersion), deadline: a.deadline()})
		}
		if r.managedSeed != nil {
			ms := r.managedSeed.DeepCopy()
			patch := client.MergeFromWithOptions(ms.DeepCopy(), client.MergeFromWithOptimisticLock{})
			updateManagedSeed(set, ms, rev.Name, t)
			if err := a.Client.Patch(ctx, ms, patch); err != nil {
				return false, fmt.Errorf("updating ManagedSeed %s/%s to revision %s: %w", set.Namespace, r.name, rev.Name, err)
			}
			a.expectations.expect(set.UID, expectation{object: &seedmanagementv1alpha1.ManagedSeed{}, key: key, met: changedFrom(r.managedSeed.ResourceVersion), deadline: a.deadline()})
		}
	}
	return false, nil
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
func (a *Actuator) computeStatus(set *seedmanagementv1alpha1.ManagedSeedSet, status *seedmanagementv1alpha1.ManagedSeedSetStatus, w world, revs *revisions) {
	w.pending = status.PendingReplica
	active := w.active()
	var ready, updated int32
	for _, r := range active {
		if r.ready() {
			ready++
		}
		if r.revision() == revs.update.Name {
			updated++
		}
	}
	// The rollout is complete once every replica runs the update revision.
	if int(updated) == len(active) {
		revs.current = revs.update
	}
	var current int32
	for _, r := range active {
		if r.revision() == revs.current.Name {
			current++
		}
	}
	status.Replicas = int32(len(active))
	status.ReadyReplicas = ready
	status.UpdatedReplicas = updated
	status.CurrentReplicas = current
	status.CurrentRevision = revs.current.Name

	now := metav1.NewTime(a.Clock.Now())
	plan := planScaleIn(active, w.target)
	blocked := metav1.Condition{Type: seedmanagementv1alpha1.ManagedSeedSetScaleInBlocked, Status: metav1.ConditionFalse,
		Reason: string(reasonScaleInPossible), Message: "Every replica a scale-in asks for can be removed.", ObservedGeneration: set.Generation, LastTransitionTime: now}
	if n := plan.blocked(); n > 0 {
		blocked.Status, blocked.Reason = metav1.ConditionTrue, string(reasonNotEnoughRemovable)
		blocked.Message = fmt.Sprintf("%d of %d replicas to remove cannot be removed: only %d are removable. Hosting shoots: %s. Protected from deletion: %s. Drain or unprotect seeds, or raise spec.replicas.",
			n, plan.asked, len(plan.removable), orNone(strings.Join(plan.hostingShoots, ", ")), orNone(strings.Join(plan.protected, ", ")))
		if old := meta.FindStatusCondition(status.Conditions, blocked.Type); old == nil || old.Status != blocked.Status || old.Message != blocked.Message {
			a.event(set, corev1.EventTypeWarning, EventScaleInBlocked, "Scale", "%s", blocked.Message)
			if set.DeletionTimestamp != nil {
				a.event(set, corev1.EventTypeWarning, EventWaitingForRemovals, "Delete", "The set is deleted once its last replica is removed; %d cannot be removed yet", n)
			}
		}
	}
	meta.SetStatusCondition(&status.Conditions, blocked)

	var failed []string
	for _, r := range w.replicas {
		if r.givenUp(w.maxRetries) {
			failed = append(failed, r.name)
		}
	}
	failedCond := metav1.Condition{Type: ConditionReplicaFailed, Status: metav1.ConditionFalse, Reason: string(reasonNoFailedReplicas),
		Message: "No replica's shoot has failed beyond its retries.", ObservedGeneration: set.Generation, LastTransitionTime: now}
	if len(failed) > 0 {
		failedCond.Status, failedCond.Reason = metav1.ConditionTrue, string(reasonRetriesExhausted)
		failedCond.Message = fmt.Sprintf("The shoots of replicas %s failed after %d retries: fix the cause and annotate the shoot with %s=%s, change the templates, or scale the replica in.",
			strings.Join(failed, ", "), w.maxRetries, seedmanagementv1alpha1.AnnotationOperation, seedmanagementv1alpha1.OperationRetry)
	}
	meta.SetStatusCondition(&status.Conditions, failedCond)
}

// pruneRevisions deletes the oldest revisions beyond spec.revisionHistoryLimit that neither
// the status nor any replica refers to.
func (a *Actuator) pruneRevisions(ctx context.Context, set *seedmanagementv1alpha1.ManagedSeedSet,
	status *seedmanagementv1alpha1.ManagedSeedSetStatus, revs *revisions, replicas []*replica) error {
	live := map[string]bool{status.CurrentRevision: true, status.UpdateRevision: true}
	for _, r := range replicas {
		if r.shoot != nil {
			live[r.shoot.Labels[seedmanagementv1alpha1.LabelControllerRevisionHash]] = true
		}
		if r.managedSeed != nil {
			live[r.managedSeed.Labels[seedmanagementv1alpha1.LabelControllerRevisionHash]] = true
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

func (a *Actuator) event(set *seedmanagementv1alpha1.ManagedSeedSet, eventType string, reason eventReason, action, note string, args ...any) {
	a.Recorder.Eventf(set, nil, eventType, string(reason), action, note, args...)
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
