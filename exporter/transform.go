package exporter

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/membership"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// The informers keep only what a scrape reads: at 100,000 shoots every byte per shoot is
// 100 kB of heap. Transforms run once per object and event, before the object is stored.
//
// Shoots become the exporter's own small records (shootInfo): no quantities in what we
// keep, so nothing can fail to parse. Seeds, ManagedSeeds, sets and autoscalers are few;
// they stay unstructured (only the fields we read) so that one malformed quantity in one
// object is a skipped series and a counted error at scrape time, not a decode error that
// stops the whole informer.

// transformShoot turns a Shoot from the dynamic informer into the exporter's record of it
// (shootInfo): its key, name, namespace, resource version and creation time, provider
// type, region, purpose, spec.seedName and status.seedName, and its garden_shoot_info line. The
// informer's store and the shoot index hold the same record, so a shoot costs one small
// struct and its line instead of a typed Shoot beside its series: at 100,000 shoots a typed
// Shoot, even with six fields set, was 55 MB of the exporter's heap. Strings that repeat
// across shoots (namespace, provider, region, purpose, seed) are interned.
func transformShoot(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil // already transformed, or a tombstone
	}
	namespace := usage.Intern(u.GetNamespace())
	key := namespace + "/" + u.GetName()
	info := &shootInfo{
		key:             key,
		name:            key[len(namespace)+1:],
		namespace:       namespace,
		resourceVersion: u.GetResourceVersion(),
		provider:        usage.Intern(nestedString(u.Object, "spec", "provider", "type")),
		region:          usage.Intern(nestedString(u.Object, "spec", "region")),
		purpose:         usage.Intern(nestedString(u.Object, "spec", "purpose")),
		seed:            usage.Intern(nestedString(u.Object, "spec", "seedName")),
		statusSeed:      usage.Intern(nestedString(u.Object, "status", "seedName")),
	}
	if created := u.GetCreationTimestamp(); !created.IsZero() {
		info.created = created.Unix()
	}
	info.line = info.textLine()
	return info, nil
}

// transformSeed keeps a Seed's name, the labels membership reads (the namespace of its
// ManagedSeed, and the set labels of seeds seedscaler labeled), provider, visibility,
// capacity, allocatable and the type and status of its conditions.
func transformSeed(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || isStripped(u) {
		return obj, nil
	}
	out := stripped(u)
	if labels := u.GetLabels(); len(labels) > 0 {
		kept := map[string]any{}
		for _, key := range []string{membership.LabelManagedSeedNamespace, seedmanagementv1alpha1.LabelManagedSeedSet, seedmanagementv1alpha1.LabelManagedSeedSetNamespace} {
			if v, ok := labels[key]; ok {
				kept[key] = v
			}
		}
		if len(kept) > 0 {
			setField(out.Object, kept, "metadata", "labels")
		}
	}
	copyField(u.Object, out.Object, "spec", "provider", "type")
	copyField(u.Object, out.Object, "spec", "provider", "region")
	copyField(u.Object, out.Object, "spec", "settings", "scheduling", "visible")
	copyField(u.Object, out.Object, "status", "capacity")
	copyField(u.Object, out.Object, "status", "allocatable")
	copyConditions(u.Object, out.Object, false)
	return out, nil
}

// transformManagedSeed keeps a ManagedSeed's name and namespace and, for a replica, the
// set it belongs to (membership.SetOf) as a controller reference naming the set and
// nothing else: all a seed's garden_seed_info reads of it.
func transformManagedSeed(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || isStripped(u) {
		return obj, nil
	}
	out := stripped(u)
	if set, ok := membership.SetOf(u); ok {
		out.SetOwnerReferences([]metav1.OwnerReference{membership.Reference(set.Name)})
	}
	return out, nil
}

// transformManagedSeedSet keeps spec.replicas, status.replicas, status.readyReplicas and
// status.pendingReplica.retries.
func transformManagedSeedSet(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || isStripped(u) {
		return obj, nil
	}
	out := stripped(u)
	copyField(u.Object, out.Object, "spec", "replicas")
	copyField(u.Object, out.Object, "status", "replicas")
	copyField(u.Object, out.Object, "status", "readyReplicas")
	copyField(u.Object, out.Object, "status", "pendingReplica", "retries")
	return out, nil
}

// transformSeedAutoscaler keeps the replica bounds, the metrics with their targets, and
// the status replicas, current metrics and conditions (type, status and reason: the reason
// tells missing metrics from a configuration error or a deliberate zero; one short, interned
// string per condition of objects that are few).
func transformSeedAutoscaler(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || isStripped(u) {
		return obj, nil
	}
	out := stripped(u)
	copyField(u.Object, out.Object, "spec", "minReplicas")
	copyField(u.Object, out.Object, "spec", "maxReplicas")
	copyField(u.Object, out.Object, "spec", "metrics")
	copyField(u.Object, out.Object, "status", "currentReplicas")
	copyField(u.Object, out.Object, "status", "desiredReplicas")
	copyField(u.Object, out.Object, "status", "currentMetrics")
	copyConditions(u.Object, out.Object, true)
	return out, nil
}

// strippedMarker is set on objects a transform produced, so that a second pass (the
// informer may hand a stored object back) leaves them alone.
const strippedMarker = "seedscaler.exporter/stripped"

func isStripped(u *unstructured.Unstructured) bool {
	_, ok := u.Object[strippedMarker]
	return ok
}

// stripped starts the kept copy of an object: its kind, name and namespace.
func stripped(u *unstructured.Unstructured) *unstructured.Unstructured {
	metadata := map[string]any{"name": u.GetName()}
	if ns := u.GetNamespace(); ns != "" {
		metadata["namespace"] = ns
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion":   u.GetAPIVersion(),
		"kind":         u.GetKind(),
		"metadata":     metadata,
		strippedMarker: true,
	}}
}

// copyConditions keeps the type and status of each status condition, and its reason
// when withReason is set.
func copyConditions(from, to map[string]any, withReason bool) {
	conditions, ok, _ := unstructured.NestedFieldNoCopy(from, "status", "conditions")
	if !ok {
		return
	}
	list, ok := conditions.([]any)
	if !ok {
		setField(to, conditions, "status", "conditions") // malformed: let the scrape count it
		return
	}
	kept := make([]any, 0, len(list))
	for _, c := range list {
		m, ok := c.(map[string]any)
		if !ok {
			kept = append(kept, c)
			continue
		}
		condition := map[string]any{"type": m["type"], "status": m["status"]}
		if reason, ok := m["reason"]; ok && withReason {
			if s, isString := reason.(string); isString {
				reason = usage.Intern(s)
			}
			condition["reason"] = reason
		}
		kept = append(kept, condition)
	}
	setField(to, kept, "status", "conditions")
}

func copyField(from, to map[string]any, path ...string) {
	if v, ok, _ := unstructured.NestedFieldNoCopy(from, path...); ok {
		setField(to, v, path...)
	}
}

// setField sets a value at a path, creating the maps on the way; unlike
// unstructured.SetNestedField it does not deep-copy the value, which we no longer share.
func setField(obj map[string]any, value any, path ...string) {
	m := obj
	for _, field := range path[:len(path)-1] {
		next, ok := m[field].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[field] = next
		}
		m = next
	}
	m[path[len(path)-1]] = value
}

// nestedString reads a string field; anything else reads as empty.
func nestedString(obj map[string]any, path ...string) string {
	v, _, _ := unstructured.NestedFieldNoCopy(obj, path...)
	s, _ := v.(string)
	return s
}
