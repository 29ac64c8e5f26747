package controllerutils

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// PatchStatus writes what changed in obj's status since before, a copy of obj taken when
// the reconcile read it, in one merge patch of the status subresource, and writes nothing
// when the status is unchanged. Only the status is compared and sent: metadata that moved
// on meanwhile (a finalizer patched in) does not count as a change. With optimisticLock the
// patch carries before's resourceVersion, so that a status another writer changed meanwhile
// is not overwritten (a merge patch replaces whole lists, such as conditions); the write
// then fails with a conflict to retry on.
func PatchStatus(ctx context.Context, c client.Client, obj, before client.Object, optimisticLock bool) error {
	data, err := client.MergeFrom(before).Data(obj)
	if err != nil {
		return fmt.Errorf("computing the status patch of %s: %w", describe(obj), err)
	}
	var diff map[string]json.RawMessage
	if err := json.Unmarshal(data, &diff); err != nil {
		return fmt.Errorf("reading the status patch of %s: %w", describe(obj), err)
	}
	status, changed := diff["status"]
	if !changed {
		return nil
	}
	patch := map[string]any{"status": status}
	if optimisticLock {
		patch["metadata"] = map[string]string{"resourceVersion": before.GetResourceVersion()}
	}
	data, err = json.Marshal(patch)
	if err != nil {
		return fmt.Errorf("encoding the status patch of %s: %w", describe(obj), err)
	}
	if err := c.Status().Patch(ctx, obj, client.RawPatch(types.MergePatchType, data)); err != nil {
		return fmt.Errorf("writing the status of %s: %w", describe(obj), err)
	}
	return nil
}

// describe names an object for an error: its kind and key, such as ManagedSeed garden/eu-1.
func describe(obj client.Object) string {
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	if kind == "" {
		if t := reflect.TypeOf(obj); t.Kind() == reflect.Pointer {
			kind = t.Elem().Name()
		}
	}
	return kind + " " + klog.KObj(obj).String()
}

// Truncate shortens s to at most n bytes, ending in "..." when it cut: for messages that go
// into status fields and event notes of bounded length.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}
