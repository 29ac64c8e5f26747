package controller

import (
	"sync"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// informerView is what a decision reads of one kind of object, kept by that kind's informer
// events instead of being listed from the cache per decision: per object, a value derived
// from it once per version (keyed as the informer keys it), and a result built from all
// values on the first read after a change. Readers share the result and must not change it;
// a rebuilt result never changes one handed out before.
type informerView[O client.Object, V, R any] struct {
	// keep filters the objects the view holds; nil keeps all.
	keep func(O) bool
	// derive is the value of one object.
	derive func(O) V
	// build is the result of all values, by key.
	build func(map[string]V) R

	mu     sync.Mutex
	values map[string]V
	result R
	dirty  bool
}

func newInformerView[O client.Object, V, R any](keep func(O) bool, derive func(O) V, build func(map[string]V) R) *informerView[O, V, R] {
	return &informerView[O, V, R]{keep: keep, derive: derive, build: build, values: map[string]V{}, dirty: true}
}

// get returns the result, rebuilt only if an object changed since the last read.
func (v *informerView[O, V, R]) get() R {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.dirty {
		v.result, v.dirty = v.build(v.values), false
	}
	return v.result
}

// value returns the value of the object with the given key, as the informer keys it.
func (v *informerView[O, V, R]) value(key string) (V, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	value, ok := v.values[key]
	return value, ok
}

func (v *informerView[O, V, R]) set(obj any) {
	o, ok := obj.(O)
	if !ok || (v.keep != nil && !v.keep(o)) {
		return
	}
	key, err := toolscache.MetaNamespaceKeyFunc(o)
	if err != nil {
		return
	}
	value := v.derive(o)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.values[key] = value
	v.dirty = true
}

func (v *informerView[O, V, R]) delete(obj any) {
	key, err := toolscache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.values[key]; !ok {
		return
	}
	delete(v.values, key)
	v.dirty = true
}

// Handler keeps the view in step with an informer of O.
func (v *informerView[O, V, R]) Handler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { v.set(obj) },
		UpdateFunc: func(_, obj any) { v.set(obj) },
		DeleteFunc: v.delete,
	}
}
