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

// Build names a build: Shipped is cmd/seedscaler, what the image holds (the parts);
// Development is cmd/seedscaler-dev (`local`, `simulate`, `bench-autoscaling`), built
// beside a shipped one, which its demo runs the parts as.
type Build string

// The builds of seedscaler.
const (
	Shipped     Build = "shipped"
	Development Build = "dev"
)

// BuildSeedscaler builds a binary into dir and returns its path: cmd/seedscaler for
// Shipped; for Development, cmd/seedscaler-dev and, beside it, cmd/seedscaler, in one go
// command that compiles them together. The go command's build cache makes every build
// after the first quick.
func BuildSeedscaler(dir string, build Build) (string, error) {
	root, err := RepositoryRoot()
	if err != nil {
		return "", err
	}
	commands := []string{"seedscaler"}
	if build == Development {
		commands = append(commands, "seedscaler-dev")
	}
	// -o names a directory (the trailing separator says so): each command's binary goes
	// there under the command's name.
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, command := range commands {
		args = append(args, "./cmd/"+command)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %w\n%s", strings.Join(commands, " and "), err, out)
	}
	return filepath.Join(dir, commands[len(commands)-1]), nil
}
