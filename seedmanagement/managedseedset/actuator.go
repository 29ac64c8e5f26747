package managedseedset

import (
	"context"

	"github.com/go-logr/logr"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/usage"
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
//
// Each phase has a file of its own: observe reads the replicas (observe.go), decide picks
// the one step (decide.go), settlePending records what became of the replica in flight
// (settle.go), execute takes the step (execute.go), and computeStatus describes the set
// (status.go).
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

// event records an event on the set.
func (a *Actuator) event(set *seedmanagementv1alpha1.ManagedSeedSet, reason controllerutils.EventReason, action, note string, args ...any) {
	controllerutils.Event(a.Recorder, set, nil, reason, action, note, args...)
}

// orNone is s, or "none" when it is empty, for messages.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
