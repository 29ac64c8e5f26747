// Package layout checks the rules of the repository's rooms (docs/architecture.md): which
// package may import which. The rules hold for what ships and what the parts share; tests
// may reach across rooms.
package layout

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/seedscaler/seedscaler/"

// parts are the rooms of the parts: each one deployment, none importing another.
var parts = []string{"adapter", "autoscaler", "exporter", "scheduler", "seedmanagement", "uninstall"}

// room is the first element of a package's path in the module ("scheduler" for
// scheduler/controller), with test/framework a room of its own; "" outside the module.
func room(pkg string) string {
	rel, ok := strings.CutPrefix(pkg, module)
	if !ok {
		return ""
	}
	if rel == "test/framework" || strings.HasPrefix(rel, "test/framework/") {
		return "test/framework"
	}
	if rel == "cmd/seedscaler-dev" {
		return "cmd/seedscaler-dev"
	}
	first, _, _ := strings.Cut(rel, "/")
	return first
}

// forbidden says why pkg, in room from, must not import a package in room to ("" when it
// may).
func forbidden(from, to string) string {
	product := slices.Contains(parts, from) || from == "internal" || from == "api" || from == "cmd"
	switch {
	case to == "" || to == from:
		return ""
	case product && (to == "test" || to == "test/framework" || to == "dev" || to == "cmd/seedscaler-dev"):
		return "what ships imports no test framework nor development code"
	case slices.Contains(parts, from) && slices.Contains(parts, to):
		return "parts never import each other: they agree on api/ and the metric names"
	case from == "internal" && slices.Contains(parts, to):
		return "internal/ holds what parts share, so it imports no part"
	case from == "api" && to != "api":
		return "the API types import nothing of the project"
	case from == "test/framework" && (to == "dev" || to == "cmd/seedscaler-dev"):
		return "the test framework does not depend on the development commands"
	}
	return ""
}

func TestRoomsImportOnlyWhatTheyMay(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Greater(t, len(lines), 20, "go list found too few packages: %s", out)
	for _, line := range lines {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		for _, imp := range imports {
			if why := forbidden(room(pkg), room(imp)); why != "" {
				t.Errorf("%s imports %s: %s", strings.TrimPrefix(pkg, module), strings.TrimPrefix(imp, module), why)
			}
		}
	}
}

func TestTheRulesRefuseWhatTheySay(t *testing.T) {
	for _, tc := range []struct{ from, to string }{
		{"scheduler", "autoscaler"},
		{"exporter", "test/framework"},
		{"internal", "dev"},
		{"internal", "scheduler"},
		{"api", "internal"},
		{"cmd", "dev"},
		{"test/framework", "dev"},
	} {
		assert.NotEmpty(t, forbidden(tc.from, tc.to), "%s → %s", tc.from, tc.to)
	}
	for _, tc := range []struct{ from, to string }{
		{"scheduler", "internal"},
		{"scheduler", "api"},
		{"dev", "test/framework"},
		{"cmd/seedscaler-dev", "dev"},
		{"test", "scheduler"},
		{"scheduler", ""},
	} {
		assert.Empty(t, forbidden(tc.from, tc.to), "%s → %s", tc.from, tc.to)
	}
	assert.Equal(t, "scheduler", room(module+"scheduler/controller"))
	assert.Equal(t, "test/framework", room(module+"test/framework/cluster"))
	assert.Equal(t, "test", room(module+"test/e2e"))
}
