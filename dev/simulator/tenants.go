package simulator

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// expectationTimeout is how long (wall-clock time) a tenant's own create or delete counts
// although the reads do not show it yet; after that the reads are believed. Only the
// tenants delete their shoots, so an expectation is wrong only when a shoot goes that the
// reads never showed; a read, though, can stand still for minutes: a loaded garden's API
// server cuts the watches that fall behind, and each cache lists every shoot again.
const expectationTimeout = 10 * time.Minute

// expectedShoot is a tenant shoot created at (the simulator's clock) that the reads may not
// show yet.
type expectedShoot struct {
	shoot *gardencorev1beta1.Shoot
	at    time.Time
}

// IsTenant says whether the simulated tenants created the shoot.
func IsTenant(shoot *gardencorev1beta1.Shoot) bool {
	return shoot.Labels[LabelTenant] == "true"
}

// demandKey is the key of Desired a tenant shoot counts against.
func demandKey(profile Profile, shoot *gardencorev1beta1.Shoot) string {
	if profile != ProfileReplay {
		return AnyLocation
	}
	return shoot.Spec.Provider.Type + "/" + shoot.Spec.Region
}

// TenantChanges decides which tenant shoots to delete and how many to create per demand key:
// shoots whose lifetime has expired go, then the oldest of any key that has more than it
// wants; keys with fewer get new ones. live are the tenant shoots not being deleted, keyed by
// demand key; expired says whether a shoot's lifetime is over.
func TenantChanges(desired map[string]int, live map[string][]*gardencorev1beta1.Shoot, expired func(*gardencorev1beta1.Shoot) bool) (remove []*gardencorev1beta1.Shoot, create map[string]int) {
	create = map[string]int{}
	keys := make([]string, 0, len(desired)+len(live))
	for k := range desired {
		keys = append(keys, k)
	}
	for k := range live {
		if _, ok := desired[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		shoots := append([]*gardencorev1beta1.Shoot(nil), live[k]...)
		sort.Slice(shoots, func(i, j int) bool {
			a, b := shoots[i], shoots[j]
			if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
				return a.CreationTimestamp.Before(&b.CreationTimestamp)
			}
			return usage.Key(a) < usage.Key(b)
		})
		var keep []*gardencorev1beta1.Shoot
		for _, sh := range shoots {
			if expired(sh) {
				remove = append(remove, sh)
			} else {
				keep = append(keep, sh)
			}
		}
		want := desired[k]
		if excess := len(keep) - want; excess > 0 {
			remove = append(remove, keep[:excess]...)
			keep = keep[excess:]
		}
		if missing := want - len(keep); missing > 0 {
			create[k] = missing
		}
	}
	return remove, create
}

