//go:build integration

package adapter

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
)

// The schemas of the lists each metrics API answers, by the names the aggregated specs give
// them, and the group version that serves each.
var servedLists = []struct {
	groupVersion, definition, kind string
}{
	{"custom.metrics.k8s.io/v1beta2", "io.k8s.metrics.pkg.apis.custom_metrics.v1beta2.MetricValueList", "MetricValueList"},
	{"custom.metrics.k8s.io/v1beta1", "io.k8s.metrics.pkg.apis.custom_metrics.v1beta1.MetricValueList", "MetricValueList"},
	{"external.metrics.k8s.io/v1beta1", "io.k8s.metrics.pkg.apis.external_metrics.v1beta1.ExternalMetricValueList", "ExternalMetricValueList"},
}

// openAPIv2 is the part of an OpenAPI v2 document the tests read.
type openAPIv2 struct {
	Paths       map[string]json.RawMessage `json:"paths"`
	Definitions map[string]json.RawMessage `json:"definitions"`
}

// openAPIv3 is the part of an OpenAPI v3 document of one group version the tests read.
type openAPIv3 struct {
	Paths      map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas map[string]struct {
			GroupVersionKinds []struct {
				Group, Version, Kind string
			} `json:"x-kubernetes-group-version-kind"`
		} `json:"schemas"`
	} `json:"components"`
}

// The adapter serves OpenAPI v2 and v3 for its three group versions, and the kube-apiserver
// merges them into its own: without them its aggregator logs a failed download of each
// APIService every minute or two, and kubectl explain knows nothing of the metrics types.
func TestOpenAPIIsServedAndAggregated(t *testing.T) {
	l := startLandscape(t, "")
	frontProxy, err := env.FrontProxyCA.NewClientCert("front-proxy-client")
	require.NoError(t, err)
	adapter := l.httpClient(t, frontProxy)
	// As the aggregator downloads it.
	getAdapter := func(path string) string {
		return l.get(t, adapter, l.adapterURL+path, "system:aggregator", "system:masters")
	}

	// Straight from the adapter: v2, every group version's paths and lists.
	var v2 openAPIv2
	require.NoError(t, json.Unmarshal([]byte(getAdapter("/openapi/v2")), &v2))
	for _, served := range servedLists {
		assert.True(t, hasPathUnder(v2.Paths, "/apis/"+served.groupVersion+"/"), "/openapi/v2 has no path under /apis/%s/", served.groupVersion)
		assert.Contains(t, v2.Definitions, served.definition)
	}

	// v3: a document per group version, listed in /openapi/v3.
	var v3Discovery struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal([]byte(getAdapter("/openapi/v3")), &v3Discovery))
	for _, served := range servedLists {
		listed, ok := v3Discovery.Paths["apis/"+served.groupVersion]
		if !assert.True(t, ok, "/openapi/v3 does not list apis/%s", served.groupVersion) {
			continue
		}
		var v3 openAPIv3
		require.NoError(t, json.Unmarshal([]byte(getAdapter(listed.ServerRelativeURL)), &v3))
		assert.True(t, hasPathUnder(v3.Paths, "/apis/"+served.groupVersion+"/"), "%s has no path under /apis/%s/", listed.ServerRelativeURL, served.groupVersion)
		assert.Contains(t, v3.Components.Schemas, served.definition)
	}

	// Through the kube-apiserver, as kubectl reads them: the aggregator merged the adapter's
	// definitions into /openapi/v2 (in protobuf, as kubectl asks) and lists each group
	// version in /openapi/v3, with the kind kubectl explain looks the schema up by.
	disc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	require.NoError(t, err)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		doc, err := disc.OpenAPISchema()
		if !assert.NoError(c, err) {
			return
		}
		definitions := map[string]bool{}
		for _, named := range doc.GetDefinitions().GetAdditionalProperties() {
			definitions[named.GetName()] = true
		}
		for _, served := range servedLists {
			assert.True(c, definitions[served.definition], "the aggregated /openapi/v2 has no %s", served.definition)
		}
	}, 30*time.Second, 250*time.Millisecond)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		paths, err := disc.OpenAPIV3().Paths()
		if !assert.NoError(c, err) {
			return
		}
		for _, served := range servedLists {
			gv, ok := paths["apis/"+served.groupVersion]
			if !assert.True(c, ok, "the aggregated /openapi/v3 does not list apis/%s", served.groupVersion) {
				continue
			}
			data, err := gv.Schema(runtime.ContentTypeJSON)
			if !assert.NoError(c, err) {
				continue
			}
			var v3 openAPIv3
			if !assert.NoError(c, json.Unmarshal(data, &v3)) {
				continue
			}
			schema, ok := v3.Components.Schemas[served.definition]
			if !assert.True(c, ok, "the aggregated apis/%s has no %s", served.groupVersion, served.definition) {
				continue
			}
			group, version, _ := strings.Cut(served.groupVersion, "/")
			assert.Contains(c, schema.GroupVersionKinds, struct{ Group, Version, Kind string }{group, version, served.kind})
		}
	}, 30*time.Second, 250*time.Millisecond)
}

// hasPathUnder tells whether an OpenAPI document has a path starting with prefix.
func hasPathUnder(paths map[string]json.RawMessage, prefix string) bool {
	for path := range paths {
		if strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return false
}
