package simulator

import (
	"fmt"
	"maps"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/setcapacity"
)

// What the simulated gardenlets write in a Gardener garden, with Gardener's names
// (v1beta1constants and the gardenlet's controllers).
const (
	// GardenerFinalizer is Gardener's finalizer: a gardenlet puts it on the shoots, seeds and
	// ManagedSeeds it reconciles and removes it once their deletion is done.
	GardenerFinalizer = "gardener"
	// AnnotationConfirmDeletion set to "true" on a Shoot lets it be deleted:
	// gardener-apiserver refuses the deletion of a shoot without it.
	AnnotationConfirmDeletion = "confirmation.gardener.cloud/deletion"
	// LabelGardenRole with the value GardenRoleSeed marks every Seed a gardenlet registers.
	LabelGardenRole = "gardener.cloud/role"
	GardenRoleSeed  = "seed"

	// ConditionSeedSystemComponentsHealthy is the Seed condition of the seed's system
	// components; a ManagedSeedSet's replica is ready only while it is True.
	ConditionSeedSystemComponentsHealthy = "SeedSystemComponentsHealthy"
	// ConditionSeedExtensionsReady is the Seed condition gardener-controller-manager
	// computes from the seed's ControllerInstallations. It reaches the shoot of a
	// ManagedSeed, and with it the shoot's health label.
	ConditionSeedExtensionsReady = "ExtensionsReady"
)

// Reasons and messages of the conditions the simulated gardenlets write in a garden:
// Gardener's own.
const (
	ReasonGardenletReady          controllerutils.Reason = "GardenletReady"
	ReasonSystemComponentsRunning controllerutils.Reason = "SystemComponentsRunning"
	ReasonReconciled              controllerutils.Reason = "Reconciled"
	ReasonReconciling             controllerutils.Reason = "Reconciling"
	ReasonDeleting                controllerutils.Reason = "Deleting"
	ReasonDeleted                 controllerutils.Reason = "Deleted"
)

// GardenCondition is a condition a simulated gardenlet reports on an object of Gardener's
// API, written in Gardener's form (controllerutils.MergeGardenerCondition).
type GardenCondition struct {
	Type string
	controllerutils.Outcome
}

// conditionsHold reports whether every condition of want holds in conditions (as decoded):
// then nothing needs writing.
func conditionsHold(conditions []metav1.Condition, want []GardenCondition) bool {
	for _, c := range want {
		got := meta.FindStatusCondition(conditions, c.Type)
		if got == nil || got.Status != c.Status || got.Reason != string(c.Reason) || got.Message != c.Message {
			return false
		}
	}
	return true
}

// ExtensionsPending reports whether gardener-controller-manager found an extension of the
// seed not yet installed, healthy and rolled out: then the gardenlet reports its
// ControllerInstallations. A seed without the condition has none to report.
func ExtensionsPending(seed *gardencorev1beta1.Seed) bool {
	c := meta.FindStatusCondition(seed.Status.Conditions, ConditionSeedExtensionsReady)
	return c != nil && c.Status != metav1.ConditionTrue
}

// InstalledExtensionConditions are the conditions a gardenlet reports on a
// ControllerInstallation of its seed once the extension's chart is rendered, installed,
// healthy and rolled out; the simulated seeds have every extension at once.
func InstalledExtensionConditions() []GardenCondition {
	return []GardenCondition{
		{"Valid", controllerutils.True("RegistrationValid", "chart could be rendered successfully.")},
		{"Installed", controllerutils.True("InstallationSuccessful", "The controller was successfully installed in the seed cluster.")},
		{"Healthy", controllerutils.True("ControllerHealthy", "The controller running in the seed cluster is healthy.")},
		{"Progressing", controllerutils.False("ControllerRolledOut", "The controller has been rolled out successfully.")},
	}
}

// ManagedSeedAction is what the gardenlet of a ManagedSeed's parent seed does next.
type ManagedSeedAction string

