package controller

import (
	"sort"
	"sync"

	toolscache "k8s.io/client-go/tools/cache"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/scheduler/plugins"
)

// seedSnapshot is the seeds a decision reads, kept by Seed informer events. Listing them
// from the cache would copy every Seed into a new list on every decision; the snapshot hands
// out one shared, name-sorted slice and rebuilds it only after a seed changed. Each seed
// comes with what the filters derive from it alone (framework.SeedInfo), worked out once
// per version of the seed. Decisions only read the seeds, and a rebuilt slice never changes
// one already handed out.
type seedSnapshot struct {
	mu     sync.Mutex
	byName map[string]*framework.SeedInfo
	list   []*framework.SeedInfo
	dirty  bool
}

func newSeedSnapshot() *seedSnapshot {
	return &seedSnapshot{byName: map[string]*framework.SeedInfo{}}
}

// List returns the seeds sorted by name. Callers must not modify the slice or the seeds.
func (s *seedSnapshot) List() []*framework.SeedInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dirty {
		list := make([]*framework.SeedInfo, 0, len(s.byName))
		for _, seed := range s.byName {
			list = append(list, seed)
		}
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
		s.list, s.dirty = list, false
	}
	return s.list
}

func (s *seedSnapshot) set(obj any) {
	seed, ok := obj.(*gardencorev1beta1.Seed)
	if !ok {
		return
	}
	info := plugins.NewSeedInfo(seed)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byName[seed.Name] = info
	s.dirty = true
}

func (s *seedSnapshot) delete(obj any) {
	name := ""
	switch o := obj.(type) {
	case *gardencorev1beta1.Seed:
		name = o.Name
	case toolscache.DeletedFinalStateUnknown:
		name = o.Key // cluster-scoped: the key is the name
	default:
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byName, name)
	s.dirty = true
}

// Handler keeps the snapshot in step with a Seed informer.
func (s *seedSnapshot) Handler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { s.set(obj) },
		UpdateFunc: func(_, obj any) { s.set(obj) },
		DeleteFunc: s.delete,
	}
}
