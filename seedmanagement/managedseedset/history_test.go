//go:build integration

package managedseedset

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// history records every version of every Shoot, ManagedSeed and Seed the kube-apiserver
// hands out, by resource version. etcd's revisions are one global, increasing sequence, so
// the state of the whole landscape at any revision can be reconstructed afterwards: the
// invariants are checked against what really happened, not against what a test happened to
// poll.
type history struct {
	mu      sync.Mutex
	records []record
}

// record is one version of an object.
type record struct {
	kind      string // Shoot, ManagedSeed, Seed
	key       string // namespace/name (name for Seeds)
	uid       string
	rv        uint64
	gone      bool // deleted from the kube-apiserver
	deleting  bool // has a deletionTimestamp
	seeds     []string
	revision  string // controller-revision-hash label
	set       string // managedseedset label
	reconcile bool   // a Shoot whose last operation succeeded for its generation
}

// startHistory records the three kinds with informers of their own (not the controllers').
func startHistory(ctx context.Context) (*history, error) {
	h := &history{}
	c, err := cache.New(env.Config, cache.Options{Scheme: env.Scheme})
	if err != nil {
		return nil, err
	}
	for kind, obj := range map[string]client.Object{
		"Shoot": &gardencorev1beta1.Shoot{}, "ManagedSeed": &seedmanagementv1alpha1.ManagedSeed{}, "Seed": &gardencorev1beta1.Seed{},
	} {
		informer, err := c.GetInformer(ctx, obj)
		if err != nil {
			return nil, err
		}
		if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { h.add(kind, obj, false) },
			UpdateFunc: func(_, obj any) { h.add(kind, obj, false) },
			DeleteFunc: func(obj any) {
				if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
					obj = tombstone.Obj
				}
				h.add(kind, obj, true)
			},
		}); err != nil {
			return nil, err
		}
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("the history's informers did not sync")
	}
	return h, nil
}

func (h *history) add(kind string, obj any, gone bool) {
	o, ok := obj.(client.Object)
	if !ok {
		return
	}
	rv, err := strconv.ParseUint(o.GetResourceVersion(), 10, 64)
	if err != nil {
		return
	}
	r := record{kind: kind, key: client.ObjectKeyFromObject(o).String(), uid: string(o.GetUID()), rv: rv, gone: gone,
		deleting: o.GetDeletionTimestamp() != nil, revision: o.GetLabels()[seedmanagementv1alpha1.LabelControllerRevisionHash],
		set: o.GetLabels()[seedmanagementv1alpha1.LabelManagedSeedSet]}
	if kind == "Seed" {
		r.key = o.GetName()
	}
	if shoot, ok := o.(*gardencorev1beta1.Shoot); ok {
		r.seeds = usage.SeedNames(shoot)
		r.reconcile = shootReconciled(shoot)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r)
}

// sorted returns the records of a kind, by resource version.
func (h *history) sorted(kind string) []record {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []record
	for _, r := range h.records {
		if r.kind == kind {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b record) int {
		switch {
		case a.rv < b.rv:
			return -1
		case a.rv > b.rv:
			return 1
		}
		return 0
	})
	return out
}

// removals returns, for a kind and set, the keys whose deletion began (deletionTimestamp or
// gone), in the order it began, with the resource version it began at.
func (h *history) removals(kind, set string) (keys []string, at map[string]uint64) {
	at = map[string]uint64{}
	for _, r := range h.sorted(kind) {
		if (r.deleting || r.gone) && (set == "" || r.set == set) {
			if _, seen := at[r.key]; !seen {
				at[r.key] = r.rv
				keys = append(keys, r.key)
			}
		}
	}
	return keys, at
}

// shootsOnSeedAt counts the shoots that occupied a seed at resource version rv.
func (h *history) shootsOnSeedAt(seedName string, rv uint64) []string {
	latest := map[string]record{}
	for _, r := range h.sorted("Shoot") {
		if r.rv > rv {
			break
		}
		latest[r.key] = r
	}
	var on []string
	for key, r := range latest {
		if !r.gone && slices.Contains(r.seeds, seedName) {
			on = append(on, key)
		}
	}
	slices.Sort(on)
	return on
}

// uids returns, per key of a kind and set, the distinct UIDs seen: more than one means a
// name was used twice.
func (h *history) uids(kind, set string) map[string][]string {
	out := map[string][]string{}
	for _, r := range h.sorted(kind) {
		if r.set == set && !slices.Contains(out[r.key], r.uid) {
			out[r.key] = append(out[r.key], r.uid)
		}
	}
	return out
}

// firstAt returns the first resource version at which a record of the kind and key
// satisfies cond, and false when none does.
func (h *history) firstAt(kind, key string, cond func(record) bool) (uint64, bool) {
	for _, r := range h.sorted(kind) {
		if r.key == key && cond(r) {
			return r.rv, true
		}
	}
	return 0, false
}
