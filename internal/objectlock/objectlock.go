// Package objectlock lets several active replicas of a controller share the work without
// ever reconciling one object at the same time, as the Landscaper's SyncObjects do: before
// it reconciles an object, a replica takes the lock for the pair (controller, object UID), a
// coordination.k8s.io Lease whose holder is the replica's pod name, created or updated with
// optimistic concurrency so that only one replica wins. The lock is released (holder
// cleared, Lease kept) after the reconcile; a lock whose holder died is taken over once the
// holder pod is gone or the Lease has expired. Leases of objects whose UID no longer exists
// are collected in the background.
package objectlock

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Labels and annotations on lock Leases.
const (
	// LabelController names the controller a lock belongs to.
	LabelController = "objectlock.seedscaler.io/controller"
	// LabelObjectUID is the UID of the locked object.
	LabelObjectUID = "objectlock.seedscaler.io/uid"
	// AnnotationObject is the locked object as <namespace>/<name> (or <name>), for clean-up
	// and for people reading the Lease.
	AnnotationObject = "objectlock.seedscaler.io/object"
)

// The object locks, and the pods of their holders (a lock of a pod that is gone is taken
// over at once).
// The namespace seedscaler-lock-namespace stands for --lock-namespace: the chart puts the
// Role into the release namespace, in object-locks mode only.
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;create;update;delete,namespace=seedscaler-lock-namespace
// +kubebuilder:rbac:groups="",resources=pods,verbs=get,namespace=seedscaler-lock-namespace

// Locker takes and releases object locks for one replica of one controller.
type Locker struct {
	// Client reads and writes Leases (and Pods, for HolderAlive's default).
	Client client.Client
	// Namespace holds the lock Leases: the controller's own namespace.
	Namespace string
	// Controller names the controller, e.g. set-controller.
	Controller string
	// Holder is this replica's identity: its pod name.
	Holder string
	// LeaseDuration after which a lock whose holder never released it may be taken over.
	LeaseDuration time.Duration
	// Clock tells the time; the real clock when nil.
	Clock clock.Clock
	// HolderAlive reports whether a holder still runs; by default, whether its pod exists in
	// Namespace. A lock of a holder that is gone is taken over at once.
	HolderAlive func(ctx context.Context, holder string) (bool, error)
}

// LeaseName names the lock Lease of the pair (controller, object UID). It never uses the
// object's name: a deleted and recreated object is a new object with a new lock.
func LeaseName(controller string, uid types.UID) string {
	name := controller + "-" + string(uid)
	if len(name) <= 253 {
		return name
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(controller))
	return fmt.Sprintf("%x-%s", h.Sum64(), uid)
}

func (l *Locker) clock() clock.Clock {
	if l.Clock == nil {
		return clock.RealClock{}
	}
	return l.Clock
}

// Lock tries to take the lock of obj. It returns true when this replica holds it now, false
// when another replica does (or won a race for it); then the caller must not reconcile obj.
func (l *Locker) Lock(ctx context.Context, obj client.Object) (bool, error) {
	name := LeaseName(l.Controller, obj.GetUID())
	now := metav1.NewMicroTime(l.clock().Now())
	lease := &coordinationv1.Lease{}
	err := l.Client.Get(ctx, client.ObjectKey{Namespace: l.Namespace, Name: name}, lease)
	if apierrors.IsNotFound(err) {
		lease = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{
				Namespace:   l.Namespace,
				Name:        name,
				Labels:      map[string]string{LabelController: l.Controller, LabelObjectUID: string(obj.GetUID())},
				Annotations: map[string]string{AnnotationObject: objectRef(obj)},
			},
			Spec: l.held(now, 0),
		}
		if err := l.Client.Create(ctx, lease); err != nil {
			if apierrors.IsAlreadyExists(err) {
				return false, nil // another replica created it first
			}
			return false, fmt.Errorf("creating lock %s/%s of %s: %w", l.Namespace, name, objectRef(obj), err)
		}
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading lock %s/%s of %s: %w", l.Namespace, name, objectRef(obj), err)
	}

	holder := ptr.Deref(lease.Spec.HolderIdentity, "")
	if holder != "" && holder != l.Holder {
		free, err := l.takeable(ctx, lease, now.Time)
		if err != nil || !free {
			return false, err
		}
	}
	transitions := ptr.Deref(lease.Spec.LeaseTransitions, 0)
	if holder != l.Holder {
		transitions++
	}
	lease.Spec = l.held(now, transitions)
	// The update carries the resourceVersion we read: if another replica changed the Lease
	// in between, the apiserver refuses it with a conflict and that replica keeps the lock.
	if err := l.Client.Update(ctx, lease); err != nil {
		if apierrors.IsConflict(err) {
			return false, nil
		}
		return false, fmt.Errorf("taking lock %s/%s of %s: %w", l.Namespace, name, objectRef(obj), err)
	}
	return true, nil
}

