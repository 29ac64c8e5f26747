// Package plugins holds the scheduler's filter, strategy and score plugins, and builds the
// profile a configuration asks for. Every plugin is a pure function of the shoot, the seed
// and the usage it is given.
package plugins

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/framework"
)

// Reason classes of rejections, in the order of the stages that give them.
const (
	ReasonNotUsable                    framework.Reason = "SeedNotUsable"
	ReasonCloudProfileSelector         framework.Reason = "CloudProfileSeedSelectorMismatch"
	ReasonShootSelector                framework.Reason = "ShootSeedSelectorMismatch"
	ReasonProviderMismatch             framework.Reason = "ProviderMismatch"
	ReasonTooFewZones                  framework.Reason = "TooFewZones"
	ReasonControlPlaneZonesUnavailable framework.Reason = "ControlPlaneZonesUnavailable"
	ReasonWorkerZonesUnavailable       framework.Reason = "WorkerZonesUnavailable"
	ReasonAccessRestrictions           framework.Reason = "AccessRestrictionsNotSupported"
	ReasonDomainNotServed              framework.Reason = "DomainNotServed"
	ReasonReconciliationsStopped       framework.Reason = "ShootReconciliationsStopped"
	ReasonShootNetworksMissing         framework.Reason = "ShootNetworksMissing"
	ReasonNetworksOverlap              framework.Reason = "NetworksOverlap"
	ReasonTaintsNotTolerated           framework.Reason = "TaintsNotTolerated"
	ReasonCapacityExhausted            framework.Reason = "CapacityExhausted"
	ReasonMigrationWithoutBackup       framework.Reason = "MigrationWithoutBackup"
	ReasonInternalDomainMismatch       framework.Reason = "InternalDomainMismatch"
	ReasonDefaultDomainMismatch        framework.Reason = "DefaultDomainMismatch"
	ReasonMigrationTooFar              framework.Reason = "MigrationTooFar"
	ReasonZoneNotPreferred             framework.Reason = "ZoneNotPreferred"
	ReasonRegionMismatch               framework.Reason = "RegionMismatch"
	ReasonNotMinimalDistance           framework.Reason = "NotMinimalDistance"
	ReasonTestingProviderMismatch      framework.Reason = "TestingProviderMismatch"
	ReasonInvalidSeedSelector          framework.Reason = "InvalidSeedSelector"
	minZonesForZoneFailureTolerance                     = 3
)

// Usable keeps seeds that can take shoots at all: not being deleted, visible to the
// scheduler, with a lastOperation, GardenletReady True, and BackupBucketsReady True when the
// seed has a backup.
type Usable struct{}

// Name is the plugin's name in configurations, events and metrics.
func (Usable) Name() string { return "Usable" }

// Filter implements framework.FilterPlugin: nil when seed passes, else why not.
func (Usable) Filter(_ *framework.Input, seed *framework.SeedInfo) *framework.Status {
	if seed.NotUsable != "" {
		return framework.Reject(ReasonNotUsable, "%s", seed.NotUsable)
	}
	return nil
}

// notUsable says why a seed takes no shoots at all, or "" when it takes them.
func notUsable(seed *gardencorev1beta1.Seed) string {
	switch {
	case seed.DeletionTimestamp != nil:
		return "being deleted"
	case !visible(seed):
		return "not visible (spec.settings.scheduling.visible is false)"
	case seed.Status.LastOperation == nil:
		return "no status.lastOperation yet"
	case !meta.IsStatusConditionTrue(seed.Status.Conditions, gardencorev1beta1.SeedGardenletReady):
		return "condition GardenletReady is not True"
	case seed.Spec.Backup != nil && !meta.IsStatusConditionTrue(seed.Status.Conditions, gardencorev1beta1.SeedBackupBucketsReady):
		return "condition BackupBucketsReady is not True"
	case gardencorev1beta1.Draining(seed.Annotations):
		return Cordoned("the Seed")
	}
	return ""
}

// Cordoned is why a drained seed takes no shoots; holder names what carries the annotation.
func Cordoned(holder string) string {
	return fmt.Sprintf("cordoned: %s is annotated %s=true and is being drained", holder, gardencorev1beta1.AnnotationDrain)
}

// NewSeedInfo works out once what the filters read of a seed alone (see
// framework.SeedInfo). The seed must not change afterwards; informer objects do not.
func NewSeedInfo(seed *gardencorev1beta1.Seed) *framework.SeedInfo {
	info := &framework.SeedInfo{Seed: seed, NotUsable: notUsable(seed)}
	if q, ok := seed.Status.Allocatable[gardencorev1beta1.ResourceShoots]; ok {
		info.Allocatable, info.HasAllocatable = q.Value(), true
	}
	n := seed.Spec.Networks
	info.Networks = [3]framework.CIDR{framework.ParseCIDR(ptr.Deref(n.Nodes, "")), framework.ParseCIDR(n.Pods), framework.ParseCIDR(n.Services)}
	if d := n.ShootDefaults; d != nil {
		info.ShootDefaults = [2]framework.CIDR{framework.ParseCIDR(ptr.Deref(d.Pods, "")), framework.ParseCIDR(ptr.Deref(d.Services, ""))}
	}
	return info
}

