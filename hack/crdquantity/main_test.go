package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
)

// A CRD as controller-gen writes it: a map of quantities, a quantity field, an
// int-or-string that is no quantity and a quantity someone bounded tighter.
const crd = `---
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
              anyOf:
              - type: integer
              - type: string
              pattern: ^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$
              x-kubernetes-int-or-string: true
            type: object
          port:
            anyOf:
            - type: integer
            - type: string
            x-kubernetes-int-or-string: true
          short:
            anyOf:
            - type: integer
            - type: string
            maxLength: 8
            pattern: ^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$
            x-kubernetes-int-or-string: true
          tolerance:
            anyOf:
            - type: integer
            - type: string
            pattern: ^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$
            x-kubernetes-int-or-string: true
        type: object
`

const bounded = `---
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
              anyOf:
              - type: integer
              - type: string
              maxLength: 64
              pattern: ^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?[0-9]{1,3}))?$
              x-kubernetes-int-or-string: true
            type: object
          port:
            anyOf:
            - type: integer
            - type: string
            x-kubernetes-int-or-string: true
          short:
            anyOf:
            - type: integer
            - type: string
            maxLength: 8
            pattern: ^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?[0-9]{1,3}))?$
            x-kubernetes-int-or-string: true
          tolerance:
            anyOf:
            - type: integer
            - type: string
            maxLength: 64
            pattern: ^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?[0-9]{1,3}))?$
            x-kubernetes-int-or-string: true
        type: object
`

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
