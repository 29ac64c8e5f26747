package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"image/color"

	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"k8s.io/client-go/kubernetes"

	"github.com/seedscaler/seedscaler/dev/simulator"
	"github.com/seedscaler/seedscaler/test/framework/garden"
	"github.com/seedscaler/seedscaler/test/framework/stats"
)

// fleetInfrastructure are the processes a fleet run measures besides the parts: what the
// stack runs on, and in a garden Gardener's own processes.
func fleetInfrastructure(gardener bool) []string {
	names := []string{"kube-apiserver", "etcd", "prometheus"}
	if gardener {
		names = append(names, gardenerProcesses...)
	}
	return names
}

// gardenerProcesses are the processes of a garden (test/framework/garden) beside the
// kube-apiserver and etcd it shares.
var gardenerProcesses = []string{"gardener-apiserver", "gardener-controller-manager", "gardener-scheduler"}

// fleetPartOrder is the order of the report's rows.
var fleetPartOrder = append([]string{"scheduler", "seed-controller", "set-controller", "exporter", "adapter", "autoscaler",
	"simulator", "kube-apiserver", "etcd", "prometheus"}, gardenerProcesses...)

// fleetSample is one measurement of a fleet run.
type fleetSample struct {
	Elapsed time.Duration
	// Procs by part name.
	Procs map[string]procStat
	// Bound is Σ garden_seed_usage over the fleet's seeds (the tenants' shoots), Pending Σ
	// garden_shoots_unscheduled, SeedsReady the fleet's seeds whose GardenletReady is True:
	// what the exporter last showed.
	Bound, Pending, SeedsReady int
	// APIWrites is the kube-apiserver's count of create, update, patch and delete requests.
	APIWrites float64
}

// fleetMeter samples a fleet run.
type fleetMeter struct {
	st    *Stack
	opts  Options
	prom  promv1.API
	kube  kubernetes.Interface
	pids  map[string]int
	proc  string // /proc
	start time.Time
}

func newFleetMeter(st *Stack, opts Options) (*fleetMeter, error) {
	cl, err := promapi.NewClient(promapi.Config{Address: st.Prometheus.URL})
	if err != nil {
		return nil, err
	}
	kube, err := kubernetes.NewForConfig(st.Env.Config)
	if err != nil {
		return nil, err
	}
	m := &fleetMeter{st: st, opts: opts, prom: promv1.NewAPI(cl), kube: kube, pids: map[string]int{}, proc: "/proc", start: time.Now()}
	infrastructure := fleetInfrastructure(opts.Gardener)
	found, err := descendantsNamed(m.proc, os.Getpid(), infrastructure...)
	if err != nil {
		return nil, err
	}
	for _, n := range infrastructure {
		if found[n] == 0 {
			return nil, fmt.Errorf("found no %s process below this one in %s", n, m.proc)
		}
		m.pids[n] = found[n]
	}
	return m, nil
}

// sample measures every process and the landscape once.
func (m *fleetMeter) sample(ctx context.Context) fleetSample {
	s := fleetSample{Elapsed: time.Since(m.start), Procs: map[string]procStat{}}
	for name, p := range m.st.Parts {
		if ps, err := readProcStat(m.proc, p.PID()); err == nil {
			s.Procs[name] = ps
		}
	}
	for name, pid := range m.pids {
		if ps, err := readProcStat(m.proc, pid); err == nil {
			s.Procs[name] = ps
		}
	}
	// The fleet's seeds are those with allocatable shoots; the root seeds hold the seeds'
	// own shoots and have none.
	s.Bound = count(m.scalar(ctx, `sum(garden_seed_usage{resource="shoots"} and on (name) garden_seed_allocatable{resource="shoots"})`))
	s.Pending = count(m.scalar(ctx, `sum(garden_shoots_unscheduled)`))
	s.SeedsReady = count(m.scalar(ctx, `count(garden_seed_condition{condition="GardenletReady",status="True"} == 1 and on (name) garden_seed_allocatable{resource="shoots"})`))
	s.APIWrites = m.apiserverWrites(ctx)
	return s
}

// count is a scalar that counts something; 0 when the query yielded none (NaN), as before
// the exporter's first scrape.
func count(v float64) int {
	if math.IsNaN(v) {
		return 0
	}
	return int(v)
}

// scalar is the value of a query that yields one number; NaN when it yields none.
func (m *fleetMeter) scalar(ctx context.Context, query string) float64 {
	v, _, _, err := m.prom.Query(ctx, query, time.Now())
	if err != nil {
		return math.NaN()
	}
	if vec, ok := v.(model.Vector); ok && len(vec) > 0 {
		return float64(vec[0].Value)
	}
	return math.NaN()
}

