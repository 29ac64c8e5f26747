//go:build integration

package crds

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// quantityBound is the regular expression of the CEL rules that refuse a quantity's
// exponent of 4 digits or more, or with a fraction (which resource.ParseQuantity refuses).
const quantityBound = `[eE][+-]?([0-9]{4}|[0-9]*[.])`

// quantityValues are what the bound refuses and what it takes. Every part decodes the
// quantities of the objects it reads with resource.ParseQuantity, which never returns for
// an exponent beyond int32 and compares for seconds with one of tens of millions: one
// stored object with such a value would stall every informer of its kind.
var quantityValues = []struct {
	name  string
	value any
	// refused is how: by the rules of the exponent, or by the length.
	refused refusal
}{
	{"an exponent beyond int32", "92E3372036854775807", byExponent},
	{"an exponent of tens of millions", "1E40000000", byExponent},
	{"an exponent of 4 digits", "1e1000", byExponent},
	{"a fractional exponent", "1e3.5", byExponent},
	{"65 characters", "1" + strings.Repeat("0", 64), byLength},
	{"a plain number", "500", accepted},
	{"a decimal suffix", "1.5k", accepted},
	{"a binary suffix", "100Gi", accepted},
	{"an exponent", "1e3", accepted},
	{"a negative exponent", "5E-2", accepted},
	{"an exponent of 3 digits", "1e100", accepted},
	{"64 characters", "1" + strings.Repeat("0", 63), accepted},
	{"an integer", int64(500), accepted},
}

type refusal int

const (
	accepted refusal = iota
	byExponent
	byLength
)

// quantityFamily writes a value into every quantity field of one kind and says which
// messages refuse an unbounded one.
type quantityFamily struct {
	name string
	// write creates (or updates) an object named name with value in its quantity fields.
	write func(ctx context.Context, t *testing.T, name string, value any) error
	// want are the messages of an exponent refused, one per field.
	want []string
	// fields are the paths of the quantities, each named when too long.
	fields []string
	// notWant are messages of rules that compare quantities: they leave an unbounded one
	// to the bound, since comparing it would hang the kube-apiserver.
	notWant []string
}

// Each kind refuses a quantity with an exponent of 4 digits or more in every quantity
// field, naming the field and the fix, and one of more than 64 characters, naming the
// field; and takes the quantities people write. A rule that compares quantities must not
// parse an unbounded one: each request has a deadline, so a kube-apiserver that hangs
// fails the test instead of stalling it.
func TestQuantitiesAreBounded(t *testing.T) {
	ensureNamespace(t, "quantities")
	families := []quantityFamily{
		{
			name: "Seed status",
			write: func(ctx context.Context, t *testing.T, name string, value any) error {
				seed := &unstructured.Unstructured{Object: seedObject(name)}
				require.NoError(t, env.Client.Create(ctx, seed))
				for _, field := range []string{"capacity", "allocatable", "usage"} {
					set(map[string]any{"shoots": value}, "status", field)(seed.Object)
				}
				return env.Client.Status().Update(ctx, seed, client.FieldValidation("Strict"))
			},
			want: []string{
				"status.capacity values must be quantities such as 500, 1.5k or 100Gi, with a whole exponent of at most 3 digits (1e3, not 1e1000)",
				"status.allocatable values must be quantities",
				"status.usage values must be quantities",
			},
			fields: []string{"status.capacity.shoots", "status.allocatable.shoots", "status.usage.shoots"},
		},
		{
			name: "ManagedSeed spec",
			write: func(ctx context.Context, t *testing.T, name string, value any) error {
				ms := example(t, "managedseed-gardenlet.yaml")
				ms.SetNamespace("quantities")
				ms.SetName(name)
				// Both name the resource, so the reserved <= capacity rule compares them.
				set(value, "spec", "gardenlet", "config", "resources", "capacity", "persistent-volumes")(ms.Object)
				set(value, "spec", "gardenlet", "config", "resources", "reserved", "persistent-volumes")(ms.Object)
				return env.Client.Create(ctx, ms, client.FieldValidation("Strict"))
			},
			want: []string{
				"resources.capacity values must be quantities such as 250, 1.5k or 100Gi, with a whole exponent of at most 3 digits (1e3, not 1e1000)",
				"resources.reserved values must be quantities",
			},
			fields: []string{
				"spec.gardenlet.config.resources.capacity.persistent-volumes",
				"spec.gardenlet.config.resources.reserved.persistent-volumes",
			},
			notWant: []string{"resources.reserved exceeds resources.capacity"},
		},
		{
			name: "SeedAutoscaler spec",
			write: func(ctx context.Context, t *testing.T, name string, value any) error {
				sa := example(t, "seedautoscaler.yaml")
				sa.SetNamespace("quantities")
				sa.SetName(name)
				setMetric(map[string]any{"type": "AverageValue", "averageValue": value}, "resource", "target")(sa.Object)
				set(value, "spec", "behavior", "scaleUp", "tolerance")(sa.Object)
				set(value, "spec", "behavior", "scaleDown", "consolidation", "minScore")(sa.Object)
				return env.Client.Create(ctx, sa, client.FieldValidation("Strict"))
			},
			want: []string{
				"target.averageValue must be a quantity such as 100, 1.5k or 1e3, with a whole exponent of at most 3 digits (1e3, not 1e1000)",
				"spec.behavior.scaleUp.tolerance", "tolerance must be a quantity",
				"spec.behavior.scaleDown.consolidation.minScore must be a quantity",
			},
			fields: []string{
				"spec.metrics[0].resource.target.averageValue",
				"spec.behavior.scaleUp.tolerance",
				"spec.behavior.scaleDown.consolidation.minScore",
			},
			notWant: []string{"must be greater than zero", "must not be negative"},
		},
		{
			name: "SeedAutoscaler status",
			write: func(ctx context.Context, t *testing.T, name string, value any) error {
				sa := example(t, "seedautoscaler.yaml")
				sa.SetNamespace("quantities")
				sa.SetName(name)
				require.NoError(t, env.Client.Create(ctx, sa))
				set(int64(1), "status", "currentReplicas")(sa.Object)
				set(int64(1), "status", "desiredReplicas")(sa.Object)
				set(map[string]any{"demand": value}, "status", "scaleAhead")(sa.Object)
				set([]any{map[string]any{"type": "Resource", "resource": map[string]any{
					"name": "shoots", "current": map[string]any{"value": value, "averageValue": value},
				}}}, "status", "currentMetrics")(sa.Object)
				return env.Client.Status().Update(ctx, sa, client.FieldValidation("Strict"))
			},
			want: []string{
				"status.scaleAhead.demand must be a quantity",
				"current.value must be a quantity",
				"current.averageValue must be a quantity",
			},
			fields: []string{
				"status.scaleAhead.demand",
				"status.currentMetrics[0].resource.current.value",
				"status.currentMetrics[0].resource.current.averageValue",
			},
		},
	}
	for j, f := range families {
		t.Run(f.name, func(t *testing.T) {
			for i, v := range quantityValues {
				t.Run(v.name, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					err := f.write(ctx, t, fmt.Sprintf("quantity-%d-%d", j, i), v.value)
					switch v.refused {
					case accepted:
						assert.NoError(t, err)
						return
					case byExponent:
						require.Error(t, err, "the apiserver took %v", v.value)
						for _, want := range f.want {
							assert.Contains(t, err.Error(), want)
						}
					case byLength:
						require.Error(t, err, "the apiserver took %v", v.value)
						for _, field := range f.fields {
							assert.Contains(t, err.Error(), field+": Too long: may not be more than 64 bytes")
						}
					}
					for _, notWant := range f.notWant {
						assert.NotContains(t, err.Error(), notWant)
					}
				})
			}
		})
	}
}

