package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Tool returns the path of a binary that hack/tools builds (prometheus, promtool, helm),
// named by the environment variable SEEDSCALER_<TOOL> that the Makefile sets. Without it,
// the error says how to get the binary.
func Tool(name string) (string, error) {
	env := "SEEDSCALER_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	path := os.Getenv(env)
	if path == "" {
		return "", fmt.Errorf("%s is not set: this test needs the real %s. Run it with `make test`, or build it once with "+
			"`hack/tools/build.sh %s` and `export %s=$(hack/tools/build.sh --dir %s)/%s`", env, name, name, env, name, name)
	}
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s=%s: %w (build it with `hack/tools/build.sh %s`)", env, path, err, name)
	}
	return path, nil
}

// Build names a build of cmd/seedscaler: Shipped is what the image holds (the parts),
// Development adds `local` and `simulate` (the tag `dev`, as `make build` builds it).
type Build string

// The builds of cmd/seedscaler.
const (
	Shipped     Build = "shipped"
	Development Build = "dev"
)

// BuildSeedscaler builds cmd/seedscaler into dir and returns the binary's path: for tests
// that run the parts as the chart does, each its own process. The go command's build cache
// makes every build after the first quick.
func BuildSeedscaler(dir string, build Build) (string, error) {
	root, err := RepositoryRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "seedscaler")
	args := []string{"build", "-o", bin}
	if build == Development {
		args = append(args, "-tags", "dev")
	}
	cmd := exec.Command("go", append(args, "./cmd/seedscaler")...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building seedscaler (%s): %w\n%s", build, err, out)
	}
	return bin, nil
}