// vector is a query's result as label values (of by) to values.
func (m *fleetMeter) vector(ctx context.Context, query string, by ...model.LabelName) map[string]float64 {
	v, _, _, err := m.prom.Query(ctx, query, time.Now())
	out := map[string]float64{}
	if err != nil {
		return out
	}
	vec, _ := v.(model.Vector)
	for _, smp := range vec {
		parts := make([]string, len(by))
		for i, l := range by {
			parts[i] = string(smp.Metric[l])
		}
		out[strings.Join(parts, " ")] = float64(smp.Value)
	}
	return out
}

// apiserverWrites reads the kube-apiserver's own /metrics: Σ apiserver_request_total of the
// verbs that write.
func (m *fleetMeter) apiserverWrites(ctx context.Context) float64 {
	raw, err := m.kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return math.NaN()
	}
	return apiserverWrites(string(raw))
}

// apiserverWrites is Σ apiserver_request_total of the verbs that write, from a
// kube-apiserver's /metrics text; NaN when the text does not parse.
func apiserverWrites(text string) float64 {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		return math.NaN()
	}
	total := 0.0
	for _, mt := range families["apiserver_request_total"].GetMetric() {
		for _, l := range mt.GetLabel() {
			if l.GetName() == "verb" && slices.Contains([]string{"POST", "PUT", "PATCH", "DELETE", "APPLY"}, l.GetValue()) {
				total += mt.GetCounter().GetValue()
			}
		}
	}
	return total
}

// timeAdapterLists lists garden_seed_usage through the aggregator n times, for every seed and
// for one set's seeds (what an autoscaler asks), and returns the latencies of each.
func (m *fleetMeter) timeAdapterLists(ctx context.Context, n int, set string) (all, one []time.Duration) {
	base := "/apis/custom.metrics.k8s.io/v1beta2/seeds.core.gardener.cloud/*/garden_seed_usage"
	metric := "metricLabelSelector=" + url.QueryEscape("resource=shoots")
	for range n {
		for _, q := range []struct {
			path string
			out  *[]time.Duration
		}{
			{base + "?" + metric, &all},
			{base + "?" + metric + "&labelSelector=" + url.QueryEscape("seedscaler.io/set="+set), &one},
		} {
			u, _ := url.Parse(q.path)
			req := m.kube.CoreV1().RESTClient().Get().AbsPath(u.Path)
			for k, vs := range u.Query() {
				for _, v := range vs {
					req = req.Param(k, v)
				}
			}
			start := time.Now()
			if _, err := req.DoRaw(ctx); err == nil {
				*q.out = append(*q.out, time.Since(start))
			}
		}
	}
	slices.Sort(all)
	slices.Sort(one)
	return all, one
}

// fleetRow is a process's line of the report.
type fleetRow struct {
	Part               string
	PeakRSS, SteadyRSS float64 // MiB
	// SteadyAnon is the median RssAnon from the steady sample on, MiB: the resident memory
	// without the mapped binary, which the parts share.
	SteadyAnon        float64
	CPUPerSimHour     float64 // CPU seconds per simulated hour, steady
	FillCPU           float64 // CPU seconds until the landscape was full
	RequestsPerSecond map[string]float64
	// BytesPerShoot is the steady RSS over the tenant shoots at the end, bound and pending.
	BytesPerShoot float64
	SteadySamples int
}

// fleetResult is what a fleet run measured.
type fleetResult struct {
	Seeds, Shoots int
	// Garden is a run in a Gardener garden, whose gardener-apiserver serves the shoots.
	Garden bool
	// Binder is who bound the tenants: "scheduler" (seedscaler's) or "gardener-scheduler".
	Binder          string
	Speed           float64
	Wall            time.Duration
	FillTime        time.Duration // until the landscape was full; Wall when it never was
	Filled          bool
	SteadyFrom      time.Duration
	Rows            []fleetRow
	PeakBindRate    float64 // shoots bound per second, best 30 s of the fill
	APIWriteRate    float64 // the kube-apiserver's writes per second in the same 30 s
	ExporterScrape  [2]float64
	AdapterAll      [2]time.Duration // p50, p99
	AdapterOneSet   [2]time.Duration
	AutoscalerEval  [2]float64
	SeriesByJob     map[string]float64
	RecordedSeries  float64
	RequestsByVerb  map[string]float64 // "job verb" -> requests per second, steady
	SeedsReadyAtEnd int
	PendingAtEnd    int
	Samples         []fleetSample
	// GardenShoots is what gardener-apiserver counted of the shoots, in a garden; nil
	// outside one or when its metrics could not be read.
	GardenShoots *garden.ShootTraffic
}