const (
	// ManagedSeedNone does nothing, not even the status: the ManagedSeed is deleted and
	// Gardener's finalizer is gone.
	ManagedSeedNone ManagedSeedAction = "None"
	// ManagedSeedWait only reports the conditions.
	ManagedSeedWait ManagedSeedAction = "Wait"
	// ManagedSeedRegisterSeed creates the Seed from the gardenlet configuration's seedConfig.
	ManagedSeedRegisterSeed ManagedSeedAction = "RegisterSeed"
	// ManagedSeedUpdateSeed writes a changed seedConfig into the Seed: the ManagedSeed's
	// generation is newer than the one its status observed.
	ManagedSeedUpdateSeed ManagedSeedAction = "UpdateSeed"
	// ManagedSeedDeleteSeed deletes the Seed of a deleted ManagedSeed, which hosts no shoots.
	ManagedSeedDeleteSeed ManagedSeedAction = "DeleteSeed"
	// ManagedSeedRelease removes Gardener's finalizer from a deleted ManagedSeed whose Seed
	// is gone.
	ManagedSeedRelease ManagedSeedAction = "Release"
)

// ManagedSeedDecision is the next step for a ManagedSeed and the conditions to report; the
// ManagedSeed's other conditions stay as they are.
type ManagedSeedDecision struct {
	Action     ManagedSeedAction
	Conditions []GardenCondition
}

// DecideManagedSeed decides, as Gardener's gardenlet does, what happens to a ManagedSeed
// given its shoot and its Seed (nil when missing) and, for a deleted ManagedSeed whose Seed
// is not deleting yet, the shoots (namespace/name) that Seed hosts. The Seed is registered
// once the shoot's last operation succeeded for its current generation; a deleted
// ManagedSeed deletes its Seed once the Seed hosts no shoots (gardener-apiserver refuses it
// before), and lets go once the Seed is gone.
func DecideManagedSeed(ms *seedmanagementv1alpha1.ManagedSeed, shoot *gardencorev1beta1.Shoot, seed *gardencorev1beta1.Seed, hosted []string) ManagedSeedDecision {
	if ms.DeletionTimestamp != nil {
		if !controllerutil.ContainsFinalizer(ms, GardenerFinalizer) {
			return ManagedSeedDecision{Action: ManagedSeedNone}
		}
		deleting := func(message string) GardenCondition {
			return GardenCondition{seedmanagementv1alpha1.ManagedSeedSeedRegistered, controllerutils.False(ReasonDeleting, message)}
		}
		switch {
		case seed == nil:
			return ManagedSeedDecision{Action: ManagedSeedRelease, Conditions: []GardenCondition{{seedmanagementv1alpha1.ManagedSeedSeedRegistered,
				controllerutils.False(ReasonDeleted, fmt.Sprintf("Seed %s has been unregistered", ms.Name))}}}
		case seed.DeletionTimestamp == nil && len(hosted) > 0:
			return ManagedSeedDecision{Action: ManagedSeedWait, Conditions: []GardenCondition{deleting(fmt.Sprintf(
				"Waiting for seed %s to host no shoots before deleting it: it still hosts %s", ms.Name, shootList(hosted)))}}
		case seed.DeletionTimestamp == nil:
			return ManagedSeedDecision{Action: ManagedSeedDeleteSeed, Conditions: []GardenCondition{deleting(fmt.Sprintf("Waiting for seed %q to be deleted", ms.Name))}}
		default:
			return ManagedSeedDecision{Action: ManagedSeedWait, Conditions: []GardenCondition{deleting(fmt.Sprintf("Waiting for seed %q to be deleted", ms.Name))}}
		}
	}
	shootKey := ms.Namespace + "/"
	if ms.Spec.Shoot != nil {
		shootKey += ms.Spec.Shoot.Name
	}
	if !shootReconciled(shoot) {
		return ManagedSeedDecision{Action: ManagedSeedWait, Conditions: []GardenCondition{{seedmanagementv1alpha1.ManagedSeedShootReconciled,
			controllerutils.False(ReasonReconciling, fmt.Sprintf("Waiting for shoot %q to be reconciled", shootKey))}}}
	}
	registered := []GardenCondition{
		{seedmanagementv1alpha1.ManagedSeedShootReconciled, controllerutils.True(ReasonReconciled, fmt.Sprintf("Shoot %q has been reconciled", shootKey))},
		{seedmanagementv1alpha1.ManagedSeedSeedRegistered, controllerutils.True(ReasonReconciled, fmt.Sprintf("Seed %s has been registered", ms.Name))},
	}
	switch {
	case seed == nil:
		return ManagedSeedDecision{Action: ManagedSeedRegisterSeed, Conditions: registered}
	case seed.DeletionTimestamp == nil && ms.Generation != ms.Status.ObservedGeneration:
		return ManagedSeedDecision{Action: ManagedSeedUpdateSeed, Conditions: registered}
	}
	return ManagedSeedDecision{Action: ManagedSeedWait, Conditions: registered}
}