// takeable reports whether a lock held by another replica may be taken over: its lease has
// expired (the holder died mid-reconcile) or its holder is gone.
func (l *Locker) takeable(ctx context.Context, lease *coordinationv1.Lease, now time.Time) (bool, error) {
	if expired(lease, now) {
		return true, nil
	}
	alive := l.HolderAlive
	if alive == nil {
		alive = l.podExists
	}
	ok, err := alive(ctx, ptr.Deref(lease.Spec.HolderIdentity, ""))
	if err != nil {
		return false, fmt.Errorf("checking holder of lock %s/%s: %w", lease.Namespace, lease.Name, err)
	}
	return !ok, nil
}

func expired(lease *coordinationv1.Lease, now time.Time) bool {
	if lease.Spec.RenewTime == nil || lease.Spec.LeaseDurationSeconds == nil {
		return true
	}
	return now.After(lease.Spec.RenewTime.Add(time.Duration(*lease.Spec.LeaseDurationSeconds) * time.Second))
}

func (l *Locker) podExists(ctx context.Context, holder string) (bool, error) {
	err := l.Client.Get(ctx, client.ObjectKey{Namespace: l.Namespace, Name: holder}, &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
	})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

func (l *Locker) held(now metav1.MicroTime, transitions int32) coordinationv1.LeaseSpec {
	return coordinationv1.LeaseSpec{
		HolderIdentity:       ptr.To(l.Holder),
		LeaseDurationSeconds: ptr.To(int32(l.LeaseDuration.Seconds())),
		AcquireTime:          &now,
		RenewTime:            &now,
		LeaseTransitions:     ptr.To(transitions),
	}
}

// Unlock releases the lock of obj if this replica holds it: the holder is cleared and the
// Lease kept, so the next lock is an update, not a create.
func (l *Locker) Unlock(ctx context.Context, obj client.Object) error {
	name := LeaseName(l.Controller, obj.GetUID())
	lease := &coordinationv1.Lease{}
	if err := l.Client.Get(ctx, client.ObjectKey{Namespace: l.Namespace, Name: name}, lease); err != nil {
		return client.IgnoreNotFound(err)
	}
	if ptr.Deref(lease.Spec.HolderIdentity, "") != l.Holder {
		return nil // taken over after we expired: it is not ours to release
	}
	lease.Spec.HolderIdentity = nil
	if err := l.Client.Update(ctx, lease); err != nil && !apierrors.IsConflict(err) {
		return fmt.Errorf("releasing lock %s/%s of %s: %w", l.Namespace, name, objectRef(obj), err)
	}
	return nil
}

func objectRef(obj client.Object) string {
	if obj.GetNamespace() == "" {
		return obj.GetName()
	}
	return obj.GetNamespace() + "/" + obj.GetName()
}

// parseObjectRef splits an AnnotationObject value into namespace and name.
func parseObjectRef(ref string) (namespace, name string) {
	if i := strings.IndexByte(ref, '/'); i >= 0 {
		return ref[:i], ref[i+1:]
	}
	return "", ref
}
