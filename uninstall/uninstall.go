// Package uninstall stops the parts of a seedscaler release before helm deletes them, and
// then deletes the Leases they leave behind. helm deletes a release's Roles and
// RoleBindings together with its Deployments, without waiting for pods to stop: a part
// that stops after its RBAC is gone cannot release its Leases. Run first (the chart's
// pre-delete hook), Preparer scales the release's Deployments to zero, waits until their
// pods are gone, each having released its Leases with its RBAC still in place, and deletes
// exactly the leader election and object lock Leases of the release's parts.
package uninstall

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/seedscaler/seedscaler/internal/objectlock"
)

// Part names the Leases one part of a release takes while it runs.
type Part struct {
	// Name of the part, its subcommand, e.g. set-controller.
	Name string
	// LeaderElection: the part elects a leader with the Lease named LeaderElectionID(Name).
	LeaderElection bool
	// LockControllers are the controllers of the part that take object locks in
	// object-locks mode: their Leases carry objectlock.LabelController with one of them.
	LockControllers []string
}

// LeaderElectionID is the name of a part's leader election Lease, as the part's manager
// (internal/app) names it.
func LeaderElectionID(part string) string {
	return "seedscaler-" + part
}

// Preparer readies a release for helm uninstall. What it does needs, in Namespace: list on
// apps Deployments, patch on deployments/scale, list on Pods; in LeaseNamespace: list and
// delete on coordination.k8s.io Leases.
type Preparer struct {
	// Client reads and writes the release's objects.
	Client client.Client
	// Namespace of the release: its Deployments and their pods.
	Namespace string
	// Selector selects the release's Deployments in Namespace; it must not be empty.
	Selector labels.Selector
	// LeaseNamespace holds the parts' leader election and object lock Leases.
	LeaseNamespace string
	// Parts of the release, whose Leases are deleted once their pods are gone.
	Parts []Part
	// Timeout bounds the wait for the pods to go.
	Timeout time.Duration
	// PollInterval between looks at the remaining pods; two seconds when zero.
	PollInterval time.Duration
	// Clock tells the time; the real clock when nil.
	Clock clock.Clock
}

// Run scales the release down, waits for its pods to go and deletes its Leases. When pods
// remain after Timeout it returns an error naming them and leaves every Lease in place: a
// Lease still held by a running part is not ours to delete.
func (p *Preparer) Run(ctx context.Context) error {
	if p.Selector == nil || p.Selector.Empty() {
		return errors.New("no selector of the release's Deployments: an empty one would scale every Deployment of the namespace")
	}
	deployments, err := p.ScaleDown(ctx)
	if err != nil {
		return err
	}
	if err := p.WaitForPods(ctx, deployments); err != nil {
		return err
	}
	_, err = p.DeleteLeases(ctx)
	return err
}

// ScaleDown sets the replicas of every Deployment of the release to zero through the
// scale subresource, as an HPA or kubectl scale would, and returns the Deployments.
func (p *Preparer) ScaleDown(ctx context.Context) ([]appsv1.Deployment, error) {
	log := logf.FromContext(ctx)
	var list appsv1.DeploymentList
	if err := p.Client.List(ctx, &list, client.InNamespace(p.Namespace), client.MatchingLabelsSelector{Selector: p.Selector}); err != nil {
		return nil, fmt.Errorf("listing the Deployments of %s in namespace %s: %w", p.Selector, p.Namespace, err)
	}
	zero := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":0}}`))
	for i := range list.Items {
		d := &list.Items[i]
		scale := &autoscalingv1.Scale{}
		if err := p.Client.SubResource("scale").Patch(ctx, d, zero, client.WithSubResourceBody(scale)); err != nil {
			return nil, fmt.Errorf("scaling Deployment %s to 0: %w", client.ObjectKeyFromObject(d), err)
		}
		log.Info("Scaled Deployment to 0", "deployment", klog.KObj(d), "replicas", scale.Status.Replicas)
	}
	return list.Items, nil
}

