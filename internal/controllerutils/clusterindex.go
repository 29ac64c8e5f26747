package controllerutils

import (
	"context"
	"fmt"
	"slices"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ClusterIndex indexes the cached objects of one kind by values that mean the same in every
// namespace, such as the seeds shoots occupy. A field index (client.FieldIndexer) keys every
// value twice, once for all namespaces and once for the object's namespace, and a value
// shared by few objects of a namespace (a seed's shoots of one project) gets a set of its
// own: at 100,000 shoots that was about 200 bytes of heap a shoot for an index only ever
// read across namespaces. A ClusterIndex keys each value once, in the informer's own
// indexer, so the index changes with the cache's store, under its lock.
type ClusterIndex[T client.Object] struct {
	name    string
	indexer toolscache.Indexer
}

// AddClusterIndex adds the index name to the informer of obj's kind in informers; values
// returns the index values of an object (nil for none).
func AddClusterIndex[T client.Object](ctx context.Context, informers cache.Informers, obj T, name string, values func(T) []string) (*ClusterIndex[T], error) {
	informer, err := informers.GetInformer(ctx, obj)
	if err != nil {
		return nil, fmt.Errorf("getting the %T informer for index %s: %w", obj, name, err)
	}
	withIndexer, ok := informer.(interface{ GetIndexer() toolscache.Indexer })
	if !ok {
		return nil, fmt.Errorf("the %T informer (%T) has no indexer for index %s", obj, informer, name)
	}
	// An informer of Compact records (NewInformer) expands them for its index functions.
	err = informer.AddIndexers(toolscache.Indexers{name: func(cached any) ([]string, error) {
		if o, ok := cached.(T); ok {
			return values(o), nil
		}
		return nil, nil
	}})
	if err != nil {
		return nil, fmt.Errorf("adding index %s to the %T informer: %w", name, obj, err)
	}
	return &ClusterIndex[T]{name: name, indexer: withIndexer.GetIndexer()}, nil
}

// List returns the cached objects indexed under value, sorted by namespace and name. They
// are the cache's own objects, or new ones where the cache keeps Compact records: read
// them, never change them (copy first).
func (i *ClusterIndex[T]) List(value string) ([]T, error) {
	keys, err := i.indexer.IndexKeys(i.name, value)
	if err != nil {
		return nil, fmt.Errorf("reading index %s: %w", i.name, err)
	}
	slices.Sort(keys)
	out := make([]T, 0, len(keys))
	for _, key := range keys {
		obj, exists, err := i.indexer.GetByKey(key)
		if err != nil {
			return nil, fmt.Errorf("reading %s from the cache: %w", key, err)
		}
		if o, ok := Expand(obj).(T); exists && ok {
			out = append(out, o)
		}
	}
	return out, nil
}
