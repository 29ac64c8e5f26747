//go:build integration

// Package crds tests seedscaler's CRDs against a real kube-apiserver: the examples apply,
// invalid objects are rejected with messages that name the field, defaults, printer
// columns and the scale subresource.
package crds

import (
	"os"
	"testing"

	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(testenv.Options{}, func(e *testenv.Environment) int {
		env = e
		return m.Run()
	}))
}
