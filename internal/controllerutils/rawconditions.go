package controllerutils

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// PatchCondition sets the condition of conditionType on obj's status to the outcome (or
// removes it when o is nil) in the object as the API server holds it, keeping every other
// condition exactly as its writer wrote it. Seedscaler's types carry conditions as
// metav1.Condition, but a Gardener object's carry lastUpdateTime and codes too, and a merge
// patch of a typed list would replace the whole list, dropping what a gardenlet wrote. So
// the list is changed raw, in this one entry (UpdateRawStatus). It reports whether the
// condition changed.
func PatchCondition(ctx context.Context, c client.Client, obj client.Object, conditionType string, o *Outcome, generation int64, now time.Time) (bool, error) {
	return UpdateRawStatus(ctx, c, obj, func(current *unstructured.Unstructured) (bool, error) {
		list, _, err := unstructured.NestedSlice(current.Object, "status", "conditions")
		if err != nil {
			return false, fmt.Errorf("reading the conditions of %s: %w", describe(obj), err)
		}
		merged, changed := MergeRawCondition(list, conditionType, o, generation, now)
		if !changed {
			return false, nil
		}
		return true, unstructured.SetNestedSlice(current.Object, merged, "status", "conditions")
	})
}

// UpdateRawStatus reads obj as the API server holds it, raw, lets change edit it, and when
// change reports a change writes the status back, guarded by the resourceVersion it read: a
// status written meanwhile by another writer is a conflict to retry on, never overwritten,
// and fields seedscaler's types do not carry are kept. obj names the object (its kind from
// the client's scheme, or its own for an unstructured object) and gets the resourceVersion
// written. It reports whether it wrote.
func UpdateRawStatus(ctx context.Context, c client.Client, obj client.Object, change func(*unstructured.Unstructured) (bool, error)) (bool, error) {
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return false, err
	}
	current := &unstructured.Unstructured{}
	current.SetGroupVersionKind(gvk)
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), current); err != nil {
		return false, fmt.Errorf("reading %s: %w", describe(obj), err)
	}
	changed, err := change(current)
	if err != nil || !changed {
		return false, err
	}
	if err := c.Status().Update(ctx, current); err != nil {
		return false, fmt.Errorf("writing the status of %s: %w", describe(obj), err)
	}
	obj.SetResourceVersion(current.GetResourceVersion())
	return true, nil
}

// MergeRawCondition returns conditions, as decoded JSON, with the entry of conditionType set
// to the outcome (removed when o is nil), and whether anything changed. Every other entry is
// kept as it is. The entry's lastTransitionTime moves only when its status changes. In a
// list written in Gardener's form (entries with lastUpdateTime) the entry gets lastUpdateTime
// and no observedGeneration, which Gardener's conditions lack, and a changed entry loses its
// codes, as Gardener's condition builder drops them when a writer reports none; otherwise
// observedGeneration.
func MergeRawCondition(conditions []any, conditionType string, o *Outcome, generation int64, now time.Time) ([]any, bool) {
	gardenerForm := false
	for _, raw := range conditions {
		entry, _ := raw.(map[string]any)
		if _, ok := entry["lastUpdateTime"]; ok {
			gardenerForm = true
		}
	}
	return mergeRawCondition(conditions, conditionType, o, generation, now, gardenerForm)
}

// MergeGardenerCondition is MergeRawCondition for a list of an object of Gardener's API,
// whose conditions are always in Gardener's form: also the first entry of a list still
// empty gets lastUpdateTime, not observedGeneration.
func MergeGardenerCondition(conditions []any, conditionType string, o Outcome, now time.Time) ([]any, bool) {
	return mergeRawCondition(conditions, conditionType, &o, 0, now, true)
}

func mergeRawCondition(conditions []any, conditionType string, o *Outcome, generation int64, now time.Time, gardenerForm bool) ([]any, bool) {
	stamp := metav1.NewTime(now).UTC().Format(time.RFC3339)
	index := -1
	for i, raw := range conditions {
		if entry, _ := raw.(map[string]any); entry["type"] == conditionType {
			index = i
		}
	}
	if o == nil {
		if index < 0 {
			return conditions, false
		}
		out := make([]any, 0, len(conditions)-1)
		out = append(out, conditions[:index]...)
		return append(out, conditions[index+1:]...), true
	}
	entry := map[string]any{"type": conditionType}
	if index >= 0 {
		old, _ := conditions[index].(map[string]any)
		for k, v := range old {
			entry[k] = v
		}
		if old["status"] == string(o.Status) && old["reason"] == string(o.Reason) && old["message"] == o.Message &&
			(gardenerForm || fmt.Sprint(old["observedGeneration"]) == fmt.Sprint(generation)) {
			return conditions, false
		}
	}
	if entry["status"] != string(o.Status) || entry["lastTransitionTime"] == nil {
		entry["lastTransitionTime"] = stamp
	}
	entry["status"], entry["reason"], entry["message"] = string(o.Status), string(o.Reason), o.Message
	if gardenerForm {
		entry["lastUpdateTime"] = stamp
		delete(entry, "codes")
	} else {
		entry["observedGeneration"] = generation
	}
	out := make([]any, len(conditions), len(conditions)+1)
	copy(out, conditions)
	if index >= 0 {
		out[index] = entry
		return out, true
	}
	return append(out, entry), true
}
