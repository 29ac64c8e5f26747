package exporter

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With garden_shoot_info off, neither the handler nor a registry serves it, and every
// other family stays: per-seed usage and the unscheduled counts come from the same shoots.
func TestShootInfoOffServesNoShootButEverythingElse(t *testing.T) {
	on := landscape(t)
	onReg := prometheus.NewPedanticRegistry()
	require.NoError(t, onReg.Register(on))
	rec := httptest.NewRecorder()
	on.Handler(onReg).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	withInfo := parse(t, rec.Body.String())
	require.Contains(t, withInfo, "garden_shoot_info")

	off := landscape(t)
	off.SetShootInfo(false)
	assert.Equal(t, 0, testutil.CollectAndCount(off, "garden_shoot_info"), "a registry collects garden_shoot_info")
	offReg := prometheus.NewPedanticRegistry()
	require.NoError(t, offReg.Register(off))
	rec = httptest.NewRecorder()
	off.Handler(offReg).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	withoutInfo := parse(t, rec.Body.String())
	assert.NotContains(t, withoutInfo, "garden_shoot_info")
	assert.NotContains(t, rec.Body.String(), `name="pending-1"`, "a shoot's name is served")

	delete(withInfo, "garden_shoot_info")
	// Every collect counts the landscape's bad data again, and off was collected twice.
	delete(withInfo, "garden_exporter_scrape_errors_total")
	delete(withoutInfo, "garden_exporter_scrape_errors_total")
	assert.Equal(t, withInfo, withoutInfo, "turning shoot info off changed another family")
	assert.Contains(t, withoutInfo, "garden_shoots_unscheduled")
	assert.Contains(t, withoutInfo, "garden_seed_usage")
}
