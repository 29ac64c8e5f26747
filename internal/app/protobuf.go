package app

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

// Protobuf returns a copy of cfg for clients of APIs that serve protobuf: events and the
// custom and external metrics APIs. Encoding and decoding protobuf costs the client and the
// server a fraction of JSON, which counts where a request carries a thousand items or where
// every bind writes an event. Never for custom resources: the kube-apiserver serves them
// in JSON only.
func Protobuf(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.ContentType = runtime.ContentTypeProtobuf
	out.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	return out
}
