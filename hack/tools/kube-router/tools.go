//go:build tools

// Package tools pins kube-router for hack/tools/build.sh.
package tools

import _ "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router"