// visible reads spec.settings.scheduling.visible; the API defaults it to true, so an
// object that never went through defaulting counts as visible.
func visible(seed *gardencorev1beta1.Seed) bool {
	s := seed.Spec.Settings
	if s == nil || s.Scheduling == nil {
		return true
	}
	return s.Scheduling.Visible
}

// CloudProfileSeedSelector keeps seeds whose labels match the CloudProfile's seedSelector.
type CloudProfileSeedSelector struct{}

// Name is the plugin's name in configurations, events and metrics.
func (CloudProfileSeedSelector) Name() string { return "CloudProfileSeedSelector" }

// Filter implements framework.FilterPlugin: nil when seed passes, else why not.
func (CloudProfileSeedSelector) Filter(in *framework.Input, seed *framework.SeedInfo) *framework.Status {
	if in.CloudProfile == nil || in.CloudProfile.Spec.SeedSelector == nil {
		return nil
	}
	return matchSelector(in, &in.CloudProfile.Spec.SeedSelector.LabelSelector, seed, ReasonCloudProfileSelector, "CloudProfile "+in.CloudProfile.Name)
}

// ShootSeedSelector keeps seeds whose labels match the Shoot's seedSelector.
type ShootSeedSelector struct{}

// Name is the plugin's name in configurations, events and metrics.
func (ShootSeedSelector) Name() string { return "ShootSeedSelector" }

// Filter implements framework.FilterPlugin: nil when seed passes, else why not.
func (ShootSeedSelector) Filter(in *framework.Input, seed *framework.SeedInfo) *framework.Status {
	if in.Shoot.Spec.SeedSelector == nil {
		return nil
	}
	return matchSelector(in, &in.Shoot.Spec.SeedSelector.LabelSelector, seed, ReasonShootSelector, "the shoot")
}

func matchSelector(in *framework.Input, ls *metav1.LabelSelector, seed *framework.SeedInfo, reason framework.Reason, owner string) *framework.Status {
	sel, err := in.Selector(ls)
	if err != nil {
		return framework.Reject(ReasonInvalidSeedSelector, "the seed selector of %s is invalid: %v", owner, err)
	}
	if !sel.Matches(labels.Set(seed.Labels)) {
		return framework.Reject(reason, "labels do not match the seed selector of %s (%s)", owner, sel.String())
	}
	return nil
}

// Provider keeps seeds of an allowed provider type. Every seed selector (CloudProfile's
// and Shoot's) that lists providerTypes must allow the seed's type ("*" allows any); when
// none lists any, the seed must have the shoot's provider type.
type Provider struct{}

// Name is the plugin's name in configurations, events and metrics.
func (Provider) Name() string { return "Provider" }

// Filter implements framework.FilterPlugin: nil when seed passes, else why not.
func (Provider) Filter(in *framework.Input, seed *framework.SeedInfo) *framework.Status {
	var lists [][]string
	if in.CloudProfile != nil && in.CloudProfile.Spec.SeedSelector != nil && len(in.CloudProfile.Spec.SeedSelector.ProviderTypes) > 0 {
		lists = append(lists, in.CloudProfile.Spec.SeedSelector.ProviderTypes)
	}
	if in.Shoot.Spec.SeedSelector != nil && len(in.Shoot.Spec.SeedSelector.ProviderTypes) > 0 {
		lists = append(lists, in.Shoot.Spec.SeedSelector.ProviderTypes)
	}
	seedType := seed.Spec.Provider.Type
	if len(lists) == 0 {
		if seedType != in.Shoot.Spec.Provider.Type {
			return framework.Reject(ReasonProviderMismatch, "provider %q is not the shoot's %q", seedType, in.Shoot.Spec.Provider.Type)
		}
		return nil
	}
	for _, allowed := range lists {
		if !allows(allowed, seedType) {
			return framework.Reject(ReasonProviderMismatch, "provider %q is not among the allowed provider types [%s]", seedType, strings.Join(allowed, ","))
		}
	}
	return nil
}

func allows(allowed []string, typ string) bool {
	for _, a := range allowed {
		if a == "*" || a == typ {
			return true
		}
	}
	return false
}

// AccessRestrictions keeps seeds that support every access restriction the shoot asks for
// (spec.accessRestrictions of both, by name), as Gardener's AccessRestrictionsAreSupported.
type AccessRestrictions struct{}

