//go:build tools

// Tools module: builds the real gardener-apiserver, gardener-controller-manager and
// gardener-scheduler that the garden tests run beside kube-apiserver. Kept apart from the
// main module: Gardener pins its own k8s.io and controller-runtime versions, which minimal
// version selection would otherwise lift to the product's.
package tools

import (
	_ "github.com/gardener/gardener/cmd/gardener-apiserver"
	_ "github.com/gardener/gardener/cmd/gardener-controller-manager"
	_ "github.com/gardener/gardener/cmd/gardener-scheduler"
)
