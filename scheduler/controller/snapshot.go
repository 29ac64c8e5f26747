package controller

import (
	"sort"
	"sync"

	toolscache "k8s.io/client-go/tools/cache"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/scheduler/capacity"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/scheduler/plugins"
)

// seedSnapshot is the seeds a decision reads: one shared, name-sorted slice, rebuilt only
// after a seed changed, rather than every Seed copied out of the cache per decision. Each
// seed comes with what the filters derive from it alone (framework.SeedInfo), worked out
// once per version of the seed, and with its seat in the ledger, where a decision reads its
// usage.
//
// A seed whose ManagedSeed is annotated for a drain is cordoned like a Seed annotated
// itself: the ManagedSeed's annotation is kept by name (a Seed is named like its
// ManagedSeed), and the seed's info is worked out again when it changes.
type seedSnapshot struct {
	*informerView[*gardencorev1beta1.Seed, *framework.SeedInfo, []*framework.SeedInfo]

	drainMu sync.Mutex
	// drainedBy maps a seed's name to the ManagedSeed (namespace/name) whose annotation
	// drains it.
	drainedBy map[string]string
}

func newSeedSnapshot(ledger *capacity.Ledger) *seedSnapshot {
	s := &seedSnapshot{drainedBy: map[string]string{}}
	info := func(seed *gardencorev1beta1.Seed) *framework.SeedInfo {
		info := plugins.NewSeedInfo(seed)
		info.Occupancy = ledger.Seat(seed.Name)
		if info.NotUsable == "" {
			if ms, ok := s.managedSeedDrain(seed.Name); ok {
				info.NotUsable = plugins.Cordoned("ManagedSeed " + ms)
			}
		}
		return info
	}
	s.informerView = newInformerView(nil, info, sortedSeeds)
	return s
}

func (s *seedSnapshot) managedSeedDrain(seed string) (string, bool) {
	s.drainMu.Lock()
	defer s.drainMu.Unlock()
	ms, ok := s.drainedBy[seed]
	return ms, ok
}

// observeManagedSeed records whether a ManagedSeed drains its seed, and works out the
// seed's info again when that changed.
func (s *seedSnapshot) observeManagedSeed(obj any, deleted bool) {
	ms, ok := obj.(*seedmanagementv1alpha1.ManagedSeed)
	if !ok {
		if tomb, isTomb := obj.(toolscache.DeletedFinalStateUnknown); isTomb {
			ms, ok = tomb.Obj.(*seedmanagementv1alpha1.ManagedSeed)
		}
		if !ok {
			return
		}
	}
	draining := !deleted && gardencorev1beta1.Draining(ms.Annotations)
	s.drainMu.Lock()
	_, was := s.drainedBy[ms.Name]
	if draining {
		s.drainedBy[ms.Name] = ms.Namespace + "/" + ms.Name
	} else {
		delete(s.drainedBy, ms.Name)
	}
	s.drainMu.Unlock()
	if was != draining {
		s.rederive(ms.Name)
	}
}

// rederive works out a seed's info again from the Seed last seen.
func (s *seedSnapshot) rederive(name string) {
	v := s.informerView
	v.mu.Lock()
	defer v.mu.Unlock()
	if info, ok := v.values[name]; ok {
		v.values[name] = v.derive(info.Seed)
		v.dirty = true
	}
}

// managedSeedHandler keeps the ManagedSeeds' drain annotations from a ManagedSeed informer.
func (s *seedSnapshot) managedSeedHandler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { s.observeManagedSeed(obj, false) },
		UpdateFunc: func(_, obj any) { s.observeManagedSeed(obj, false) },
		DeleteFunc: func(obj any) { s.observeManagedSeed(obj, true) },
	}
}

// List returns the seeds sorted by name. Callers must not modify the slice or the seeds.
func (s *seedSnapshot) List() []*framework.SeedInfo { return s.get() }

func sortedSeeds(byKey map[string]*framework.SeedInfo) []*framework.SeedInfo {
	list := make([]*framework.SeedInfo, 0, len(byKey))
	for _, seed := range byKey {
		list = append(list, seed)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return list
}
