//go:build tools

// Package tools pins the binaries hack/tools/build.sh builds from this module.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