// WaitForPods waits until no pod of the Deployments remains, terminating ones included:
// a part releases its Leases while it stops.
func (p *Preparer) WaitForPods(ctx context.Context, deployments []appsv1.Deployment) error {
	log := logf.FromContext(ctx)
	interval := p.PollInterval
	if interval == 0 {
		interval = 2 * time.Second
	}
	deadline := p.clock().Now().Add(p.Timeout)
	logged := -1
	for {
		remaining, err := p.pods(ctx, deployments)
		if err != nil {
			return err
		}
		if len(remaining) == 0 {
			log.Info("Every pod of the release is gone", "deployments", len(deployments))
			return nil
		}
		if !p.clock().Now().Before(deadline) {
			return fmt.Errorf("%d pods of the release still exist after %s, so their Leases were left in place: %s",
				len(remaining), p.Timeout, strings.Join(remaining, ", "))
		}
		if len(remaining) != logged {
			log.Info("Waiting for pods to stop", "count", len(remaining), "pods", remaining)
			logged = len(remaining)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d pods of the release to stop: %w", len(remaining), ctx.Err())
		case <-p.clock().After(interval):
		}
	}
}

func (p *Preparer) clock() clock.Clock {
	if p.Clock == nil {
		return clock.RealClock{}
	}
	return p.Clock
}

// pods returns the names of the pods the Deployments select.
func (p *Preparer) pods(ctx context.Context, deployments []appsv1.Deployment) ([]string, error) {
	var names []string
	for i := range deployments {
		d := &deployments[i]
		selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil {
			return nil, fmt.Errorf("the selector of Deployment %s: %w", client.ObjectKeyFromObject(d), err)
		}
		if selector.Empty() {
			continue // selects nothing we could wait for; the apiserver refuses such Deployments
		}
		pods := &metav1.PartialObjectMetadataList{}
		pods.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
		if err := p.Client.List(ctx, pods, client.InNamespace(p.Namespace), client.MatchingLabelsSelector{Selector: selector}); err != nil {
			return nil, fmt.Errorf("listing the pods of Deployment %s: %w", client.ObjectKeyFromObject(d), err)
		}
		for _, pod := range pods.Items {
			names = append(names, pod.Name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// DeleteLeases deletes the leader election Lease of every part that elects a leader and
// the object lock Leases of every part's controllers, and no other Lease. It returns how
// many it deleted.
func (p *Preparer) DeleteLeases(ctx context.Context) (int, error) {
	log := logf.FromContext(ctx)
	deleted := 0
	var lockControllers []string
	for _, part := range p.Parts {
		lockControllers = append(lockControllers, part.LockControllers...)
		if !part.LeaderElection {
			continue
		}
		lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: p.LeaseNamespace, Name: LeaderElectionID(part.Name)}}
		if err := p.Client.Delete(ctx, lease); err != nil {
			if client.IgnoreNotFound(err) != nil {
				return deleted, fmt.Errorf("deleting the leader election Lease %s of %s: %w", client.ObjectKeyFromObject(lease), part.Name, err)
			}
			continue
		}
		log.Info("Deleted leader election Lease", "lease", klog.KObj(lease), "part", part.Name)
		deleted++
	}
	if len(lockControllers) == 0 {
		return deleted, nil
	}
	byController, err := labels.NewRequirement(objectlock.LabelController, selection.In, lockControllers)
	if err != nil {
		return deleted, fmt.Errorf("selecting the object locks of %v: %w", lockControllers, err)
	}
	var locks coordinationv1.LeaseList
	if err := p.Client.List(ctx, &locks, client.InNamespace(p.LeaseNamespace),
		client.MatchingLabelsSelector{Selector: labels.NewSelector().Add(*byController)}); err != nil {
		return deleted, fmt.Errorf("listing the object locks of %v in namespace %s: %w", lockControllers, p.LeaseNamespace, err)
	}
	locksDeleted := 0
	for i := range locks.Items {
		lock := &locks.Items[i]
		// Exactly the Lease we listed: one recreated under its name since is not ours.
		err := p.Client.Delete(ctx, lock, client.Preconditions{UID: &lock.UID})
		switch {
		case err == nil:
			locksDeleted++
		case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		default:
			return deleted + locksDeleted, fmt.Errorf("deleting object lock %s: %w", client.ObjectKeyFromObject(lock), err)
		}
	}
	log.Info("Deleted object locks", "count", locksDeleted, "controllers", lockControllers)
	return deleted + locksDeleted, nil
}
