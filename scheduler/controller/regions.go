package controller

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/seedscaler/seedscaler/scheduler/region"
)

// regionConfigs is the parsed region config of each CloudProfile, kept by ConfigMap
// informer events. Listing the region configs from the cache on every decision would copy
// them into a new list and select among them each time; this map is rebuilt (and each
// ConfigMap parsed once) only after a region config changed, so a decision is one lookup.
type regionConfigs struct {
	namespace string

	mu        sync.Mutex
	byKey     map[string]*corev1.ConfigMap // namespace/name -> region config
	byProfile map[string]*region.Config    // CloudProfile name -> its region config
	dirty     bool
}

func newRegionConfigs(namespace string) *regionConfigs {
	return &regionConfigs{namespace: namespace, byKey: map[string]*corev1.ConfigMap{}}
}

// get returns the region config of a CloudProfile, nil when there is none.
func (rc *regionConfigs) get(cloudProfile string) *region.Config {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.dirty {
		rc.rebuildLocked()
	}
	return rc.byProfile[cloudProfile]
}

// rebuildLocked maps every CloudProfile a region config names to the config region.Select
// picks for it.
func (rc *regionConfigs) rebuildLocked() {
	cms := make([]*corev1.ConfigMap, 0, len(rc.byKey))
	profiles := map[string]struct{}{}
	for _, cm := range rc.byKey {
		cms = append(cms, cm)
		for _, name := range region.CloudProfiles(cm) {
			profiles[name] = struct{}{}
		}
	}
	parsed := map[*corev1.ConfigMap]*region.Config{}
	rc.byProfile = make(map[string]*region.Config, len(profiles))
	for name := range profiles {
		cm := region.Select(cms, name)
		if cm == nil {
			continue
		}
		if _, ok := parsed[cm]; !ok {
			parsed[cm] = region.Parse(cm)
		}
		rc.byProfile[name] = parsed[cm]
	}
	rc.dirty = false
}

func (rc *regionConfigs) set(obj any) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok || cm.Namespace != rc.namespace {
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.byKey[cm.Namespace+"/"+cm.Name] = cm
	rc.dirty = true
}

func (rc *regionConfigs) delete(obj any) {
	key := ""
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		key = o.Namespace + "/" + o.Name
	case toolscache.DeletedFinalStateUnknown:
		key = o.Key
	default:
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	delete(rc.byKey, key)
	rc.dirty = true
}

// Handler keeps the region configs in step with a ConfigMap informer.
func (rc *regionConfigs) Handler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { rc.set(obj) },
		UpdateFunc: func(_, obj any) { rc.set(obj) },
		DeleteFunc: rc.delete,
	}
}
