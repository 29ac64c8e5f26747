// Package crds tests seedscaler's CRDs against a real kube-apiserver: the examples apply,
// invalid objects are rejected with messages that name the field, defaults, printer
// columns and the scale subresource.
package crds

import (
	"fmt"
	"os"
	"testing"

	"github.com/seedscaler/seedscaler/internal/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) {
	var err error
	if env, err = testenv.Start(testenv.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}
