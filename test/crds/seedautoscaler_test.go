package crds

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A SeedAutoscaler that names a resource the exporter publishes no usage for would fail to
// fetch its metric for ever and hold every scale-in; the apiserver rejects it instead.
func TestSeedAutoscalerRejectsResourcesWithoutUsage(t *testing.T) {
	ensureNamespace(t, "sa-invalid")
	cases := []struct {
		name   string
		change mutation
		want   string
	}{
		{"a typo of shoots", setMetric("shots", "resource", "name"),
			`spec.metrics[0].resource.name: Unsupported value: "shots": supported values: "shoots"`},
		{"a resource the exporter publishes no usage for", setMetric("persistent-volumes", "resource", "name"),
			`spec.metrics[0].resource.name: Unsupported value: "persistent-volumes": supported values: "shoots"`},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := example(t, "seedautoscaler.yaml")
			obj.SetNamespace("sa-invalid")
			obj.SetName(fmt.Sprintf("invalid-%d", i))
			tc.change(obj.Object)
			err := env.Client.Create(context.Background(), obj, client.FieldValidation("Strict"))
			require.Error(t, err, "the apiserver accepted an invalid object")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
