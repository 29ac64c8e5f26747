// Command golangci-lint is golangci-lint with the module plugins `make lint` configures
// (.golangci.yml, linters.settings.custom) linked in: kube-api-linter for the API types and
// logcheck for structured logging. It is what `golangci-lint custom` would build, written out
// here because that command clones golangci-lint's repository, and the tool cache is built
// from the Go module proxy only.
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/golangci/golangci-lint/v2/pkg/commands"
	"github.com/golangci/golangci-lint/v2/pkg/exitcodes"

	// Each plugin registers itself with github.com/golangci/plugin-module-register in
	// its init, under the name .golangci.yml's custom settings use.
	// The module's root package registers kubeapilinter together with all of its analyzers
	// (pkg/plugin/base alone registers the plugin with none).
	_ "sigs.k8s.io/kube-api-linter"
	_ "sigs.k8s.io/logtools/logcheck/gclplugin" // logcheck
)

const golangciModule = "github.com/golangci/golangci-lint/v2"

func main() {
	if err := commands.Execute(buildInfo()); err != nil {
		fmt.Fprintf(os.Stderr, "The command is terminated due to an error: %v\n", err)
		os.Exit(exitcodes.Failure)
	}
}

// buildInfo reports golangci-lint's own module version (from this module's go.mod), not
// this tools module's, so that `golangci-lint version` names the release in use.
func buildInfo() commands.BuildInfo {
	info := commands.BuildInfo{Version: "unknown", Commit: "module " + golangciModule, Date: "(unknown)", GoVersion: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	info.GoVersion = bi.GoVersion
	for _, dep := range bi.Deps {
		if dep.Path == golangciModule {
			info.Version = strings.TrimPrefix(dep.Version, "v")
			info.Commit = fmt.Sprintf("module %s@%s, plugins kubeapilinter and logcheck", golangciModule, dep.Version)
		}
	}
	return info
}
