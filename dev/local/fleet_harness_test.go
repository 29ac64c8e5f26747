//go:build integration && bench

// The fleet benchmark's harness is tested where the benchmark runs, `make bench-fleet` (and
// `make bench`), not in `make test`: it costs minutes and guards a measurement, not the
// product.

package local

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/klog/v2"

	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// The fleet profile at its smallest, ten seeds in one set and 1,000 tenant shoots, through
// the same run `make bench-fleet` makes: the fleet comes up, its tenants are bound, and the
// report has a row for every process with what /proc says of it, and each part's heap.
func TestFleetProfileMeasuresEveryProcess(t *testing.T) {
	dir := t.TempDir()
	binary, err := testenv.BuildSeedscaler(t.TempDir(), testenv.Development)
	require.NoError(t, err)
	var out bytes.Buffer
	err = Run(logr.NewContext(context.Background(), klog.NewKlogr().WithName("fleet")), Options{
		Profile: ProfileFleet, FleetSeeds: 10, Binary: binary,
		// Twice the fleet's speed: the tenants' three simulated hours of waiting are 45 s.
		Speed: 240, Duration: 150 * time.Second, ReportDir: dir, Interval: 2 * time.Second, Out: &out,
	})
	require.NoError(t, err, out.String())
	t.Log(out.String())

	f, err := os.Open(filepath.Join(dir, "fleet.csv"))
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, rows)
	assert.Equal(t, []string{"part", "seeds", "shoots", "peak_rss_mib", "steady_rss_mib", "cpu_s_per_sim_hour"}, rows[0])
	parts := map[string][]string{}
	for _, r := range rows[1:] {
		parts[r[0]] = r
	}
	for _, p := range []string{"scheduler", "seed-controller", "set-controller", "exporter", "adapter", "autoscaler",
		"kube-apiserver", "etcd", "prometheus"} {
		row, ok := parts[p]
		if !assert.True(t, ok, "no row for %s", p) {
			continue
		}
		assert.Equal(t, "10", row[1])
		shoots, err := strconv.Atoi(row[2])
		require.NoError(t, err)
		assert.GreaterOrEqual(t, shoots, 950, "the fleet's 1,000 tenant shoots are bound")
		peak, err := strconv.ParseFloat(row[3], 64)
		require.NoError(t, err)
		steady, err := strconv.ParseFloat(row[4], 64)
		require.NoError(t, err)
		assert.Positive(t, steady, p)
		assert.GreaterOrEqual(t, peak, steady, p)
	}
	md, err := os.ReadFile(filepath.Join(dir, "fleet.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "the landscape was full after", "every seed ready and the demand bound within the run")
	for _, p := range []string{"scheduler", "seed-controller", "set-controller", "exporter", "autoscaler"} {
		info, err := os.Stat(filepath.Join(dir, "heap-"+p+".pb.gz"))
		if assert.NoError(t, err, "the heap profile of %s", p) {
			assert.Positive(t, info.Size())
		}
	}
}
