package autoscaling

import (
	"bytes"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// colors of the policies in the plots.
var colors = map[Policy]color.Color{
	PolicyReactive: color.RGBA{R: 200, A: 255},
	PolicyEvent:    color.RGBA{R: 230, G: 150, A: 255},
	PolicyTrend:    color.RGBA{G: 140, A: 255},
	PolicySeasonal: color.RGBA{B: 200, A: 255},
	PolicyAhead:    color.RGBA{R: 120, G: 60, B: 160, A: 255},
}

// WriteReport writes autoscaling.csv, summary.md, frontier.png and timeline.png into dir,
// and for each headroom arm headroom-<shoots>.csv and its section of summary.md.
func WriteReport(dir string, cfg Config, results []Result, headroom []HeadroomArm) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var csvBuf bytes.Buffer
	if err := WriteCSV(&csvBuf, results); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "autoscaling.csv"), csvBuf.Bytes(), 0o644); err != nil {
		return "", err
	}
	headlines := Headlines(results)
	summary := Summary(cfg, results, headlines)
	if len(headroom) > 0 {
		var reactive []Result
		for _, r := range results {
			if r.Policy == PolicyReactive {
				reactive = append(reactive, r)
			}
		}
		summary += "\n## Headroom\n\nThe reactive policy with spec.headroom.shoots, each row its run with the fewest seed-hours at the service level.\n\n" +
			HeadroomMarkdown(reactive, headroom)
		for _, arm := range headroom {
			var buf bytes.Buffer
			if err := WriteCSV(&buf, arm.Results); err != nil {
				return "", err
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("headroom-%d.csv", arm.Headroom)), buf.Bytes(), 0o644); err != nil {
				return "", err
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.md"), []byte(summary), 0o644); err != nil {
		return "", err
	}
	if err := writeFrontier(filepath.Join(dir, "frontier.png"), results); err != nil {
		return "", fmt.Errorf("drawing the frontier: %w", err)
	}
	if err := writeTimeline(filepath.Join(dir, "timeline.png"), headlines); err != nil {
		return "", fmt.Errorf("drawing the timeline: %w", err)
	}
	return summary, nil
}

