package local

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/dev/simulator"
	gardenfw "github.com/seedscaler/seedscaler/test/framework/garden"
	"github.com/seedscaler/seedscaler/test/framework/proc"
)

// A fleet of 10 seeds (1,000 shoots at the peak) fills in 20 s and holds for 40 s at speed
// 120: the steady phase starts at the first sample with every seed ready and 98% of the
// demand bound; peak RSS is the largest VmHWM, steady RSS the median from then on, CPU per
// simulated hour what was used after, over the 80 simulated minutes of 40 s.
func TestSummarizeFleet(t *testing.T) {
	cfg := simulator.FleetConfiguration(10)
	proc := func(rssMiB, peakMiB int64, cpu time.Duration) map[string]procStat {
		return map[string]procStat{"scheduler": {Memory: proc.Memory{RSS: rssMiB << 20, PeakRSS: peakMiB << 20, Anon: (rssMiB - 50) << 20}, CPU: cpu}}
	}
	// The tenants come after the fleet's three simulated hours of waiting: 90 s at 120x.
	start := 90 * time.Second
	samples := []fleetSample{
		{Elapsed: 0, Procs: proc(10, 10, 0), SeedsReady: 10, Bound: 0, APIWrites: 0},
		{Elapsed: start, Procs: proc(50, 50, 0), SeedsReady: 0, Bound: 0, APIWrites: 0},
		{Elapsed: start + 10*time.Second, Procs: proc(90, 120, 5*time.Second), SeedsReady: 5, Bound: 400, APIWrites: 1000},
		{Elapsed: start + 20*time.Second, Procs: proc(80, 120, 8*time.Second), SeedsReady: 10, Bound: 990, APIWrites: 2000},
		{Elapsed: start + 40*time.Second, Procs: proc(70, 120, 10*time.Second), SeedsReady: 10, Bound: 995, APIWrites: 2600},
		{Elapsed: start + 60*time.Second, Procs: proc(75, 120, 12*time.Second), SeedsReady: 10, Bound: 995, APIWrites: 3000},
	}
	res := summarizeFleet(samples, 10, 120, cfg)
	res.Binder = "scheduler"
	assert.True(t, res.Filled)
	assert.Equal(t, start+20*time.Second, res.FillTime, "not before the tenants came, though 0 of 0 shoots are bound at 0 s")
	require.Len(t, res.Rows, 1)
	row := res.Rows[0]
	assert.InDelta(t, 120, row.PeakRSS, 1e-9)
	assert.InDelta(t, 75, row.SteadyRSS, 1e-9, "the median of 80, 70 and 75")
	assert.InDelta(t, 25, row.SteadyAnon, 1e-9, "the median of 30, 20 and 25")
	assert.InDelta(t, 4.0/(40.0/3600*120), row.CPUPerSimHour, 1e-9)
	assert.InDelta(t, 8, row.FillCPU, 1e-9)
	assert.InDelta(t, 995.0/40, res.PeakBindRate, 1e-9, "the first 30 s window from 90 s is to 130 s; to 110 s is too short")
	assert.InDelta(t, 2600.0/40, res.APIWriteRate, 1e-9)
	assert.Equal(t, 995, res.Shoots)
	assert.InDelta(t, 75.0*(1<<20)/995, row.BytesPerShoot, 1e-6)

	var csv bytes.Buffer
	require.NoError(t, res.writeCSV(&csv))
	assert.Equal(t, "part,seeds,shoots,peak_rss_mib,steady_rss_mib,cpu_s_per_sim_hour\nscheduler,10,995,120.0,75.0,3.00\n", csv.String())
	assert.Contains(t, res.Markdown(), "the landscape was full after 1m50s")

	// In a garden gardener-scheduler binds, and the kube-apiserver's writes leave out those of
	// Gardener's kinds, which gardener-apiserver takes.
	garden := res
	garden.Garden, garden.Binder = true, FleetSchedulerGardener
	md := garden.Markdown()
	assert.Contains(t, md, "# Fleet in a Gardener garden: 10 seeds, 995 shoots")
	assert.Contains(t, md, "| gardener-scheduler binds/s (best 30 s of the fill) | 25 |")
	assert.Contains(t, md, "| kube-apiserver writes/s (not those of Gardener's kinds), same 30 s | 65 |")
	assert.Contains(t, res.Markdown(), "| scheduler binds/s (best 30 s of the fill) | 25 |")
	// In a garden whose tenants name seedscaler's scheduler, it binds.
	garden.Binder = "scheduler"
	assert.Contains(t, garden.Markdown(), "| scheduler binds/s (best 30 s of the fill) | 25 |")
	assert.NotContains(t, garden.Markdown(), "gardener-apiserver:", "no counts when its metrics could not be read")
	// What gardener-apiserver counted of the shoots over the run.
	garden.GardenShoots = &gardenfw.ShootTraffic{WatchesCut: 12, Lists: 400, Bindings: 990, BindingConflicts: 40}
	md = garden.Markdown()
	assert.Contains(t, md, "| gardener-apiserver: watches of shoots cut for falling behind, whole run | 12 |")
	assert.Contains(t, md, "| gardener-apiserver: lists of shoots served (pages), whole run | 400 |")
	assert.Contains(t, md, "| gardener-apiserver: bindings accepted / refused with 409 Conflict, whole run | 990 / 40 |")

	// A landscape that never fills: the steady figures are of the last third, and the
	// processes hold the pending shoots too.
	for i := range samples {
		samples[i].SeedsReady = 3
	}
	samples[len(samples)-1].Bound, samples[len(samples)-1].Pending = 600, 400
	res = summarizeFleet(samples, 10, 120, cfg)
	assert.False(t, res.Filled)
	assert.InDelta(t, 75.0*(1<<20)/1000, res.Rows[0].BytesPerShoot, 1e-6)
	assert.Equal(t, start+40*time.Second, res.SteadyFrom)
	assert.True(t, strings.Contains(res.Markdown(), "not full within the run"))
}

func TestAPIServerWrites(t *testing.T) {
	text := `# HELP apiserver_request_total Counter of apiserver requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="201",resource="shoots",verb="POST"} 100
apiserver_request_total{code="200",resource="shoots",verb="PATCH"} 50
apiserver_request_total{code="200",resource="shoots",verb="LIST"} 1000
apiserver_request_total{code="200",resource="leases",verb="PUT"} 7
apiserver_request_total{code="200",resource="shoots",verb="DELETE"} 3
`
	assert.InDelta(t, 160, apiserverWrites(text), 1e-9)
	assert.True(t, math.IsNaN(apiserverWrites("not { metrics")))
}