// shootReconciled is Gardener's test of a ManagedSeed's shoot: its last operation
// succeeded, for the shoot's current generation.
func shootReconciled(shoot *gardencorev1beta1.Shoot) bool {
	if shoot == nil {
		return false
	}
	op := shoot.Status.LastOperation
	return shoot.Generation == shoot.Status.ObservedGeneration && op != nil && op.State == gardencorev1beta1.LastOperationStateSucceeded
}

// shootList names up to three shoots and how many more there are.
func shootList(shoots []string) string {
	const shown = 3
	if len(shoots) == 1 {
		return "shoot " + shoots[0]
	}
	list := strings.Join(shoots[:min(len(shoots), shown)], ", ")
	if len(shoots) > shown {
		list += fmt.Sprintf(" and %d more", len(shoots)-shown)
	}
	return fmt.Sprintf("%d shoots (%s)", len(shoots), list)
}

// SeedReport is what a simulated gardenlet reports in its seed's status besides
// observedGeneration and lastOperation.
type SeedReport struct {
	Conditions []GardenCondition
	// Capacity and Allocatable of a seed registered by a ManagedSeed, from its gardenlet
	// configuration's resources; nil for a seed made by hand, whose configuration the
	// simulator does not know.
	Capacity, Allocatable corev1.ResourceList
}

// GardenletReport decides what the gardenlet of a seed reports: GardenletReady while it
// heartbeats (after a missed heartbeat gardener-controller-manager makes it Unknown),
// SeedSystemComponentsHealthy, BackupBucketsReady for a seed with backup, and for a seed of a
// ManagedSeed (ms not nil) the capacity and allocatable of its gardenlet configuration,
// merged with the parent gardenlet's (parent is the seed the ManagedSeed's shoot runs on,
// nil when unknown), as seedscaler's seed controller computes them.
func GardenletReport(seed *gardencorev1beta1.Seed, ms *seedmanagementv1alpha1.ManagedSeed, parent *gardencorev1beta1.Seed, heartbeat, backupReady bool) SeedReport {
	var r SeedReport
	if heartbeat {
		r.Conditions = append(r.Conditions, GardenCondition{gardencorev1beta1.SeedGardenletReady,
			controllerutils.True(ReasonGardenletReady, "Gardenlet is posting ready status.")})
	}
	r.Conditions = append(r.Conditions, GardenCondition{ConditionSeedSystemComponentsHealthy,
		controllerutils.True(ReasonSystemComponentsRunning, "All system components are healthy.")})
	if seed.Spec.Backup != nil {
		status, reason, message := backupCondition(backupReady)
		r.Conditions = append(r.Conditions, GardenCondition{gardencorev1beta1.SeedBackupBucketsReady,
			controllerutils.Outcome{Status: status, Reason: controllerutils.Reason(reason), Message: message}})
	}
	if ms != nil {
		r.Capacity, r.Allocatable = setcapacity.SeedResources(setcapacity.GardenletResources(ms.Spec.Gardenlet, parent), defaultSeedResources())
	}
	return r
}

