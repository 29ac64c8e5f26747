package aggregation

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHasService(t *testing.T) {
	cases := []struct {
		name string
		spec map[string]any
		want bool
	}{
		{"gardener-apiserver's APIService names its service", map[string]any{
			"group": "core.gardener.cloud", "version": "v1beta1",
			"service": map[string]any{"namespace": "garden", "name": "gardener-apiserver", "port": int64(443)},
		}, true},
		{"the local APIService of a CRD group has none", map[string]any{"group": "core.gardener.cloud", "version": "v1beta1"}, false},
		{"a null service is none", map[string]any{"group": "core.gardener.cloud", "version": "v1beta1", "service": nil}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			apiService := NewAPIService("v1beta1.core.gardener.cloud")
			apiService.Object["spec"] = tc.spec
			assert.Equal(t, tc.want, hasService(apiService))
		})
	}
}
