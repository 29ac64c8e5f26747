package managedseedset

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

// revisionData is what a ControllerRevision of a set stores: both templates. Rolling back
// means copying these two fields back into the set's spec.
type revisionData struct {
	Template      seedmanagementv1alpha1.ManagedSeedTemplate `json:"template"`
	ShootTemplate gardencorev1beta1.ShootTemplate            `json:"shootTemplate"`
}

func templatesOf(set *seedmanagementv1alpha1.ManagedSeedSet) revisionData {
	return revisionData{Template: *set.Spec.Template.DeepCopy(), ShootTemplate: *set.Spec.ShootTemplate.DeepCopy()}
}

func (d revisionData) raw() ([]byte, error) {
	return json.Marshal(d)
}

func decodeRevision(rev *appsv1.ControllerRevision) (revisionData, error) {
	var d revisionData
	if err := json.Unmarshal(rev.Data.Raw, &d); err != nil {
		return d, fmt.Errorf("decoding ControllerRevision %s/%s: %w", rev.Namespace, rev.Name, err)
	}
	return d, nil
}

// revisionHash hashes the templates and the collision count, like the StatefulSet
// controller: a collision of names is resolved by counting it and hashing again.
func revisionHash(raw []byte, collisionCount *int32) string {
	h := fnv.New32a()
	_, _ = h.Write(raw)
	if collisionCount != nil {
		var buf [4]byte
		binary.LittleEndian.PutUint32(buf[:], uint32(*collisionCount))
		_, _ = h.Write(buf[:])
	}
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// revisionName is <set>-<hash>, the set name shortened so the name stays a valid label
// value (it is the controller-revision-hash label of the replicas).
func revisionName(setName, hash string) string {
	const maxLabelValue = 63
	if len(setName)+1+len(hash) > maxLabelValue {
		setName = setName[:maxLabelValue-1-len(hash)]
	}
	return setName + "-" + hash
}

// sameTemplates reports whether a revision stores the given templates.
func sameTemplates(rev *appsv1.ControllerRevision, want revisionData) bool {
	got, err := decodeRevision(rev)
	return err == nil && apiequality.Semantic.DeepEqual(got, want)
}

// revisionsToPrune returns the revisions to delete so that at most limit revisions remain
// besides the live ones (current, update, and any a replica still runs), oldest first.
func revisionsToPrune(revisions []*appsv1.ControllerRevision, live map[string]bool, limit int) []*appsv1.ControllerRevision {
	var history []*appsv1.ControllerRevision
	for _, rev := range revisions {
		if !live[rev.Name] {
			history = append(history, rev)
		}
	}
	slices.SortFunc(history, func(a, b *appsv1.ControllerRevision) int {
		switch {
		case a.Revision != b.Revision:
			return int(a.Revision - b.Revision)
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	if len(history) <= limit {
		return nil
	}
	return history[:len(history)-limit]
}

// revisions holds a set's ControllerRevisions and the two that matter.
type revisions struct {
	all     []*appsv1.ControllerRevision
	current *appsv1.ControllerRevision
	update  *appsv1.ControllerRevision
	// templates by revision name, decoded.
	templates map[string]revisionData
}

// ensureRevisions finds or creates the update revision of the set's templates (raising an
// old equal revision to the newest number, which is what a rollback looks like) and finds the
// current revision. It may raise status.collisionCount.
func (a *Actuator) ensureRevisions(ctx context.Context, set *seedmanagementv1alpha1.ManagedSeedSet,
	status *seedmanagementv1alpha1.ManagedSeedSetStatus, owned []*appsv1.ControllerRevision) (*revisions, error) {
	want := templatesOf(set)
	raw, err := want.raw()
	if err != nil {
		return nil, fmt.Errorf("encoding the templates of ManagedSeedSet %s/%s: %w", set.Namespace, set.Name, err)
	}
	revs := &revisions{all: owned, templates: map[string]revisionData{}}
	var maxRevision int64
	// An existing revision with the same templates becomes the update revision.
	var equal *appsv1.ControllerRevision
	for _, rev := range owned {
		maxRevision = max(maxRevision, rev.Revision)
		d, err := decodeRevision(rev)
		if err != nil {
			continue
		}
		revs.templates[rev.Name] = d
		if apiequality.Semantic.DeepEqual(d, want) && (equal == nil || rev.Revision > equal.Revision) {
			equal = rev
		}
	}
	if equal != nil {
		if equal.Revision < maxRevision {
			patch := client.MergeFrom(equal.DeepCopy())
			equal.Revision = maxRevision + 1
			if err := a.Client.Patch(ctx, equal, patch); err != nil {
				return nil, fmt.Errorf("raising ControllerRevision %s/%s to revision %d: %w", equal.Namespace, equal.Name, equal.Revision, err)
			}
		}
		revs.update = equal
	} else {
		rev, err := a.createRevision(ctx, set, status, raw, maxRevision+1)
		if err != nil {
			return nil, err
		}
		revs.all = append(revs.all, rev)
		revs.templates[rev.Name] = want
		revs.update = rev
	}

	for _, rev := range revs.all {
		if rev.Name == status.CurrentRevision {
			revs.current = rev
		}
	}
	if revs.current == nil {
		revs.current = revs.update
	}
	return revs, nil
}

// createRevision creates the ControllerRevision of the templates, counting name collisions
// with a revision of other data in status.collisionCount.
func (a *Actuator) createRevision(ctx context.Context, set *seedmanagementv1alpha1.ManagedSeedSet,
	status *seedmanagementv1alpha1.ManagedSeedSetStatus, raw []byte, number int64) (*appsv1.ControllerRevision, error) {
	want := templatesOf(set)
	for range 5 {
		name := revisionName(set.Name, revisionHash(raw, status.CollisionCount))
		rev := &appsv1.ControllerRevision{
			ObjectMeta: metav1.ObjectMeta{
				Name:            name,
				Namespace:       set.Namespace,
				Labels:          map[string]string{seedmanagementv1alpha1.LabelManagedSeedSet: set.Name},
				OwnerReferences: []metav1.OwnerReference{controllerRef(set)},
			},
			Data:     runtime.RawExtension{Raw: raw},
			Revision: number,
		}
		err := a.Client.Create(ctx, rev)
		if err == nil {
			return rev, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("creating ControllerRevision %s/%s: %w", set.Namespace, name, err)
		}
		existing := &appsv1.ControllerRevision{}
		reader, _ := a.ownedBy(set)
		if err := reader.Get(ctx, client.ObjectKeyFromObject(rev), existing); err != nil {
			return nil, fmt.Errorf("reading ControllerRevision %s/%s after a name collision: %w", set.Namespace, name, err)
		}
		if metav1.IsControlledBy(existing, set) && sameTemplates(existing, want) {
			return existing, nil
		}
		count := int32(1)
		if status.CollisionCount != nil {
			count = *status.CollisionCount + 1
		}
		status.CollisionCount = &count
	}
	return nil, fmt.Errorf("creating a ControllerRevision for ManagedSeedSet %s/%s: five name collisions in a row", set.Namespace, set.Name)
}

// revisionFor is the revision a replica with the given ordinal is created at: the update
// revision from the partition up, the current revision below it.
func revisionFor(ordinal, partition int32, revs *revisions) *appsv1.ControllerRevision {
	if ordinal >= partition {
		return revs.update
	}
	return revs.current
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