// Summary is the report's markdown: the headlines, and the spike's p99 wait per target.
func Summary(cfg Config, results []Result, headlines []Headline) string {
	var b strings.Builder
	b.WriteString("# Autoscaling policies\n\n")
	fmt.Fprintf(&b, "A trace of %d minutes; seeds of %d shoots ready %s after they are asked for; sync every %s, scrape every %s, adapter cache %s; forecasts %s ahead; tenants delete the %s shoot.\n\n",
		cfg.Trace.Minutes(), cfg.AllocatablePerSeed, cfg.Provisioning, cfg.SyncPeriod, cfg.ScrapeInterval, cfg.CacheTTL, cfg.Lead, cfg.Deletion)
	fmt.Fprintf(&b, "Each policy's headline is its run with the fewest seed-hours whose p99 wait for a seed is at most %s.\n\n", ServiceLevel)
	b.WriteString(Markdown(headlines))
	b.WriteString("\n## Seed-hours over the oracle by span of the week\n\n")
	b.WriteString("Each headline's seed-hours above the fewest seeds that hold the demand, minute by minute: Monday (no day behind the seasonal forecast), the spike and the hour after it, and the other days by the working day's phases.\n\n")
	b.WriteString(ExcessMarkdown(cfg.Trace, cfg.AllocatablePerSeed, headlines))
	if cfg.Trace.SpikeTo > cfg.Trace.SpikeFrom {
		b.WriteString("\n## p99 wait of the shoots created during the spike\n\n")
		byTarget := map[int32]map[Policy]Result{}
		var targets []int32
		for _, r := range results {
			if byTarget[r.TargetPercent] == nil {
				byTarget[r.TargetPercent] = map[Policy]Result{}
				targets = append(targets, r.TargetPercent)
			}
			byTarget[r.TargetPercent][r.Policy] = r
		}
		var policies []Policy
		for _, h := range headlines {
			policies = append(policies, h.Policy)
		}
		b.WriteString("| target |")
		for _, p := range policies {
			fmt.Fprintf(&b, " %s |", p)
		}
		b.WriteString("\n| --- |" + strings.Repeat(" --- |", len(policies)) + "\n")
		for _, t := range targets {
			fmt.Fprintf(&b, "| %d%% |", t)
			for _, p := range policies {
				fmt.Fprintf(&b, " %s |", seconds(byTarget[t][p].SpikeP99Bind))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\nFiles: `autoscaling.csv` (one row per policy and target), `frontier.png` (seed-hours against shoot-minutes pending), `timeline.png` (each policy's headline run).\n")
	return b.String()
}

// writeFrontier plots seed-hours against shoot-minutes pending, one line per policy
// through its targets.
func writeFrontier(path string, results []Result) error {
	p := plot.New()
	p.Title.Text = "Seed-hours against shoots waiting, per target utilization"
	p.X.Label.Text = "shoot-minutes pending (log scale; 0 drawn at 1)"
	p.Y.Label.Text = "seed-hours"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	byPolicy := map[Policy]plotter.XYs{}
	var order []Policy
	for _, r := range results {
		if _, ok := byPolicy[r.Policy]; !ok {
			order = append(order, r.Policy)
		}
		byPolicy[r.Policy] = append(byPolicy[r.Policy], plotter.XY{X: max(r.ShootMinutesPending, 1), Y: r.SeedHours})
	}
	for _, pol := range order {
		line, points, err := plotter.NewLinePoints(byPolicy[pol])
		if err != nil {
			return err
		}
		line.Color, points.Color = colors[pol], colors[pol]
		line.Width = vg.Points(1.5)
		p.Add(line, points)
		p.Legend.Add(string(pol), line, points)
	}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return savePNG(path, 9*vg.Inch, 6*vg.Inch, [][]*plot.Plot{{p}})
}

// writeTimeline plots the demand and each headline run's capacity above each one's
// pending shoots, hour by hour.
func writeTimeline(path string, headlines []Headline) error {
	if len(headlines) == 0 {
		return nil
	}
	capacity := plot.New()
	capacity.Title.Text = "Demand and capacity (allocatable shoots of ready seeds), each policy at its headline target"
	capacity.X.Label.Text = "hours"
	capacity.Y.Label.Text = "shoots"
	pending := plot.New()
	pending.Title.Text = "Pending shoots"
	pending.X.Label.Text = "hours"
	pending.Y.Label.Text = "shoots"
	series := func(points []Point, f func(Point) int) plotter.XYs {
		xys := make(plotter.XYs, len(points))
		for i, pt := range points {
			xys[i] = plotter.XY{X: float64(pt.Minute) / 60, Y: float64(f(pt))}
		}
		return xys
	}
	add := func(p *plot.Plot, name string, xys plotter.XYs, c color.Color, width vg.Length) error {
		l, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		l.Color, l.Width = c, width
		p.Add(l)
		p.Legend.Add(name, l)
		return nil
	}
	if err := add(capacity, "demand", series(headlines[0].Run.Timeline, func(pt Point) int { return pt.Demand }), color.Black, vg.Points(1.5)); err != nil {
		return err
	}
	for _, h := range headlines {
		name := fmt.Sprintf("%s %d%%", h.Policy, h.Run.TargetPercent)
		if err := add(capacity, name, series(h.Run.Timeline, func(pt Point) int { return pt.Capacity }), colors[h.Policy], vg.Points(1)); err != nil {
			return err
		}
		if err := add(pending, name, series(h.Run.Timeline, func(pt Point) int { return pt.Pending }), colors[h.Policy], vg.Points(1)); err != nil {
			return err
		}
	}
	for _, p := range []*plot.Plot{capacity, pending} {
		p.Y.Min = 0
		p.Legend.Top, p.Legend.Left = true, true
		p.Add(plotter.NewGrid())
	}
	return savePNG(path, 14*vg.Inch, 8*vg.Inch, [][]*plot.Plot{{capacity}, {pending}})
}

func savePNG(path string, w, h vg.Length, plots [][]*plot.Plot) error {
	img := vgimg.New(w, h)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadTop: vg.Points(6), PadBottom: vg.Points(6), PadX: vg.Points(6), PadY: vg.Points(12)}
	canvases := plot.Align(plots, tiles, dc)
	for i, row := range plots {
		row[0].Draw(canvases[i][0])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
