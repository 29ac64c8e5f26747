package controllerutils

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Compact is a cached object kept in a form smaller than its type: a record of the few
// fields a part reads. The cache's store holds the record; whoever reads the cache sees
// the object it stands for, rebuilt by Expand:
//
//   - informer event handlers and index functions, through an informer made by
//     NewInformer;
//   - controller-runtime's cache reader (Get and List), which copies what it returns with
//     DeepCopyObject: a Compact's DeepCopyObject returns its Expand;
//   - ClusterIndex.List.
//
// A record must answer GetObjectMeta (metav1.ObjectMetaAccessor) with at least its
// namespace, name and resource version: the store keys it by them and tells an update
// from a resync by the version.
type Compact interface {
	runtime.Object
	// Expand returns a new object of the record's type with every field the record keeps.
	Expand() client.Object
}

// Expand returns the object a cached item stands for: a Compact's Expand, a tombstone with
// its last object expanded, or the item itself.
func Expand(item any) any {
	switch o := item.(type) {
	case Compact:
		return o.Expand()
	case toolscache.DeletedFinalStateUnknown:
		if c, ok := o.Obj.(Compact); ok {
			o.Obj = c.Expand()
		}
		return o
	default:
		return item
	}
}

// NewInformer is controller-runtime's informer constructor (cache.Options.NewInformer) for
// caches whose transforms store Compact records: the informer is client-go's shared index
// informer, and its event handlers and index functions see every record expanded, so they
// read the same objects as with a transform that keeps the type. For objects that are not
// Compact it changes nothing.
func NewInformer(lw toolscache.ListerWatcher, example runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	return &expandingInformer{toolscache.NewSharedIndexInformer(lw, example, resync, expandingIndexers(indexers))}
}

// expandingInformer hands handlers and index functions expanded objects.
type expandingInformer struct {
	toolscache.SharedIndexInformer
}

func (i *expandingInformer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.SharedIndexInformer.AddEventHandler(expandingHandler{h})
}

func (i *expandingInformer) AddEventHandlerWithResyncPeriod(h toolscache.ResourceEventHandler, resync time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.SharedIndexInformer.AddEventHandlerWithResyncPeriod(expandingHandler{h}, resync)
}

func (i *expandingInformer) AddEventHandlerWithOptions(h toolscache.ResourceEventHandler, options toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.SharedIndexInformer.AddEventHandlerWithOptions(expandingHandler{h}, options)
}

func (i *expandingInformer) AddIndexers(indexers toolscache.Indexers) error {
	return i.SharedIndexInformer.AddIndexers(expandingIndexers(indexers))
}

func expandingIndexers(indexers toolscache.Indexers) toolscache.Indexers {
	out := make(toolscache.Indexers, len(indexers))
	for name, index := range indexers {
		out[name] = func(obj any) ([]string, error) { return index(Expand(obj)) }
	}
	return out
}

type expandingHandler struct {
	handler toolscache.ResourceEventHandler
}

func (h expandingHandler) OnAdd(obj any, isInInitialList bool) {
	h.handler.OnAdd(Expand(obj), isInInitialList)
}

func (h expandingHandler) OnUpdate(oldObj, newObj any) {
	h.handler.OnUpdate(Expand(oldObj), Expand(newObj))
}

func (h expandingHandler) OnDelete(obj any) {
	h.handler.OnDelete(Expand(obj))
}