// Name is the plugin's name in configurations, events and metrics.
func (AccessRestrictions) Name() string { return "AccessRestrictions" }

// Filter implements framework.FilterPlugin: nil when seed passes, else why not.
func (AccessRestrictions) Filter(in *framework.Input, seed *framework.SeedInfo) *framework.Status {
	var missing []string
	for _, r := range in.Shoot.Spec.AccessRestrictions {
		if !slices.ContainsFunc(seed.Spec.AccessRestrictions, func(s gardencorev1beta1.AccessRestriction) bool { return s.Name == r.Name }) {
			missing = append(missing, r.Name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	supported := "none"
	if len(seed.Spec.AccessRestrictions) > 0 {
		names := make([]string, len(seed.Spec.AccessRestrictions))
		for i, s := range seed.Spec.AccessRestrictions {
			names[i] = s.Name
		}
		supported = strings.Join(names, ", ")
	}
	return framework.Reject(ReasonAccessRestrictions, "does not support the shoot's access restriction(s) %s (the seed's spec.accessRestrictions: %s)",
		strings.Join(missing, ", "), supported)
}

// ReconciliationsEnabled keeps seeds whose shoot reconciliations are not stopped: a seed
// annotated shoot.gardener.cloud/emergency-stop-reconciliations=true takes no new shoot, as
// its gardenlet would not create it.
type ReconciliationsEnabled struct{}

// Name is the plugin's name in configurations, events and metrics.
func (ReconciliationsEnabled) Name() string { return "ReconciliationsEnabled" }

// Filter implements framework.FilterPlugin: nil when seed passes, else why not.
func (ReconciliationsEnabled) Filter(_ *framework.Input, seed *framework.SeedInfo) *framework.Status {
	if gardencorev1beta1.ShootReconciliationsDisabled(seed.Seed) {
		return framework.Reject(ReasonReconciliationsStopped, "shoot reconciliations are stopped: the seed is annotated %s=true",
			gardencorev1beta1.AnnotationEmergencyStopShootReconciliations)
	}
	return nil
}

// Taints keeps seeds whose every taint the shoot tolerates, as Gardener's
// TaintsAreTolerated: a taint with a value only by a toleration of its key with the same
// value, a taint without value by any toleration of its key.
type Taints struct{}

// Name is the plugin's name in configurations, events and metrics.
func (Taints) Name() string { return "Taints" }

// Filter implements framework.FilterPlugin: nil when seed passes, else why not.
func (Taints) Filter(in *framework.Input, seed *framework.SeedInfo) *framework.Status {
	for _, taint := range seed.Spec.Taints {
		if !tolerated(taint, in.Shoot.Spec.Tolerations) {
			if taint.Value != nil {
				return framework.Reject(ReasonTaintsNotTolerated, "taint %s=%s is not tolerated", taint.Key, *taint.Value)
			}
			return framework.Reject(ReasonTaintsNotTolerated, "taint %s is not tolerated", taint.Key)
		}
	}
	return nil
}

func tolerated(taint gardencorev1beta1.SeedTaint, tolerations []gardencorev1beta1.Toleration) bool {
	for _, t := range tolerations {
		if t.Key == taint.Key {
			return taint.Value == nil || *taint.Value == ptr.Deref(t.Value, "")
		}
	}
	return false
}

// Capacity keeps seeds with room for one more shoot: usage < allocatable shoots. A seed
// without allocatable shoots has no limit.
type Capacity struct{}

// Name is the plugin's name in configurations, events and metrics.
func (Capacity) Name() string { return "Capacity" }

// Filter implements framework.FilterPlugin: nil when seed passes, else why not.
func (Capacity) Filter(in *framework.Input, seed *framework.SeedInfo) *framework.Status {
	if !seed.HasAllocatable {
		return nil
	}
	if used := int64(in.Usage(seed)); used >= seed.Allocatable {
		return framework.Reject(ReasonCapacityExhausted, "no capacity left for shoots (allocatable %d)", seed.Allocatable)
	}
	return nil
}

// Filters returns the filters in the order gardener-scheduler applies them, then the checks
// gardener-apiserver makes of a control plane that moves to another seed (Migration), then
// the distance a drain moves one at most (MigrationDistance).
func Filters() []framework.FilterPlugin {
	return []framework.FilterPlugin{
		Usable{}, CloudProfileSeedSelector{}, ShootSeedSelector{}, Provider{}, Zones{}, ZoneSelection{},
		AccessRestrictions{}, Domain{}, ReconciliationsEnabled{}, Networks{}, Taints{}, Capacity{}, Migration{}, MigrationDistance{},
	}
}

// Preferences returns the preferences, applied to the seeds that pass the filters before
// the strategy: where gardener-scheduler narrows the seeds without failing the shoot.
func Preferences() []framework.PreferencePlugin {
	return []framework.PreferencePlugin{ZonePreference{}}
}
