// Package plugins holds the scheduler's filter, strategy and score plugins, and builds the
// profile a configuration asks for. Every plugin is a pure function of the shoot, the seed
// and the usage it is given.
package plugins

import (
	"fmt"
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
	ReasonNotUsable                 framework.Reason = "SeedNotUsable"
	ReasonCloudProfileSelector      framework.Reason = "CloudProfileSeedSelectorMismatch"
	ReasonShootSelector             framework.Reason = "ShootSeedSelectorMismatch"
	ReasonProviderMismatch          framework.Reason = "ProviderMismatch"
	ReasonNetworksOverlap           framework.Reason = "NetworksOverlap"
	ReasonTaintsNotTolerated        framework.Reason = "TaintsNotTolerated"
	ReasonCapacityExhausted         framework.Reason = "CapacityExhausted"
	ReasonTooFewZones               framework.Reason = "TooFewZones"
	ReasonRegionMismatch            framework.Reason = "RegionMismatch"
	ReasonNotMinimalDistance        framework.Reason = "NotMinimalDistance"
	ReasonTestingProviderMismatch   framework.Reason = "TestingProviderMismatch"
	ReasonInvalidSeedSelector       framework.Reason = "InvalidSeedSelector"
	minZonesForZoneFailureTolerance                  = 3
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

// Networks keeps seeds whose networks are disjoint from the shoot's: the VPN between seed
// and shoot routes both. A shoot without pod or service network gets the seed's shoot
// defaults, so those are what must be disjoint.
type Networks struct{}

// Name is the plugin's name in configurations, events and metrics.
func (Networks) Name() string { return "Networks" }

// Filter implements framework.FilterPlugin: nil when seed passes, else why not.
func (Networks) Filter(in *framework.Input, seed *framework.SeedInfo) *framework.Status {
	// This runs for every seed of every decision: the shoot's networks are parsed once per
	// decision, the seed's once per version of the seed.
	shoot := in.ShootNetworks()
	var overlaps []string
	for i, sh := range shoot {
		if sh.Text == "" && i > 0 {
			sh = seed.ShootDefaults[i-1] // pods and services: the seed's defaults
		}
		if !sh.Prefix.IsValid() {
			continue
		}
		for j, se := range seed.Networks {
			if se.Prefix.IsValid() && sh.Prefix.Overlaps(se.Prefix) {
				overlaps = append(overlaps, fmt.Sprintf("shoot %s %s overlaps seed %s %s", networkNames[i], sh.Text, networkNames[j], se.Text))
			}
		}
	}
	if len(overlaps) > 0 {
		return framework.Reject(ReasonNetworksOverlap, "%s", strings.Join(overlaps, ", "))
	}
	return nil
}

// networkNames name the networks of a shoot and a seed, in the order of
// Input.ShootNetworks and SeedInfo.Networks.
var networkNames = [3]string{"nodes", "pods", "services"}

// Taints keeps seeds whose every taint the shoot tolerates: a toleration of the taint's key
// without value tolerates any value, one with a value only that value.
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
		if t.Key != taint.Key {
			continue
		}
		if t.Value == nil || (taint.Value != nil && *t.Value == *taint.Value) {
			return true
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

// Zones keeps seeds with at least three zones for shoots whose control plane must
// tolerate a zone failure.
type Zones struct{}

// Name is the plugin's name in configurations, events and metrics.
func (Zones) Name() string { return "Zones" }

// Filter implements framework.FilterPlugin: nil when seed passes, else why not.
func (Zones) Filter(in *framework.Input, seed *framework.SeedInfo) *framework.Status {
	cp := in.Shoot.Spec.ControlPlane
	if cp == nil || cp.HighAvailability == nil || cp.HighAvailability.FailureTolerance.Type != gardencorev1beta1.FailureToleranceTypeZone {
		return nil
	}
	if n := len(seed.Spec.Provider.Zones); n < minZonesForZoneFailureTolerance {
		return framework.Reject(ReasonTooFewZones, "%d zone(s), a control plane tolerating a zone failure needs at least %d", n, minZonesForZoneFailureTolerance)
	}
	return nil
}

// Filters returns the filters in the order of Gardener's scheduler document.
func Filters() []framework.FilterPlugin {
	return []framework.FilterPlugin{Usable{}, CloudProfileSeedSelector{}, ShootSeedSelector{}, Provider{}, Networks{}, Taints{}, Capacity{}, Zones{}}
}
