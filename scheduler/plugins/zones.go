package plugins

import (
	"slices"
	"sort"
	"strings"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/framework"
)

// Zones keeps seeds with at least three zones for shoots whose control plane must
// tolerate a zone failure.
type Zones struct{}

// Name is the plugin's name in configurations, events and metrics.
func (Zones) Name() string { return "Zones" }

// Filter implements framework.FilterPlugin: nil when seed passes, else why not.
func (Zones) Filter(in *framework.Input, seed *framework.SeedInfo) *framework.Status {
	if !multiZonal(in.Shoot) {
		return nil
	}
	if n := len(seed.Spec.Provider.Zones); n < minZonesForZoneFailureTolerance {
		return framework.Reject(ReasonTooFewZones, "%d zone(s), a control plane tolerating a zone failure needs at least %d", n, minZonesForZoneFailureTolerance)
	}
	return nil
}

// multiZonal says whether the shoot's control plane spreads over zones: it tolerates a zone
// failure (Gardener's IsMultiZonalShootControlPlane). Zone selection does not apply to it.
func multiZonal(shoot *gardencorev1beta1.Shoot) bool {
	cp := shoot.Spec.ControlPlane
	return cp != nil && cp.HighAvailability != nil && cp.HighAvailability.FailureTolerance.Type == gardencorev1beta1.FailureToleranceTypeZone
}

// ZoneSelection keeps, for a shoot whose control plane runs in one zone, the seeds that can
// put it where the shoot asks: a seed with every zone of spec.controlPlane.zones when the
// shoot pins them; otherwise, a seed whose spec.settings.zoneSelection.mode is Enforce only
// when it has a zone of the shoot's worker pools (or the pools name none).
type ZoneSelection struct{}

// Name is the plugin's name in configurations, events and metrics.
func (ZoneSelection) Name() string { return "ZoneSelection" }

// Filter implements framework.FilterPlugin: nil when seed passes, else why not.
func (ZoneSelection) Filter(in *framework.Input, seed *framework.SeedInfo) *framework.Status {
	if multiZonal(in.Shoot) {
		return nil
	}
	seedZones := seed.Spec.Provider.Zones
	if cp := in.Shoot.Spec.ControlPlane; cp != nil && len(cp.Zones) > 0 {
		var missing []string
		for _, z := range cp.Zones {
			if !slices.Contains(seedZones, z) {
				missing = append(missing, z)
			}
		}
		if len(missing) > 0 {
			return framework.Reject(ReasonControlPlaneZonesUnavailable, "lacks zone(s) %s of the shoot's spec.controlPlane.zones (the seed's zones: [%s])",
				strings.Join(missing, ", "), strings.Join(seedZones, ", "))
		}
		return nil
	}
	if zoneSelectionMode(seed.Seed) != gardencorev1beta1.ZoneSelectionModeEnforce {
		return nil
	}
	zones := workerZones(in.Shoot)
	if len(zones) == 0 || sharesZone(seedZones, zones) {
		return nil
	}
	return framework.Reject(ReasonWorkerZonesUnavailable, "zoneSelection Enforce, and none of its zones [%s] is a zone of the shoot's worker pools [%s]",
		strings.Join(seedZones, ", "), strings.Join(zones, ", "))
}

// ZonePreference prefers, for a shoot whose control plane runs in one zone and whose worker
// pools name zones, the seeds that can put the control plane next to its workers: a seed
// whose spec.settings.zoneSelection.mode is Prefer and which has none of the workers' zones
// loses to every other seed (one with a shared zone, or without zoneSelection), and is
// chosen only when no such seed is left.
type ZonePreference struct{}

// Name is the plugin's name in configurations, events and metrics.
func (ZonePreference) Name() string { return "ZonePreference" }

// Prefer implements framework.PreferencePlugin.
func (ZonePreference) Prefer(in *framework.Input, seeds []*framework.SeedInfo) []*framework.Status {
	if multiZonal(in.Shoot) {
		return nil
	}
	if cp := in.Shoot.Spec.ControlPlane; cp != nil && len(cp.Zones) > 0 {
		return nil // pinned: ZoneSelection has kept only seeds with those zones
	}
	zones := workerZones(in.Shoot)
	if len(zones) == 0 {
		return nil
	}
	away := func(seed *framework.SeedInfo) bool {
		return zoneSelectionMode(seed.Seed) == gardencorev1beta1.ZoneSelectionModePrefer && !sharesZone(seed.Spec.Provider.Zones, zones)
	}
	if !slices.ContainsFunc(seeds, away) || !slices.ContainsFunc(seeds, func(s *framework.SeedInfo) bool { return !away(s) }) {
		return nil // no seed loses, or none is preferred: every one stays
	}
	out := make([]*framework.Status, len(seeds))
	for i, seed := range seeds {
		if away(seed) {
			out[i] = framework.Reject(ReasonZoneNotPreferred, "zoneSelection Prefer, and none of its zones [%s] is a zone of the shoot's worker pools [%s]; other seeds can place the control plane there or have no preference",
				strings.Join(seed.Spec.Provider.Zones, ", "), strings.Join(zones, ", "))
		}
	}
	return out
}

// workerZones are the zones of the shoot's worker pools, sorted, once each: where the
// control plane of a shoot that pins none should go.
func workerZones(shoot *gardencorev1beta1.Shoot) []string {
	var zones []string
	for _, w := range shoot.Spec.Provider.Workers {
		for _, z := range w.Zones {
			if !slices.Contains(zones, z) {
				zones = append(zones, z)
			}
		}
	}
	sort.Strings(zones)
	return zones
}

func sharesZone(seedZones, zones []string) bool {
	return slices.ContainsFunc(zones, func(z string) bool { return slices.Contains(seedZones, z) })
}

func zoneSelectionMode(seed *gardencorev1beta1.Seed) gardencorev1beta1.ZoneSelectionMode {
	if s := seed.Spec.Settings; s != nil && s.ZoneSelection != nil {
		return s.ZoneSelection.Mode
	}
	return ""
}
