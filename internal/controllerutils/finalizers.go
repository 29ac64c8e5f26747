package controllerutils

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// EnsureFinalizer adds the finalizer to obj unless it has it. The patch is guarded by obj's
// resourceVersion: a merge patch replaces the whole finalizers list, and another
// controller's finalizer added meanwhile must not be lost.
func EnsureFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string) error {
	if controllerutil.ContainsFinalizer(obj, finalizer) {
		return nil
	}
	patch := client.MergeFromWithOptions(obj.DeepCopyObject().(client.Object), client.MergeFromWithOptimisticLock{})
	controllerutil.AddFinalizer(obj, finalizer)
	if err := c.Patch(ctx, obj, patch); err != nil {
		return fmt.Errorf("adding the finalizer %s to %s: %w", finalizer, describe(obj), err)
	}
	return nil
}

// RemoveFinalizer removes the finalizer from obj when it has it, guarded like
// EnsureFinalizer. An object already gone has nothing to remove.
func RemoveFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string) error {
	if !controllerutil.ContainsFinalizer(obj, finalizer) {
		return nil
	}
	patch := client.MergeFromWithOptions(obj.DeepCopyObject().(client.Object), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(obj, finalizer)
	if err := c.Patch(ctx, obj, patch); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("removing the finalizer %s from %s: %w", finalizer, describe(obj), err)
	}
	return nil
}
