package objectlock

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// Collector deletes the lock Leases of a controller whose object no longer exists: no object
// of that name, or one with another UID (deleted and recreated: the new object has its own
// lock, which is kept).
type Collector struct {
	// Client lists and deletes Leases and reads the locked objects' metadata.
	Client client.Client
	// Namespace and Controller select the Leases, as in Locker.
	Namespace, Controller string
	// Kind of the locked objects.
	Kind schema.GroupVersionKind
	// Interval between collections; ten minutes when zero.
	Interval time.Duration
}

// Collect deletes the Leases of vanished objects once and returns how many it deleted.
func (c *Collector) Collect(ctx context.Context) (int, error) {
	var leases coordinationv1.LeaseList
	if err := c.Client.List(ctx, &leases, client.InNamespace(c.Namespace), client.MatchingLabels{LabelController: c.Controller}); err != nil {
		return 0, fmt.Errorf("listing locks of %s: %w", c.Controller, err)
	}
	deleted := 0
	for i := range leases.Items {
		lease := &leases.Items[i]
		namespace, name := parseObjectRef(lease.Annotations[AnnotationObject])
		obj := &metav1.PartialObjectMetadata{}
		obj.SetGroupVersionKind(c.Kind)
		err := c.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj)
		switch {
		case err == nil && string(obj.GetUID()) == lease.Labels[LabelObjectUID]:
			continue // the locked object still exists
		case err != nil && !apierrors.IsNotFound(err):
			return deleted, fmt.Errorf("reading %s %s for lock %s: %w", c.Kind.Kind, lease.Annotations[AnnotationObject], lease.Name, err)
		}
		// Preconditions: delete exactly the Lease we looked at.
		if err := c.Client.Delete(ctx, lease, client.Preconditions{UID: &lease.UID, ResourceVersion: &lease.ResourceVersion}); client.IgnoreNotFound(err) != nil {
			if apierrors.IsConflict(err) {
				continue
			}
			return deleted, fmt.Errorf("deleting lock %s: %w", lease.Name, err)
		}
		deleted++
	}
	return deleted, nil
}

// Start collects every Interval until ctx ends; it is a manager.Runnable.
func (c *Collector) Start(ctx context.Context) error {
	interval := c.Interval
	if interval == 0 {
		interval = 10 * time.Minute
	}
	log := logf.FromContext(ctx).WithValues("controller", c.Controller)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if n, err := c.Collect(ctx); err != nil {
				log.Error(err, "Collecting locks of deleted objects")
			} else if n > 0 {
				log.V(1).Info("Collected locks of deleted objects", "count", n)
			}
		}
	}
}

// NeedLeaderElection is false: every replica may collect; deletes are idempotent.
func (c *Collector) NeedLeaderElection() bool { return false }
