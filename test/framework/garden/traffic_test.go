package garden

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Only Gardener's shoots count: the watches cut, every list page, and the bindings by their
// outcome; other resources, groups and verbs do not.
func TestParseShootTraffic(t *testing.T) {
	text := `# TYPE apiserver_terminated_watchers_total counter
apiserver_terminated_watchers_total{group="core.gardener.cloud",resource="shoots"} 499
apiserver_terminated_watchers_total{group="core.gardener.cloud",resource="seeds"} 7
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",group="core.gardener.cloud",resource="shoots",scope="cluster",subresource="",verb="LIST"} 7249
apiserver_request_total{code="200",group="core.gardener.cloud",resource="shoots",scope="namespace",subresource="",verb="LIST"} 1026
apiserver_request_total{code="200",group="core.gardener.cloud",resource="shoots",scope="cluster",subresource="",verb="WATCH"} 515
apiserver_request_total{code="200",group="core.gardener.cloud",resource="shoots",scope="resource",subresource="",verb="PATCH"} 24209
apiserver_request_total{code="200",group="core.gardener.cloud",resource="shoots",scope="resource",subresource="binding",verb="PUT"} 8244
apiserver_request_total{code="409",group="core.gardener.cloud",resource="shoots",scope="resource",subresource="binding",verb="PUT"} 1166
apiserver_request_total{code="422",group="core.gardener.cloud",resource="shoots",scope="resource",subresource="binding",verb="PUT"} 3
apiserver_request_total{code="200",group="core.gardener.cloud",resource="seeds",scope="cluster",subresource="",verb="LIST"} 40
apiserver_request_total{code="200",group="other.example.com",resource="shoots",scope="cluster",subresource="",verb="LIST"} 40
`
	got, err := ParseShootTraffic(text)
	require.NoError(t, err)
	assert.Equal(t, ShootTraffic{WatchesCut: 499, Lists: 8275, Bindings: 8244, BindingConflicts: 1166}, got)

	_, err = ParseShootTraffic("not { metrics")
	assert.ErrorContains(t, err, "parsing gardener-apiserver's metrics")
}
