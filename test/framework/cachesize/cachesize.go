// Package cachesize measures what a part's cache holds per object. It serves one resource's
// objects from a stand-in API server that answers only list and watch (streamed as a
// kube-apiserver streams a watch list), so that a benchmark builds the part's own
// controller-runtime cache over it, with the part's transforms, indexes and handlers, and
// reads the live heap once the cache has synced. Each object is decoded from its own JSON,
// as an informer decodes a list, so every string is its own allocation as in a real cache.
package cachesize

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// Resource is the one resource the stand-in serves.
type Resource struct {
	// Kind is the object kind, e.g. Shoot; its list kind is Kind+"List".
	Kind schema.GroupVersionKind
	// Plural is the resource's path segment, e.g. shoots.
	Plural string
	// Namespaced says whether the resource is namespaced.
	Namespaced bool
}

// Serve starts the stand-in API server for items (the JSON of each object) and returns a
// config to reach it and a REST mapper that knows the resource. The server stops with tb.
func Serve(tb testing.TB, res Resource, items [][]byte) (*rest.Config, meta.RESTMapper) {
	tb.Helper()
	resourceVersion := strconv.Itoa(1_000_000 + len(items))
	path := "/apis/" + res.Kind.Group + "/" + res.Kind.Version + "/" + res.Plural
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.Error(w, fmt.Sprintf("the stand-in serves only %s, not %s", path, r.URL.Path), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		query := r.URL.Query()
		switch {
		case query.Get("watch") == "true" && query.Get("sendInitialEvents") == "true":
			streamInitialEvents(w, res.Kind, resourceVersion, items)
			<-r.Context().Done()
		case query.Get("watch") == "true":
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			writeList(w, res.Kind, resourceVersion, items)
		}
	}))
	tb.Cleanup(server.Close)

	mapper := meta.NewDefaultRESTMapper(nil)
	scope := meta.RESTScopeRoot
	if res.Namespaced {
		scope = meta.RESTScopeNamespace
	}
	mapper.AddSpecific(res.Kind, res.Kind.GroupVersion().WithResource(res.Plural), res.Kind.GroupVersion().WithResource(res.Plural[:len(res.Plural)-1]), scope)
	return &rest.Config{Host: server.URL, QPS: -1}, mapper
}

func writeList(w http.ResponseWriter, kind schema.GroupVersionKind, resourceVersion string, items [][]byte) {
	_, _ = fmt.Fprintf(w, `{"apiVersion":%q,"kind":%q,"metadata":{"resourceVersion":%q},"items":[`,
		kind.GroupVersion().String(), kind.Kind+"List", resourceVersion)
	for i, item := range items {
		if i > 0 {
			_, _ = w.Write([]byte{','})
		}
		_, _ = w.Write(item)
	}
	_, _ = w.Write([]byte("]}"))
}

// streamInitialEvents answers a watch list: every object as ADDED, then the bookmark that
// ends the initial events.
func streamInitialEvents(w http.ResponseWriter, kind schema.GroupVersionKind, resourceVersion string, items [][]byte) {
	for _, item := range items {
		_, _ = fmt.Fprintf(w, `{"type":"ADDED","object":%s}`+"\n", item)
	}
	bookmark, _ := json.Marshal(map[string]any{
		"type": "BOOKMARK",
		"object": map[string]any{
			"apiVersion": kind.GroupVersion().String(), "kind": kind.Kind,
			"metadata": metav1.ObjectMeta{ResourceVersion: resourceVersion, Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}},
		},
	})
	_, _ = w.Write(append(bookmark, '\n'))
	w.(http.Flusher).Flush()
}

// LiveHeap returns the bytes of live heap after two collections.
func LiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