// defaultSeedResources is the capacity of a seed whose gardenlet configuration names none:
// the gardenlet chart's, as everywhere in seedscaler.
func defaultSeedResources() corev1.ResourceList {
	return corev1.ResourceList{gardencorev1beta1.ResourceShoots: *apiresource.NewQuantity(setcapacity.DefaultShoots, apiresource.DecimalSI)}
}

// reportHolds reports whether the seed's status already says what r says, for the seed's
// current generation: then the gardenlet writes nothing.
func reportHolds(seed *gardencorev1beta1.Seed, r SeedReport) bool {
	return seed.Status.ObservedGeneration == seed.Generation && seed.Status.LastOperation != nil &&
		conditionsHold(seed.Status.Conditions, r.Conditions) &&
		(r.Capacity == nil || equality.Semantic.DeepEqual(seed.Status.Capacity, r.Capacity)) &&
		(r.Allocatable == nil || equality.Semantic.DeepEqual(seed.Status.Allocatable, r.Allocatable))
}

// ApplySeedReport writes r into a Seed as read (unstructured), keeping every condition and
// field others wrote: the conditions of r, capacity and allocatable when r has them, and
// observedGeneration; a new generation (or a seed never reconciled) also gets a succeeded
// Reconcile lastOperation, as the gardenlet's seed controller writes after each reconcile.
// It reports whether anything changed.
func ApplySeedReport(seed *unstructured.Unstructured, r SeedReport, now time.Time) (bool, error) {
	changed, err := setConditions(seed, r.Conditions, now)
	if err != nil {
		return false, err
	}
	for field, list := range map[string]corev1.ResourceList{"capacity": r.Capacity, "allocatable": r.Allocatable} {
		if list == nil {
			continue
		}
		want := make(map[string]any, len(list))
		for name, q := range list {
			want[string(name)] = q.String()
		}
		current, _, _ := unstructured.NestedMap(seed.Object, "status", field)
		if !sameQuantities(current, want) {
			if err := unstructured.SetNestedMap(seed.Object, want, "status", field); err != nil {
				return false, err
			}
			changed = true
		}
	}
	observed, _, _ := unstructured.NestedInt64(seed.Object, "status", "observedGeneration")
	_, hasOperation, _ := unstructured.NestedMap(seed.Object, "status", "lastOperation")
	if observed != seed.GetGeneration() || !hasOperation {
		operation := map[string]any{
			"type": string(gardencorev1beta1.LastOperationTypeReconcile), "state": string(gardencorev1beta1.LastOperationStateSucceeded),
			"progress": int64(100), "description": "Seed cluster has been successfully reconciled.", "lastUpdateTime": now.UTC().Format(time.RFC3339),
		}
		if err := unstructured.SetNestedMap(seed.Object, operation, "status", "lastOperation"); err != nil {
			return false, err
		}
		if err := unstructured.SetNestedField(seed.Object, seed.GetGeneration(), "status", "observedGeneration"); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

// ApplyManagedSeedConditions writes the conditions and observedGeneration into a
// ManagedSeed as read (unstructured), keeping its other conditions, and reports whether
// anything changed.
func ApplyManagedSeedConditions(ms *unstructured.Unstructured, conditions []GardenCondition, now time.Time) (bool, error) {
	changed, err := setConditions(ms, conditions, now)
	if err != nil {
		return false, err
	}
	if observed, _, _ := unstructured.NestedInt64(ms.Object, "status", "observedGeneration"); observed != ms.GetGeneration() {
		if err := unstructured.SetNestedField(ms.Object, ms.GetGeneration(), "status", "observedGeneration"); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

func setConditions(obj *unstructured.Unstructured, conditions []GardenCondition, now time.Time) (bool, error) {
	list, _, err := unstructured.NestedSlice(obj.Object, "status", "conditions")
	if err != nil {
		return false, fmt.Errorf("status.conditions of %s %s: %w", obj.GetKind(), client.ObjectKeyFromObject(obj), err)
	}
	changed := false
	for _, c := range conditions {
		var set bool
		list, set = controllerutils.MergeGardenerCondition(list, c.Type, c.Outcome, now)
		changed = changed || set
	}
	if !changed {
		return false, nil
	}
	return true, unstructured.SetNestedSlice(obj.Object, list, "status", "conditions")
}

// sameQuantities compares two resource maps of quantity strings by value ("10" and "1e1"
// are the same).
func sameQuantities(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for name, x := range a {
		y, ok := b[name]
		if !ok {
			return false
		}
		sx, okX := x.(string)
		sy, okY := y.(string)
		if !okX || !okY {
			return false
		}
		qx, errX := apiresource.ParseQuantity(sx)
		qy, errY := apiresource.ParseQuantity(sy)
		if errX != nil || errY != nil || qx.Cmp(qy) != 0 {
			return false
		}
	}
	return true
}

// SeedOfManagedSeed is the Seed the gardenlet of a ManagedSeed (as read, unstructured)
// registers: named like the ManagedSeed, labeled gardener.cloud/role=seed plus the labels of
// the gardenlet configuration's seedConfig, with its annotations and spec exactly, and
// Gardener's finalizer.
func SeedOfManagedSeed(ms *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	seedConfig, found, err := unstructured.NestedMap(ms.Object, "spec", "gardenlet", "config", "seedConfig")
	if err != nil || !found {
		return nil, fmt.Errorf("ManagedSeed %s has no spec.gardenlet.config.seedConfig to register as a seed: give the gardenlet configuration a seedConfig", client.ObjectKeyFromObject(ms))
	}
	spec, _, err := unstructured.NestedMap(seedConfig, "spec")
	if err != nil {
		return nil, fmt.Errorf("spec.gardenlet.config.seedConfig.spec of ManagedSeed %s: %w", client.ObjectKeyFromObject(ms), err)
	}
	seed := &unstructured.Unstructured{Object: map[string]any{"spec": runtime.DeepCopyJSONValue(spec)}}
	seed.SetGroupVersionKind(gardencorev1beta1.GroupVersion.WithKind("Seed"))
	seed.SetName(ms.GetName())
	labels, _, _ := unstructured.NestedStringMap(seedConfig, "metadata", "labels")
	seed.SetLabels(seedLabels(labels))
	if annotations, _, _ := unstructured.NestedStringMap(seedConfig, "metadata", "annotations"); len(annotations) > 0 {
		seed.SetAnnotations(annotations)
	}
	seed.SetFinalizers([]string{GardenerFinalizer})
	return seed, nil
}

// seedLabels are the labels of a registered Seed: its template's, and the role label every
// gardenlet adds.
func seedLabels(template map[string]string) map[string]string {
	labels := maps.Clone(template)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LabelGardenRole] = GardenRoleSeed
	return labels
}

// UpdateSeedFrom writes a changed seedConfig (desired, from SeedOfManagedSeed) into a Seed
// as read, as a gardenlet does when it starts with a new configuration: the spec is
// replaced, the template's labels and annotations are set and others' are kept. It
// reports whether anything changed.
func UpdateSeedFrom(seed, desired *unstructured.Unstructured) bool {
	changed := false
	spec, _, _ := unstructured.NestedMap(desired.Object, "spec")
	if current, _, _ := unstructured.NestedMap(seed.Object, "spec"); !equality.Semantic.DeepEqual(current, spec) {
		seed.Object["spec"] = runtime.DeepCopyJSONValue(spec)
		changed = true
	}
	merge := func(current, want map[string]string) (map[string]string, bool) {
		out, updated := maps.Clone(current), false
		for k, v := range want {
			if old, ok := out[k]; !ok || old != v {
				if out == nil {
					out = map[string]string{}
				}
				out[k], updated = v, true
			}
		}
		return out, updated
	}
	if labels, updated := merge(seed.GetLabels(), desired.GetLabels()); updated {
		seed.SetLabels(labels)
		changed = true
	}
	if annotations, updated := merge(seed.GetAnnotations(), desired.GetAnnotations()); updated {
		seed.SetAnnotations(annotations)
		changed = true
	}
	return changed
}
