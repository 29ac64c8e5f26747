package app

import (
	"reflect"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CacheInNamespaces limits the manager cache of obj's kind to namespaces, keeping the
// label or field selector already set for it: a part whose RBAC for that kind is a Role in
// each of those namespaces must not list and watch it cluster-wide, which would be
// forbidden. No namespaces leaves the cache as it is.
func CacheInNamespaces(opts *cache.Options, obj client.Object, namespaces []string) {
	if len(namespaces) == 0 {
		return
	}
	if opts.ByObject == nil {
		opts.ByObject = map[client.Object]cache.ByObject{}
	}
	key, by := client.Object(obj), cache.ByObject{}
	for k, v := range opts.ByObject {
		if reflect.TypeOf(k) == reflect.TypeOf(obj) {
			key, by = k, v
			break
		}
	}
	by.Namespaces = map[string]cache.Config{}
	for _, ns := range namespaces {
		by.Namespaces[ns] = cache.Config{}
	}
	opts.ByObject[key] = by
}