// fillDone is the first sample at which the landscape holds its demand: the tenants have
// come, at least 98% of the profile's demand at that moment is bound, and every seed of the
// fleet is ready.
func fillDone(samples []fleetSample, seeds int, speed float64, cfg *simulator.Configuration) (int, bool) {
	for i, s := range samples {
		want := simulator.Total(simulator.Desired(&cfg.Demand, time.Duration(float64(s.Elapsed)*speed)))
		if want > 0 && s.SeedsReady >= seeds && float64(s.Bound) >= 0.98*float64(want) {
			return i, true
		}
	}
	return len(samples) * 2 / 3, false
}

// summarizeFleet turns the samples into the report's rows: peak RSS is the largest VmHWM,
// steady RSS the median RSS from the steady sample on, CPU per simulated hour the CPU
// used from then to the end over the simulated time between.
func summarizeFleet(samples []fleetSample, seeds int, speed float64, cfg *simulator.Configuration) fleetResult {
	res := fleetResult{Seeds: seeds, Speed: speed, Samples: samples}
	if len(samples) == 0 {
		return res
	}
	last := samples[len(samples)-1]
	res.Wall = last.Elapsed
	steady, filled := fillDone(samples, seeds, speed, cfg)
	steady = min(steady, len(samples)-1)
	res.Filled, res.SteadyFrom = filled, samples[steady].Elapsed
	res.FillTime = res.Wall
	if filled {
		res.FillTime = samples[steady].Elapsed
	}
	res.Shoots, res.SeedsReadyAtEnd, res.PendingAtEnd = last.Bound, last.SeedsReady, last.Pending
	simHours := (last.Elapsed - samples[steady].Elapsed).Hours() * speed
	for _, part := range fleetPartOrder {
		end, ok := last.Procs[part]
		if !ok {
			continue
		}
		row := fleetRow{Part: part}
		var rss, anon []float64
		for i, s := range samples {
			p, ok := s.Procs[part]
			if !ok {
				continue
			}
			row.PeakRSS = max(row.PeakRSS, mib(p.PeakRSS), mib(p.RSS))
			if i >= steady {
				rss = append(rss, mib(p.RSS))
				anon = append(anon, mib(p.Anon))
			}
		}
		sort.Float64s(rss)
		sort.Float64s(anon)
		if len(rss) > 0 {
			row.SteadyRSS, row.SteadyAnon = rss[len(rss)/2], anon[len(anon)/2]
		}
		row.SteadySamples = len(rss)
		if from, ok := samples[steady].Procs[part]; ok {
			row.FillCPU = from.CPU.Seconds()
			if simHours > 0 {
				row.CPUPerSimHour = (end.CPU - from.CPU).Seconds() / simHours
			}
		}
		// Every process holds the pending shoots as well as the bound: on a landscape that
		// never filled, the API servers store the whole demand.
		if stored := last.Bound + last.Pending; stored > 0 {
			row.BytesPerShoot = row.SteadyRSS * (1 << 20) / float64(stored)
		}
		res.Rows = append(res.Rows, row)
	}
	// The best 30 s of binding that start during the fill, and the apiserver's writes meanwhile.
	for i := range samples[:steady+1] {
		for j := i + 1; j < len(samples); j++ {
			dt := (samples[j].Elapsed - samples[i].Elapsed).Seconds()
			if dt < 30 {
				continue
			}
			if rate := float64(samples[j].Bound-samples[i].Bound) / dt; rate > res.PeakBindRate {
				res.PeakBindRate = rate
				res.APIWriteRate = (samples[j].APIWrites - samples[i].APIWrites) / dt
			}
			break
		}
	}
	return res
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// query fills what Prometheus and the aggregator tell of the steady phase.
func (m *fleetMeter) query(ctx context.Context, res *fleetResult, set string) {
	window := fmt.Sprintf("%ds", max(int((res.Wall-res.SteadyFrom).Seconds()), 30))
	res.ExporterScrape = [2]float64{
		m.scalar(ctx, `avg_over_time(scrape_duration_seconds{job="seedscaler-exporter"}[`+window+`])`),
		m.scalar(ctx, `max_over_time(scrape_duration_seconds{job="seedscaler-exporter"}[`+window+`])`),
	}
	for i, q := range []float64{0.5, 0.99} {
		res.AutoscalerEval[i] = m.scalar(ctx, fmt.Sprintf(
			`histogram_quantile(%g, sum by (le) (rate(seedscaler_autoscaler_reconcile_duration_seconds_bucket[%s])))`, q, window))
	}
	res.RequestsByVerb = m.vector(ctx, `sum by (job, method) (rate(rest_client_requests_total[`+window+`]))`, "job", "method")
	res.SeriesByJob = m.vector(ctx, `count by (job) ({job=~".+"})`, "job")
	res.RecordedSeries = m.scalar(ctx, `count({__name__=~".+:.+"})`)
	all, one := m.timeAdapterLists(ctx, 25, set)
	res.AdapterAll = [2]time.Duration{stats.Percentile(all, 0.5), stats.Percentile(all, 0.99)}
	res.AdapterOneSet = [2]time.Duration{stats.Percentile(one, 0.5), stats.Percentile(one, 0.99)}
}

// runFleet runs the stack on the fleet profile for opts.Duration and writes the report.
func runFleet(ctx context.Context, st *Stack, opts Options) error {
	cfg := simulator.FleetConfiguration(opts.FleetSeeds)
	m, err := newFleetMeter(st, opts)
	if err != nil {
		return err
	}
	_, _ = fmt.Fprintf(opts.Out, "fleet: %d seeds in %d ManagedSeedSets, %d tenant shoots at the peak, speed %gx, for %s\n",
		opts.FleetSeeds, len(simulator.FleetSets(opts.FleetSeeds)), opts.FleetSeeds*simulator.FleetShootsPerSeed, opts.Speed, opts.Duration)
	_, _ = fmt.Fprintf(opts.Out, "%8s %8s %8s %11s  %s\n", "TIME", "BOUND", "PENDING", "SEEDS READY", "RSS MiB (largest three)")
	var samples []fleetSample
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	deadline := time.After(opts.Duration)
	printed := time.Time{}
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-deadline:
			break loop
		case <-tick.C:
			for name, p := range st.Parts {
				if !p.Running() {
					return fmt.Errorf("part %s exited; the end of its log (%s):\n%s", name, p.LogPath, p.Tail(2000))
				}
			}
			s := m.sample(ctx)
			samples = append(samples, s)
			if time.Since(printed) >= 15*time.Second {
				printed = time.Now()
				_, _ = fmt.Fprintf(opts.Out, "%8s %8d %8d %5d/%-5d  %s\n", s.Elapsed.Truncate(time.Second), s.Bound, s.Pending,
					s.SeedsReady, opts.FleetSeeds, largest(s.Procs, 3))
			}
		}
	}
	res := summarizeFleet(samples, opts.FleetSeeds, opts.Speed, cfg)
	res.Garden, res.Binder = opts.Gardener, "scheduler"
	if opts.Gardener && opts.FleetScheduler != FleetSchedulerSeedscaler {
		res.Binder = FleetSchedulerGardener
	}
	m.query(context.WithoutCancel(ctx), &res, simulator.FleetSets(opts.FleetSeeds)[0].Name)
	if st.garden != nil {
		if traffic, err := st.garden.ShootTraffic(context.WithoutCancel(ctx)); err != nil {
			st.log.Error(err, "Reading gardener-apiserver's metrics; the report goes without them")
		} else {
			res.GardenShoots = &traffic
		}
	}
	if err := writeFleetReport(opts.ReportDir, res); err != nil {
		return fmt.Errorf("writing the report to %s: %w", opts.ReportDir, err)
	}
	st.saveHeapProfiles(context.WithoutCancel(ctx), m.kube, opts.ReportDir)
	_, _ = fmt.Fprintf(opts.Out, "\n%s\nreport: %s\n", res.Markdown(), opts.ReportDir)
	return nil
}

