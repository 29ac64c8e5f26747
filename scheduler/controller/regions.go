package controller

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/seedscaler/seedscaler/scheduler/region"
)

// regionConfigs is the parsed region config of each CloudProfile, kept by ConfigMap
// informer events. Listing the region configs from the cache on every decision would copy
// them into a new list and select among them each time; the map is rebuilt (and each
// ConfigMap parsed once) only after a region config changed, so a decision is one lookup.
type regionConfigs struct {
	*informerView[*corev1.ConfigMap, *corev1.ConfigMap, map[string]*region.Config]
}

// newRegionConfigs keeps the region configs of namespace.
func newRegionConfigs(namespace string) *regionConfigs {
	inNamespace := func(cm *corev1.ConfigMap) bool { return cm.Namespace == namespace }
	same := func(cm *corev1.ConfigMap) *corev1.ConfigMap { return cm }
	return &regionConfigs{newInformerView(inNamespace, same, configsByProfile)}
}

// get returns the region config of a CloudProfile, nil when there is none.
func (rc *regionConfigs) get(cloudProfile string) *region.Config {
	return rc.informerView.get()[cloudProfile]
}

// configsByProfile maps every CloudProfile a region config names to the config
// region.Select picks for it.
func configsByProfile(byKey map[string]*corev1.ConfigMap) map[string]*region.Config {
	cms := make([]*corev1.ConfigMap, 0, len(byKey))
	profiles := map[string]struct{}{}
	for _, cm := range byKey {
		cms = append(cms, cm)
		for _, name := range region.CloudProfiles(cm) {
			profiles[name] = struct{}{}
		}
	}
	parsed := map[*corev1.ConfigMap]*region.Config{}
	byProfile := make(map[string]*region.Config, len(profiles))
	for name := range profiles {
		cm := region.Select(cms, name)
		if cm == nil {
			continue
		}
		if _, ok := parsed[cm]; !ok {
			parsed[cm] = region.Parse(cm)
		}
		byProfile[name] = parsed[cm]
	}
	return byProfile
}