// Every quantity in every CRD of the chart is bounded, those of Kubernetes' own types
// inside seedscaler's (a gardenlet's pod resources) too, so that no quantity field goes
// without; and a rule that calls CEL's quantity() first lets an exponent beyond the bound
// through, since quantity() runs resource.ParseQuantity in the kube-apiserver.
func TestEveryQuantityOfTheCRDsIsBounded(t *testing.T) {
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(root, "charts", "seedscaler", "files", "*-crds", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	quantities := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		crd := &apiextensionsv1.CustomResourceDefinition{}
		require.NoError(t, yaml.Unmarshal(data, crd), file)
		for _, version := range crd.Spec.Versions {
			require.NotNil(t, version.Schema, "%s %s", crd.Name, version.Name)
			walkSchema(*version.Schema.OpenAPIV3Schema, crd.Name, func(path string, s apiextensionsv1.JSONSchemaProps) {
				for _, r := range s.XValidations {
					if strings.Contains(r.Rule, "quantity(") {
						assert.Contains(t, r.Rule, quantityBound, "%s: a rule calls quantity() on an exponent it does not bound first", path)
					}
				}
				if !s.XIntOrString || !strings.Contains(s.Pattern, "[KMGTPE]i") {
					return
				}
				quantities++
				if assert.NotNil(t, s.MaxLength, path) {
					assert.EqualValues(t, 64, *s.MaxLength, path)
				}
				pattern, err := regexp.Compile(s.Pattern)
				require.NoError(t, err, path)
				for _, ok := range []string{"500", "1.5k", "100Gi", "1e3", "5E-2", "1E"} {
					assert.True(t, pattern.MatchString(ok), "%s: %s", path, ok)
				}
				for _, refused := range []string{"92E3372036854775807", "1E40000000", "1e1000", "1e3.5"} {
					assert.False(t, pattern.MatchString(refused), "%s: %s", path, refused)
				}
			})
		}
	}
	// Seed: 3; ManagedSeed and ManagedSeedSet: 10 each, 2 of them seedscaler's;
	// SeedAutoscaler: 11.
	assert.GreaterOrEqual(t, quantities, 34, "the walk found too few quantities to be looking at them")
}

// walkSchema calls visit for s and every schema under it, with its path.
func walkSchema(s apiextensionsv1.JSONSchemaProps, path string, visit func(path string, s apiextensionsv1.JSONSchemaProps)) {
	visit(path, s)
	for name, p := range s.Properties {
		walkSchema(p, path+"."+name, visit)
	}
	if s.Items != nil && s.Items.Schema != nil {
		walkSchema(*s.Items.Schema, path+"[]", visit)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		walkSchema(*s.AdditionalProperties.Schema, path+"[*]", visit)
	}
}
