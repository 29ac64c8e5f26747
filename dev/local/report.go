package local

import (
	"encoding/csv"
	"errors"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/seedscaler/seedscaler/autoscaler/forecast"
)

// What became of the forecast (status.scaleAhead.reason) when it raised or held replicas.
const (
	aheadScaledOut   = string(forecast.ReasonScaledOutAhead)
	aheadHeldScaleIn = string(forecast.ReasonHeldScaleIn)
)

// timelineHeader names the columns of timeline.csv.
var timelineHeader = []string{"elapsed_seconds", "demand", "bound", "pending", "seeds", "seeds_ready",
	"allocatable", "usage", "utilization", "target_utilization", "replicas", "desired_replicas", "overcommitted",
	"forecast_replicas", "ahead", "scaled_out_ahead"}

// writeTimeline writes the samples as CSV.
func writeTimeline(w io.Writer, samples []Sample) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(timelineHeader); err != nil {
		return err
	}
	for _, s := range samples {
		row := []string{
			strconv.FormatFloat(s.Elapsed.Seconds(), 'f', 1, 64),
			strconv.Itoa(s.Demand), strconv.Itoa(s.Bound), strconv.Itoa(s.Pending),
			strconv.Itoa(s.Seeds), strconv.Itoa(s.SeedsReady),
			strconv.FormatInt(s.Allocatable, 10), strconv.FormatInt(s.Usage, 10),
			strconv.FormatFloat(s.Utilization(), 'f', 4, 64),
			strconv.Itoa(int(s.TargetUtilization)),
			strconv.Itoa(int(s.Replicas)), strconv.Itoa(int(s.DesiredReplicas)),
			strconv.Itoa(s.Overcommitted),
			strconv.Itoa(int(s.ForecastReplicas)), s.Ahead, strconv.Itoa(s.ScaledOutAhead),
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Summary holds the key figures of a run.
type Summary struct {
	Duration          time.Duration
	PeakDemand        int
	PeakUtilization   float64
	TargetUtilization int32
	MaxReplicas       int32
	MinReplicas       int32
	ScaleEvents       []scaleEvent
	Waits             []time.Duration
	MaxOvercommitted  int
	PendingAtEnd      int
	// ScaleAhead tells whether the SeedAutoscaler scaled ahead (any sample with a forecast
	// reason); ScaledOutAhead counts the scale-outs its forecast drove, AheadSamples the
	// samples in which the forecast raised or held the replicas (ScaledOutAhead or
	// HeldScaleIn), and PeakForecastReplicas the most replicas it asked for.
	ScaleAhead           bool
	ScaledOutAhead       int
	AheadSamples         int
	PeakForecastReplicas int32
}

func summarize(samples []Sample, events []scaleEvent, waits []time.Duration) Summary {
	sum := Summary{ScaleEvents: events, Waits: sortedWaits(waits)}
	for i, s := range samples {
		sum.Duration = s.Elapsed
		if s.Demand > sum.PeakDemand {
			sum.PeakDemand = s.Demand
		}
		if u := s.Utilization(); u > sum.PeakUtilization {
			sum.PeakUtilization = u
		}
		if s.TargetUtilization > 0 {
			sum.TargetUtilization = s.TargetUtilization
		}
		if s.Replicas > sum.MaxReplicas {
			sum.MaxReplicas = s.Replicas
		}
		if i == 0 || s.Replicas < sum.MinReplicas {
			sum.MinReplicas = s.Replicas
		}
		if s.Overcommitted > sum.MaxOvercommitted {
			sum.MaxOvercommitted = s.Overcommitted
		}
		sum.PendingAtEnd = s.Pending
		sum.ScaleAhead = sum.ScaleAhead || s.Ahead != ""
		sum.ScaledOutAhead = max(sum.ScaledOutAhead, s.ScaledOutAhead)
		sum.PeakForecastReplicas = max(sum.PeakForecastReplicas, s.ForecastReplicas)
		if s.Ahead == aheadScaledOut || s.Ahead == aheadHeldScaleIn {
			sum.AheadSamples++
		}
	}
	return sum
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p * float64(len(sorted)-1))
	return sorted[i]
}

// Markdown renders the summary.
func (s Summary) Markdown() string {
	var b strings.Builder
	b.WriteString("# seedscaler-dev local run\n\n")
	fmt.Fprintf(&b, "| figure | value |\n| --- | --- |\n")
	fmt.Fprintf(&b, "| duration | %s |\n", s.Duration.Truncate(time.Second))
	fmt.Fprintf(&b, "| peak demand (tenant shoots) | %d |\n", s.PeakDemand)
	fmt.Fprintf(&b, "| peak utilization of ready seeds | %.0f%% (target %d%%) |\n", 100*s.PeakUtilization, s.TargetUtilization)
	fmt.Fprintf(&b, "| replicas (min → max) | %d → %d |\n", s.MinReplicas, s.MaxReplicas)
	fmt.Fprintf(&b, "| scale events | %d |\n", len(s.ScaleEvents))
	fmt.Fprintf(&b, "| shoots bound | %d |\n", len(s.Waits))
	fmt.Fprintf(&b, "| wait for a seed: median / p95 / max | %s / %s / %s |\n",
		percentile(s.Waits, 0.5).Truncate(time.Second), percentile(s.Waits, 0.95).Truncate(time.Second), percentile(s.Waits, 1).Truncate(time.Second))
	fmt.Fprintf(&b, "| shoots pending at the end | %d |\n", s.PendingAtEnd)
	fmt.Fprintf(&b, "| overcommits (seeds above allocatable, worst sample) | %d |\n", s.MaxOvercommitted)
	if s.ScaleAhead {
		fmt.Fprintf(&b, "| scale-outs driven by the forecast (ScaledOutAhead events) | %d |\n", s.ScaledOutAhead)
		fmt.Fprintf(&b, "| samples with the forecast above the reactive decision (ScaledOutAhead, HeldScaleIn) | %d |\n", s.AheadSamples)
		fmt.Fprintf(&b, "| most replicas the forecast asked for | %d |\n", s.PeakForecastReplicas)
	}
	if len(s.ScaleEvents) > 0 {
		b.WriteString("\n## Scale events\n\n")
		for _, e := range s.ScaleEvents {
			fmt.Fprintf(&b, "- %s\n", e)
		}
	}
	b.WriteString("\nFiles: `timeline.csv` (one row per sample), `plot.png` (demand, capacity, bound shoots and replicas over time).\n")
	return b.String()
}

// writePlot draws demand, allocatable capacity and bound shoots over time above the set's
// replicas and desired replicas, as a PNG.
func writePlot(path string, samples []Sample) error {
	series := func(f func(Sample) float64) plotter.XYs {
		xys := make(plotter.XYs, len(samples))
		for i, s := range samples {
			xys[i].X, xys[i].Y = s.Elapsed.Seconds(), f(s)
		}
		return xys
	}
	shoots := plot.New()
	shoots.Title.Text = "Shoots"
	shoots.X.Label.Text = "seconds"
	shoots.Y.Label.Text = "shoots"
	if err := addLines(shoots,
		line{"demand", series(func(s Sample) float64 { return float64(s.Demand) }), color.RGBA{R: 200, A: 255}},
		line{"capacity (allocatable of ready seeds)", series(func(s Sample) float64 { return float64(s.Allocatable) }), color.RGBA{G: 140, A: 255}},
		line{"bound", series(func(s Sample) float64 { return float64(s.Bound) }), color.RGBA{B: 200, A: 255}},
	); err != nil {
		return err
	}
	replicas := plot.New()
	replicas.Title.Text = "ManagedSeedSet replicas"
	replicas.X.Label.Text = "seconds"
	replicas.Y.Label.Text = "seeds"
	replicaLines := []line{
		{"replicas", series(func(s Sample) float64 { return float64(s.Replicas) }), color.RGBA{R: 120, G: 60, B: 160, A: 255}},
		{"desired", series(func(s Sample) float64 { return float64(s.DesiredReplicas) }), color.RGBA{R: 230, G: 150, A: 255}},
	}
	if slices.ContainsFunc(samples, func(s Sample) bool { return s.ForecastReplicas > 0 }) {
		replicaLines = append(replicaLines, line{"forecast (scale-ahead)",
			series(func(s Sample) float64 { return float64(s.ForecastReplicas) }), color.RGBA{G: 160, B: 200, A: 255}})
	}
	if err := addLines(replicas, replicaLines...); err != nil {
		return err
	}
	return writeTiles(path, shoots, replicas)
}

// writeTiles draws plots one above the other into a PNG.
func writeTiles(path string, plots ...*plot.Plot) error {
	img := vgimg.New(10*vg.Inch, 8*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadTop: vg.Points(6), PadBottom: vg.Points(6), PadX: vg.Points(6), PadY: vg.Points(12)}
	rows := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		rows[i] = []*plot.Plot{p}
	}
	canvases := plot.Align(rows, tiles, dc)
	for i, p := range plots {
		p.Draw(canvases[i][0])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = vgimg.PngCanvas{Canvas: img}.WriteTo(f)
	// A failed close can lose the end of the file: it is an error like a failed write.
	return errors.Join(err, f.Close())
}

type line struct {
	name  string
	xys   plotter.XYs
	color color.Color
}

func addLines(p *plot.Plot, lines ...line) error {
	for _, l := range lines {
		ln, err := plotter.NewLine(l.xys)
		if err != nil {
			return err
		}
		ln.Color = l.color
		ln.Width = vg.Points(1.5)
		p.Add(ln)
		p.Legend.Add(l.name, ln)
	}
	p.Y.Min = 0
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return nil
}

// writeReport writes timeline.csv, plot.png and summary.md into dir.
func writeReport(dir string, samples []Sample, events []scaleEvent, waits []time.Duration) (Summary, error) {
	sum := summarize(samples, events, waits)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return sum, err
	}
	f, err := os.Create(filepath.Join(dir, "timeline.csv"))
	if err != nil {
		return sum, err
	}
	if err := writeTimeline(f, samples); err != nil {
		return sum, errors.Join(err, f.Close())
	}
	if err := f.Close(); err != nil {
		return sum, err
	}
	if err := writePlot(filepath.Join(dir, "plot.png"), samples); err != nil {
		return sum, fmt.Errorf("drawing the plot: %w", err)
	}
	return sum, os.WriteFile(filepath.Join(dir, "summary.md"), []byte(sum.Markdown()), 0o644)
}
