//go:build tools

// Package tools pins the binaries hack/tools/build.sh builds from this module.
package tools

import (
	_ "github.com/prometheus/prometheus/cmd/prometheus"
	_ "github.com/prometheus/prometheus/cmd/promtool"
)
