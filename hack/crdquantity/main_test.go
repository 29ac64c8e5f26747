package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The patterns as they appear in a CRD: controller-gen's for a resource.Quantity, and the
// bounded one crdquantity writes.
const (
	controllerGenPattern = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`
	boundedPattern       = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?[0-9]{1,3}))?$`
)

// quantitySchema is the schema controller-gen writes for a resource.Quantity, with pattern
// and, unless maxLength is 0, a maxLength, each line indented by indent spaces.
func quantitySchema(indent, maxLength int, pattern string) string {
	lines := []string{"anyOf:", "- type: integer", "- type: string"}
	if maxLength > 0 {
		lines = append(lines, fmt.Sprintf("maxLength: %d", maxLength))
	}
	lines = append(lines, "pattern: "+pattern, "x-kubernetes-int-or-string: true")
	pad := strings.Repeat(" ", indent)
	return pad + strings.Join(lines, "\n"+pad) + "\n"
}

// thingsCRD is a CRD as controller-gen writes it around three quantity schemas: a map of
// quantities (capacity), a quantity someone bounded tighter (short) and a quantity field
// (tolerance); and an int-or-string that is no quantity (port).
func thingsCRD(capacity, short, tolerance string) string {
	return `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        properties:
          capacity:
            additionalProperties:
` + capacity + `            type: object
          port:
            anyOf:
            - type: integer
            - type: string
            x-kubernetes-int-or-string: true
          short:
` + short + `          tolerance:
` + tolerance + `        type: object
`
}

// crd is the CRD as controller-gen writes it, and bounded the same after crdquantity: every
// quantity takes the bounded pattern, and a maxLength of 64 unless it had a tighter one.
var (
	crd     = thingsCRD(quantitySchema(14, 0, controllerGenPattern), quantitySchema(12, 8, controllerGenPattern), quantitySchema(12, 0, controllerGenPattern))
	bounded = thingsCRD(quantitySchema(14, 64, boundedPattern), quantitySchema(12, 8, boundedPattern), quantitySchema(12, 64, boundedPattern))
)

func TestBoundSetsMaxLengthOnQuantitiesOnly(t *testing.T) {
	out, n, err := bound([]byte(crd))
	require.NoError(t, err)
	assert.Equal(t, bounded, string(out))
	assert.Equal(t, 3, n)

	again, _, err := bound(out)
	require.NoError(t, err)
	assert.Equal(t, bounded, string(again), "bounding twice changes nothing")
}

func TestRunFailsWithoutQuantities(t *testing.T) {
	file := filepath.Join(t.TempDir(), "crd.yaml")
	require.NoError(t, os.WriteFile(file, []byte("---\nkind: CustomResourceDefinition\n"), 0o644))
	assert.ErrorContains(t, run([]string{file}), "no quantity found")

	require.NoError(t, os.WriteFile(file, []byte(crd), 0o644))
	require.NoError(t, run([]string{file}))
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, bounded, string(got))
}

// The bounded pattern takes the quantities people write, each of which
// resource.ParseQuantity reads, and refuses an exponent of 4 digits or more or with a
// fraction (which ParseQuantity refuses, but controller-gen's pattern takes).
func TestBoundedPattern(t *testing.T) {
	pattern := regexp.MustCompile(BoundedPattern)
	original := regexp.MustCompile(quantityPattern)
	for _, s := range []string{"500", "1.5k", "100Gi", "1e3", "5E-2", "1e+3", "1e999", "1E", "1Ei", ".5", "+1", "-3m"} {
		assert.True(t, pattern.MatchString(s), s)
		_, err := resource.ParseQuantity(s)
		assert.NoError(t, err, s)
	}
	for _, s := range []string{"92E3372036854775807", "1E40000000", "1e1000", "1e0001", "1e-1000", "1e3.5", "1e.5", "1e3."} {
		assert.True(t, original.MatchString(s), "%s: controller-gen's pattern takes it", s)
		assert.False(t, pattern.MatchString(s), s)
	}
}