// reconcileTenants creates and deletes tenant shoots until every demand key has what it wants.
func (s *Simulator) reconcileTenants(ctx context.Context, shoots []gardencorev1beta1.Shoot, desired map[string]int, now time.Time) []error {
	live := map[string][]*gardencorev1beta1.Shoot{}
	seen := make(map[string]bool, len(shoots))
	for i := range shoots {
		sh := &shoots[i]
		seen[usage.Key(sh)] = true
		if !IsTenant(sh) {
			continue
		}
		if sh.DeletionTimestamp != nil {
			delete(s.expectDeleted, sh.UID)
			continue
		}
		if at, ok := s.expectDeleted[sh.UID]; ok && now.Sub(at) < expectationTimeout {
			continue // deleted; the read does not show it yet
		}
		k := demandKey(s.cfg.Demand.Profile, sh)
		live[k] = append(live[k], sh)
	}
	// A deletion is expected until the read shows the shoot deleting or the time is up (a
	// shoot created and deleted while the read lags may not show up at all yet).
	for uid, at := range s.expectDeleted {
		if now.Sub(at) >= expectationTimeout {
			delete(s.expectDeleted, uid)
		}
	}
	for name, e := range s.expectCreated {
		if seen[name] || now.Sub(e.at) >= expectationTimeout {
			delete(s.expectCreated, name)
			continue
		}
		// Created; the read does not show it yet.
		k := demandKey(s.cfg.Demand.Profile, e.shoot)
		live[k] = append(live[k], e.shoot)
	}
	expired := func(sh *gardencorev1beta1.Shoot) bool {
		at, err := time.Parse(time.RFC3339Nano, sh.Annotations[AnnotationExpiresAt])
		return err == nil && !now.Before(at)
	}
	remove, create := TenantChanges(desired, live, expired)

	var errs errorList
	errs.errs = s.retryFailedTenants(ctx, live, remove)
	s.forEach(len(remove), func(i int) {
		sh := remove[i]
		if err := s.deleteShoot(ctx, sh); err != nil && !apierrors.IsNotFound(err) {
			errs.add(fmt.Errorf("deleting tenant shoot %s: %w", client.ObjectKeyFromObject(sh), err))
			return
		}
		s.stateMu.Lock()
		delete(s.expectCreated, usage.Key(sh))
		s.expectDeleted[sh.UID] = now
		s.stateMu.Unlock()
		log.FromContext(ctx).V(1).Info("Tenant deleted a shoot", "shoot", klog.KObj(sh))
	})

	// The new shoots are drawn one after the other, so a run repeats, and written at once.
	keys := make([]string, 0, len(create))
	for k := range create {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var created []*gardencorev1beta1.Shoot
	budget := s.cfg.Demand.Burst
	for _, k := range keys {
		if s.cfg.Demand.Burst > 0 {
			// Each demand key gets its share of the step's burst, in key order.
			create[k] = min(create[k], budget)
			budget -= create[k]
		}
		for range create[k] {
			sh := s.newTenantShoot(k, now)
			if err := s.ensureNamespace(ctx, sh.Namespace); err != nil {
				errs.add(err)
				break
			}
			created = append(created, sh)
		}
	}
	s.forEach(len(created), func(i int) {
		sh := created[i]
		if err := s.createShoot(ctx, sh); err != nil {
			if !apierrors.IsAlreadyExists(err) {
				errs.add(fmt.Errorf("creating tenant shoot %s: %w", client.ObjectKeyFromObject(sh), err))
			}
			return // AlreadyExists: a name drawn twice; the next step makes up for it
		}
		s.stateMu.Lock()
		s.expectCreated[usage.Key(sh)] = expectedShoot{shoot: sh, at: now}
		s.stateMu.Unlock()
		log.FromContext(ctx).V(1).Info("Tenant created a shoot", "shoot", klog.KObj(sh))
	})
	return errs.errs
}

// createShoot creates a tenant shoot; in a garden in the shape gardener-apiserver admits
// (GardenTenantShoot).
func (s *Simulator) createShoot(ctx context.Context, sh *gardencorev1beta1.Shoot) error {
	if !s.Garden {
		return s.client.Create(ctx, sh)
	}
	u, err := GardenTenantShoot(sh)
	if err != nil {
		return err
	}
	return s.client.Create(ctx, u)
}

// GardenTenantShoot is a tenant shoot as a tenant of a Gardener garden writes it: the cloud
// profile named in spec.cloudProfile, since gardener-apiserver refuses spec.cloudProfileName
// for Kubernetes 1.34 and later (its default version), which seedscaler's Shoot type does
// not carry.
func GardenTenantShoot(sh *gardencorev1beta1.Shoot) (*unstructured.Unstructured, error) {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(sh)
	if err != nil {
		return nil, fmt.Errorf("converting tenant shoot %s: %w", client.ObjectKeyFromObject(sh), err)
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetGroupVersionKind(gardencorev1beta1.GroupVersion.WithKind("Shoot"))
	unstructured.RemoveNestedField(u.Object, "status")
	if name := ptr.Deref(sh.Spec.CloudProfileName, ""); name != "" {
		unstructured.RemoveNestedField(u.Object, "spec", "cloudProfileName")
		if err := unstructured.SetNestedStringMap(u.Object, map[string]string{"kind": "CloudProfile", "name": name}, "spec", "cloudProfile"); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// deleteShoot deletes a tenant shoot; in a garden the tenant first confirms the deletion
// with the annotation gardener-apiserver requires.
func (s *Simulator) deleteShoot(ctx context.Context, sh *gardencorev1beta1.Shoot) error {
	if s.Garden && sh.Annotations[AnnotationConfirmDeletion] != "true" {
		sh = sh.DeepCopy() // shares its fields with the cache's
		orig := sh.DeepCopy()
		metav1.SetMetaDataAnnotation(&sh.ObjectMeta, AnnotationConfirmDeletion, "true")
		if err := s.client.Patch(ctx, sh, client.MergeFrom(orig)); err != nil {
			return fmt.Errorf("confirming the deletion: %w", err)
		}
	}
	return s.client.Delete(ctx, sh)
}

// retryFailedTenants asks for a retry of every tenant shoot whose last operation failed, as
// its owner would: the gardener.cloud/operation=retry annotation. Shoots about to go are left.
func (s *Simulator) retryFailedTenants(ctx context.Context, live map[string][]*gardencorev1beta1.Shoot, remove []*gardencorev1beta1.Shoot) []error {
	going := make(map[*gardencorev1beta1.Shoot]bool, len(remove))
	for _, sh := range remove {
		going[sh] = true
	}
	var errs []error
	for _, shoots := range live {
		for _, sh := range shoots {
			op := sh.Status.LastOperation
			if going[sh] || op == nil || op.State != gardencorev1beta1.LastOperationStateFailed ||
				sh.Annotations[seedmanagementv1alpha1.AnnotationOperation] == seedmanagementv1alpha1.OperationRetry {
				continue
			}
			listed := sh // shares its fields with the cache's: change a copy, leave it in the list
			sh = sh.DeepCopy()
			orig := sh.DeepCopy()
			metav1.SetMetaDataAnnotation(&sh.ObjectMeta, seedmanagementv1alpha1.AnnotationOperation, seedmanagementv1alpha1.OperationRetry)
			if err := s.client.Patch(ctx, sh, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
				if !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
					errs = append(errs, fmt.Errorf("asking for a retry of tenant shoot %s: %w", client.ObjectKeyFromObject(sh), err))
				}
				continue
			}
			*listed = *sh
			log.FromContext(ctx).V(1).Info("Tenant asked for a retry", "shoot", klog.KObj(sh))
		}
	}
	return errs
}

const nameAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// newTenantShoot draws a tenant shoot for a demand key: project, location (by weight for
// AnyLocation), purpose, high availability, tolerations and lifetime.
func (s *Simulator) newTenantShoot(key string, now time.Time) *gardencorev1beta1.Shoot {
	d := &s.cfg.Demand
	project := d.Projects[s.rand.IntN(len(d.Projects))]
	var loc Location
	if key == AnyLocation {
		loc = pickWeighted(d.Locations, func(l Location) float64 { return l.Weight }, s.rand.Float64())
	} else {
		provider, region, _ := strings.Cut(key, "/")
		loc = Location{Provider: provider, Region: region, CloudProfile: provider}
		for _, l := range d.Locations {
			if l.Key() == key {
				loc = l
			}
		}
	}
	name := make([]byte, 6)
	for i := range name {
		name[i] = nameAlphabet[s.rand.IntN(len(nameAlphabet))]
	}
	shoot := &gardencorev1beta1.Shoot{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:  ProjectNamespacePrefix + project,
			Name:       "t-" + string(name),
			Labels:     map[string]string{LabelTenant: "true"},
			Finalizers: []string{Finalizer},
		},
		Spec: gardencorev1beta1.ShootSpec{
			CloudProfileName: ptr.To(loc.CloudProfile),
			Provider:         gardencorev1beta1.Provider{Type: loc.Provider},
			Region:           loc.Region,
			Networking:       &gardencorev1beta1.Networking{Nodes: ptr.To(d.NodesCIDR)},
		},
	}
	if d.SchedulerName != "" {
		shoot.Spec.SchedulerName = ptr.To(d.SchedulerName)
	}
	shoot.Spec.Purpose = ptr.To(pickWeighted(d.Purposes, func(p WeightedPurpose) float64 { return p.Weight }, s.rand.Float64()).Purpose)
	if s.rand.Float64() < d.HighAvailability {
		shoot.Spec.ControlPlane = &gardencorev1beta1.ControlPlane{HighAvailability: &gardencorev1beta1.HighAvailability{
			FailureTolerance: gardencorev1beta1.FailureTolerance{Type: gardencorev1beta1.FailureToleranceTypeZone},
		}}
	}
	if len(d.Tolerations) > 0 {
		for _, k := range pickWeighted(d.Tolerations, func(t WeightedTolerations) float64 { return t.Weight }, s.rand.Float64()).Keys {
			shoot.Spec.Tolerations = append(shoot.Spec.Tolerations, gardencorev1beta1.Toleration{Key: k})
		}
	}
	if s.Garden {
		// A tenant of a garden sets no finalizer: the gardenlet puts Gardener's on the shoot
		// once it is bound. Its shoot has no workers, and gardener-apiserver forbids a node
		// network without workers.
		shoot.Finalizers, shoot.Spec.Networking = nil, nil
	}
	if lifetime, ok := DrawLifetime(d.Lifetime, s.rand); ok {
		shoot.Annotations = map[string]string{AnnotationExpiresAt: now.Add(s.real(lifetime)).UTC().Format(time.RFC3339Nano)}
	}
	return shoot
}

// pickWeighted picks one of items (not empty) by their weights; u is a uniform draw in [0, 1).
func pickWeighted[T any](items []T, weight func(T) float64, u float64) T {
	weights := make([]float64, len(items))
	for i, item := range items {
		weights[i] = weight(item)
	}
	return items[PickWeighted(weights, u)]
}
