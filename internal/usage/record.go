package usage

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/membership"
)

// Record is what a part's Shoot cache keeps of a shoot it only counts (Counted), plus what
// the part asks for in Kept. The cache's store holds the record, and whoever reads the
// cache sees the slim Shoot it stands for (Expand): informer handlers and indexes through
// controllerutils.NewInformer, controller-runtime's Get and List through DeepCopyObject.
// A record is never changed once stored; an update replaces it.
type Record struct {
	name, namespace, resourceVersion string
	uid                              types.UID
	generation                       int64
	// created is metadata.creationTimestamp in Unix seconds (its resolution), 0 when unset.
	created          int64
	deleted          *metav1.Time
	seed, statusSeed *string // interned
	// Kept is what the part keeps beyond what counting reads; the zero value keeps nothing.
	Kept Kept
}

// Kept is what a scheduler reads of a bound shoot beyond what counting reads: whose shoot it
// is, whether it may migrate, and how its last operation went.
type Kept struct {
	// SchedulerName is spec.schedulerName, interned (InternPointer).
	SchedulerName *string
	// Set is the name of the ManagedSeedSet whose replica the shoot is (membership.SetOf),
	// "" for none; the slim Shoot names it in its only owner reference.
	Set string
	// Migration is the value of the migration annotation, interned; nil without it.
	Migration *string
	// LastOperation is status.lastOperation's type and state, one value shared by every
	// record with them; nil without a last operation.
	LastOperation *gardencorev1beta1.LastOperation
}

var shootTypeMeta = metav1.TypeMeta{APIVersion: gardencorev1beta1.GroupVersion.String(), Kind: "Shoot"}

// Expand returns the slim Shoot the record stands for: a new object, which the caller may
// change, though its pointers are interned and shared (copy it with DeepCopy first).
func (r *Record) Expand() client.Object {
	shoot := &gardencorev1beta1.Shoot{
		TypeMeta: shootTypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name: r.name, Namespace: r.namespace, UID: r.uid, ResourceVersion: r.resourceVersion,
			Generation: r.generation, DeletionTimestamp: r.deleted,
		},
		Spec:   gardencorev1beta1.ShootSpec{SeedName: r.seed, SchedulerName: r.Kept.SchedulerName},
		Status: gardencorev1beta1.ShootStatus{SeedName: r.statusSeed, LastOperation: r.Kept.LastOperation},
	}
	if r.created != 0 {
		shoot.CreationTimestamp = metav1.Unix(r.created, 0)
	}
	if r.Kept.Set != "" {
		shoot.OwnerReferences = []metav1.OwnerReference{membership.Reference(r.Kept.Set)}
	}
	if r.Kept.Migration != nil {
		shoot.Annotations = map[string]string{gardencorev1beta1.AnnotationMigration: *r.Kept.Migration}
	}
	return shoot
}

// GetObjectMeta lets an informer's store key the record and tell an update from a resync
// by its resource version (metav1.ObjectMetaAccessor).
func (r *Record) GetObjectMeta() metav1.Object {
	return &metav1.ObjectMeta{Name: r.name, Namespace: r.namespace, UID: r.uid, ResourceVersion: r.resourceVersion}
}

// GetObjectKind implements runtime.Object: a record carries no type information.
func (r *Record) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject returns the Shoot the record stands for (Expand): controller-runtime's
// cache reader copies what it returns with it, so Get and List of Shoots read records as
// Shoots.
func (r *Record) DeepCopyObject() runtime.Object {
	return r.Expand().(*gardencorev1beta1.Shoot).DeepCopy()
}
