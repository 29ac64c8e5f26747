package managedseedset

import (
	"context"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

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
