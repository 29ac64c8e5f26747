//go:build tools

// Package tools pins the binaries hack/tools/build.sh builds from this module:
// prometheus-operator and its config reloader, which the one-node test cluster runs as pods
// the way kube-prometheus-stack does.
package tools

import (
	_ "github.com/prometheus-operator/prometheus-operator/cmd/operator"
	_ "github.com/prometheus-operator/prometheus-operator/cmd/prometheus-config-reloader"
)
