package adapter

import (
	"context"
	"fmt"
	"maps"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// metadataObjects resolves label selectors from metadata informers: names and labels only,
// kept current by watches.
type metadataObjects struct {
	resources map[schema.GroupResource]*objectSet
}

// objectSet is the cached objects of one resource, and the names each recent label selector
// matched among them. A list request over a thousand seeds matched the selector against
// every seed's labels, which cost the adapter as much CPU as decoding both of Prometheus'
// answers (docs/performance.md); the autoscaler asks with the same few selectors every
// time, and what they match only changes when an object comes, goes or changes its labels.
type objectSet struct {
	lister     cache.GenericLister
	selections selectionCache
}

func startObjectCache(ctx context.Context, restConfig *rest.Config, resources map[schema.GroupResource]schema.GroupVersionResource) (*metadataObjects, error) {
	client, err := metadata.NewForConfig(restConfig)
	if err != nil {
		return nil, err
	}
	factory := metadatainformer.NewSharedInformerFactory(client, 0)
	m := &metadataObjects{resources: map[schema.GroupResource]*objectSet{}}
	for gr, gvr := range resources {
		informer := factory.ForResource(gvr)
		set := &objectSet{lister: informer.Lister()}
		if _, err := informer.Informer().AddEventHandler(set.invalidationHandler()); err != nil {
			return nil, fmt.Errorf("watching %s for label changes: %w", gr, err)
		}
		m.resources[gr] = set
	}
	factory.Start(ctx.Done())
	for gvr, synced := range factory.WaitForCacheSync(ctx.Done()) {
		if !synced {
			return nil, fmt.Errorf("the cache of %s did not sync; can the adapter list and watch them?", gvr.GroupResource())
		}
	}
	return m, nil
}

// Names implements ObjectLister. The slice returned is shared with other requests and must
// not be modified.
func (m *metadataObjects) Names(gr schema.GroupResource, namespace string, selector labels.Selector) ([]string, error) {
	set, ok := m.resources[gr]
	if !ok {
		return nil, fmt.Errorf("no cache of %s", gr)
	}
	return set.names(namespace, selector)
}

func (s *objectSet) names(namespace string, selector labels.Selector) ([]string, error) {
	if selector == nil {
		selector = labels.Everything()
	}
	// A namespace name cannot contain a space, so no two (namespace, selector) pairs share a key.
	return s.selections.get(namespace+" "+selector.String(), func() ([]string, error) {
		return s.match(namespace, selector)
	})
}

// match lists the objects of namespace that selector matches, from the informer's store.
func (s *objectSet) match(namespace string, selector labels.Selector) ([]string, error) {
	lister := cache.GenericNamespaceLister(s.lister)
	if namespace != "" {
		lister = s.lister.ByNamespace(namespace)
	}
	objs, err := lister.List(selector)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(objs))
	for _, o := range objs {
		accessor, err := meta.Accessor(o)
		if err != nil {
			return nil, err
		}
		names = append(names, accessor.GetName())
	}
	return names, nil
}

// invalidationHandler forgets every remembered selection when an object is added or
// deleted, or its labels change. Other updates, such as a seed's status every few seconds,
// cannot change what a selector matches and keep them.
func (s *objectSet) invalidationHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { s.selections.invalidate() },
		UpdateFunc: func(oldObj, newObj any) {
			if !sameLabels(oldObj, newObj) {
				s.selections.invalidate()
			}
		},
		DeleteFunc: func(any) { s.selections.invalidate() },
	}
}

// sameLabels reports whether two versions of an object carry the same labels; false when
// either is not an object, so that the caller rather forgets too much than too little.
func sameLabels(oldObj, newObj any) bool {
	o, err := meta.Accessor(oldObj)
	if err != nil {
		return false
	}
	n, err := meta.Accessor(newObj)
	if err != nil {
		return false
	}
	return maps.Equal(o.GetLabels(), n.GetLabels())
}

// maxSelections bounds how many selections an objectSet remembers. The autoscaler asks with
// one selector per SeedAutoscaler target; a client that sends ever new selectors only makes
// the cache start over.
const maxSelections = 64

// selectionCache remembers the names a (namespace, selector) key matched until invalidate is
// called. A result computed while invalidate ran is returned but not remembered, so the
// cache never holds names from before the last change it was told of. Informers call their
// handlers just after their store changes; in that gap a request may still be answered from
// the names before the change, as it could have been had it come a moment earlier.
type selectionCache struct {
	mu sync.Mutex
	// generation counts invalidations.
	generation uint64
	names      map[string][]string
}

func (c *selectionCache) get(key string, match func() ([]string, error)) ([]string, error) {
	c.mu.Lock()
	names, ok := c.names[key]
	generation := c.generation
	c.mu.Unlock()
	if ok {
		return names, nil
	}
	names, err := match()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.generation == generation {
		if c.names == nil || len(c.names) >= maxSelections {
			c.names = map[string][]string{}
		}
		c.names[key] = names
	}
	return names, nil
}

func (c *selectionCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation++
	c.names = nil
}
