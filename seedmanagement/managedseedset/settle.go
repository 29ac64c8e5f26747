package managedseedset

import (
	"context"
	"fmt"
	"slices"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

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