// largest renders the n processes with the most resident memory.
func largest(procs map[string]procStat, n int) string {
	names := make([]string, 0, len(procs))
	for name := range procs {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return procs[names[i]].RSS > procs[names[j]].RSS })
	var parts []string
	for _, name := range names[:min(n, len(names))] {
		parts = append(parts, fmt.Sprintf("%s %.0f", name, mib(procs[name].RSS)))
	}
	return strings.Join(parts, ", ")
}

// fleetCSVHeader names the columns of fleet.csv.
var fleetCSVHeader = []string{"part", "seeds", "shoots", "peak_rss_mib", "steady_rss_mib", "cpu_s_per_sim_hour"}

func (r fleetResult) writeCSV(w io.Writer) error {
	var b strings.Builder
	b.WriteString(strings.Join(fleetCSVHeader, ",") + "\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "%s,%d,%d,%.1f,%.1f,%.2f\n", row.Part, r.Seeds, r.Shoots, row.PeakRSS, row.SteadyRSS, row.CPUPerSimHour)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Markdown renders the report.
func (r fleetResult) Markdown() string {
	var b strings.Builder
	where := ""
	if r.Garden {
		where = " in a Gardener garden"
	}
	fmt.Fprintf(&b, "# Fleet%s: %d seeds, %d shoots\n\n", where, r.Seeds, r.Shoots)
	fill := fmt.Sprintf("full after %s", r.FillTime.Truncate(time.Second))
	if !r.Filled {
		fill = fmt.Sprintf("not full within the run (%d seeds ready, %d shoots pending at the end); steady figures are of the last third", r.SeedsReadyAtEnd, r.PendingAtEnd)
	}
	fmt.Fprintf(&b, "Run: %s of wall time at speed %gx (%.1f simulated hours); the landscape was %s.\n\n",
		r.Wall.Truncate(time.Second), r.Speed, r.Wall.Hours()*r.Speed, fill)
	b.WriteString("| process | peak RSS MiB | steady RSS MiB | of it anonymous MiB | bytes per shoot (steady) | CPU s per simulated hour (steady) | CPU s until full |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "| %s | %.0f | %.0f | %.0f | %.0f | %.2f | %.0f |\n", row.Part, row.PeakRSS, row.SteadyRSS, row.SteadyAnon, row.BytesPerShoot, row.CPUPerSimHour, row.FillCPU)
	}
	b.WriteString("\nAnonymous memory (RssAnon) is resident memory without mapped files: the parts run one binary, whose pages they share.\n")
	b.WriteString("\n| hot path | figure |\n| --- | --- |\n")
	writes := "kube-apiserver writes/s, all clients, same 30 s"
	if r.Garden {
		// gardener-apiserver takes the writes of Gardener's kinds; the kube-apiserver
		// counts only its own.
		writes = "kube-apiserver writes/s (not those of Gardener's kinds), same 30 s"
	}
	fmt.Fprintf(&b, "| %s binds/s (best 30 s of the fill) | %.0f |\n", r.Binder, r.PeakBindRate)
	fmt.Fprintf(&b, "| %s | %.0f |\n", writes, r.APIWriteRate)
	fmt.Fprintf(&b, "| exporter scrape, mean / max | %.3f s / %.3f s |\n", r.ExporterScrape[0], r.ExporterScrape[1])
	fmt.Fprintf(&b, "| adapter list of every seed through the aggregator, p50 / p99 | %s / %s |\n", r.AdapterAll[0].Round(time.Millisecond), r.AdapterAll[1].Round(time.Millisecond))
	fmt.Fprintf(&b, "| adapter list of one set's seeds (an autoscaler's read), p50 / p99 | %s / %s |\n", r.AdapterOneSet[0].Round(time.Millisecond), r.AdapterOneSet[1].Round(time.Millisecond))
	fmt.Fprintf(&b, "| autoscaler evaluation, p50 / p99 | %.3f s / %.3f s |\n", r.AutoscalerEval[0], r.AutoscalerEval[1])
	if g := r.GardenShoots; g != nil {
		fmt.Fprintf(&b, "| gardener-apiserver: watches of shoots cut for falling behind, whole run | %.0f |\n", g.WatchesCut)
		fmt.Fprintf(&b, "| gardener-apiserver: lists of shoots served (pages), whole run | %.0f |\n", g.Lists)
		fmt.Fprintf(&b, "| gardener-apiserver: bindings accepted / refused with 409 Conflict, whole run | %.0f / %.0f |\n", g.Bindings, g.BindingConflicts)
	}
	b.WriteString("\n| Prometheus job | series |\n| --- | ---: |\n")
	for _, j := range slices.Sorted(maps.Keys(r.SeriesByJob)) {
		fmt.Fprintf(&b, "| %s | %.0f |\n", j, r.SeriesByJob[j])
	}
	fmt.Fprintf(&b, "| recording rules | %.0f |\n", r.RecordedSeries)
	if len(r.RequestsByVerb) > 0 {
		b.WriteString("\n| part | verb | requests/s (steady) |\n| --- | --- | ---: |\n")
		for _, k := range slices.Sorted(maps.Keys(r.RequestsByVerb)) {
			job, verb, _ := strings.Cut(k, " ")
			fmt.Fprintf(&b, "| %s | %s | %.2f |\n", strings.TrimPrefix(job, "seedscaler-"), verb, r.RequestsByVerb[k])
		}
	}
	b.WriteString("\nFiles: `fleet.csv` (one row per process), `samples.csv` (every sample), `fleet.png` (memory and shoots over time), `heap-<part>.pb.gz` (each part's heap at the end, for `go tool pprof`).\n")
	return b.String()
}

func writeFleetReport(dir string, r fleetResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name string, fn func(io.Writer) error) error {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		return errors.Join(fn(f), f.Close())
	}
	return errors.Join(
		write("fleet.csv", r.writeCSV),
		write("samples.csv", r.writeSamples),
		write("fleet.md", func(w io.Writer) error { _, err := io.WriteString(w, r.Markdown()); return err }),
		writeFleetPlot(filepath.Join(dir, "fleet.png"), r),
	)
}

func (r fleetResult) writeSamples(w io.Writer) error {
	var b strings.Builder
	b.WriteString("elapsed_seconds,bound,pending,seeds_ready,apiserver_writes,part,rss_mib,cpu_seconds,anon_mib\n")
	for _, s := range r.Samples {
		for _, part := range fleetPartOrder {
			if p, ok := s.Procs[part]; ok {
				fmt.Fprintf(&b, "%.0f,%d,%d,%d,%.0f,%s,%.1f,%.2f,%.1f\n", s.Elapsed.Seconds(), s.Bound, s.Pending, s.SeedsReady, s.APIWrites, part, mib(p.RSS), p.CPU.Seconds(), mib(p.Anon))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFleetPlot draws each process's resident memory above the shoots bound and pending.
func writeFleetPlot(path string, r fleetResult) error {
	memory := plot.New()
	memory.Title.Text = fmt.Sprintf("Resident memory, %d seeds", r.Seeds)
	memory.X.Label.Text = "seconds"
	memory.Y.Label.Text = "MiB"
	palette := plotutil.SoftColors
	var lines []line
	for i, part := range fleetPartOrder {
		var xys plotter.XYs
		for _, s := range r.Samples {
			if p, ok := s.Procs[part]; ok {
				xys = append(xys, plotter.XY{X: s.Elapsed.Seconds(), Y: mib(p.RSS)})
			}
		}
		if len(xys) > 0 {
			lines = append(lines, line{part, xys, palette[i%len(palette)]})
		}
	}
	if err := addLines(memory, lines...); err != nil {
		return err
	}
	shoots := plot.New()
	shoots.Title.Text = "Tenant shoots"
	shoots.X.Label.Text = "seconds"
	shoots.Y.Label.Text = "shoots"
	series := func(f func(fleetSample) float64) plotter.XYs {
		xys := make(plotter.XYs, len(r.Samples))
		for i, s := range r.Samples {
			xys[i].X, xys[i].Y = s.Elapsed.Seconds(), f(s)
		}
		return xys
	}
	if err := addLines(shoots,
		line{"bound", series(func(s fleetSample) float64 { return float64(s.Bound) }), color.RGBA{B: 200, A: 255}},
		line{"pending", series(func(s fleetSample) float64 { return float64(s.Pending) }), color.RGBA{R: 200, A: 255}},
	); err != nil {
		return err
	}
	return writeTiles(path, memory, shoots)
}

// saveHeapProfiles keeps each part's heap profile as heap-<part>.pb.gz in dir, and the
// kube-apiserver's as heap-kube-apiserver.pb.gz, for `go tool pprof`: where the memory of
// the report goes. A process without one is skipped.
func (st *Stack) saveHeapProfiles(ctx context.Context, kube kubernetes.Interface, dir string) {
	if body, err := kube.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/heap").DoRaw(ctx); err == nil {
		_ = os.WriteFile(filepath.Join(dir, "heap-kube-apiserver.pb.gz"), body, 0o644)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	for part, addr := range st.metricsAddrs {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/debug/pprof/heap", nil)
		if err != nil {
			continue
		}
		resp, err := client.Do(req)
		if err != nil {
			st.log.Error(err, "Reading a heap profile", "part", part)
			continue
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, "heap-"+part+".pb.gz"), body, 0o644); err != nil {
			st.log.Error(err, "Writing a heap profile", "part", part)
		}
	}
}
