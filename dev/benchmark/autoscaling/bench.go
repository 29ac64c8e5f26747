package autoscaling

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ServiceLevel is the wait for a seed that the benchmark holds every run to: p99 of the
// time from a shoot's creation to its bind.
const ServiceLevel = 60 * time.Second

// Targets are the target utilizations each policy runs at: 50% to 95% in steps of 5.
func Targets() []int32 {
	var out []int32
	for t := int32(50); t <= 95; t += 5 {
		out = append(out, t)
	}
	return out
}

// RunAll runs every policy at every target, workers at a time, and returns the results in
// the order of policies, then targets, whatever order they finish in.
func RunAll(cfg Config, policies []Policy, targets []int32, workers int) ([]Result, error) {
	results := make([]Result, len(policies)*len(targets))
	errs := make([]error, len(results))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for i := range jobs {
				results[i], errs[i] = Run(cfg, policies[i/len(targets)], targets[i%len(targets)])
			}
		})
	}
	for i := range results {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}

// CSVHeader names the columns of autoscaling.csv.
var CSVHeader = []string{"policy", "target", "shoot_minutes_pending", "p50_bind_s", "p99_bind_s", "seed_hours", "seed_hours_over_oracle", "scale_events"}

// WriteCSV writes one row per run.
func WriteCSV(w io.Writer, results []Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, r := range results {
		if err := cw.Write([]string{
			string(r.Policy), strconv.Itoa(int(r.TargetPercent)),
			strconv.FormatFloat(r.ShootMinutesPending, 'f', 1, 64),
			strconv.FormatFloat(r.P50Bind.Seconds(), 'f', 1, 64),
			strconv.FormatFloat(r.P99Bind.Seconds(), 'f', 1, 64),
			strconv.FormatFloat(r.SeedHours, 'f', 1, 64),
			strconv.FormatFloat(r.SeedHoursOverOracle(), 'f', 1, 64),
			strconv.Itoa(r.ScaleEvents),
		}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Headline is a policy's best run at the service level.
type Headline struct {
	Policy Policy
	// Run is the run with the fewest seed-hours whose p99 wait meets the service level;
	// Met is false when none does, and Run is then the one with the smallest p99 wait.
	Run Result
	Met bool
}

// Headlines picks each policy's headline, in the order of the results.
func Headlines(results []Result) []Headline {
	var out []Headline
	index := map[Policy]int{}
	for _, r := range results {
		i, ok := index[r.Policy]
		if !ok {
			index[r.Policy] = len(out)
			out = append(out, Headline{Policy: r.Policy, Run: r, Met: r.P99Bind <= ServiceLevel})
			continue
		}
		h := &out[i]
		met := r.P99Bind <= ServiceLevel
		switch {
		case met && (!h.Met || r.SeedHours < h.Run.SeedHours):
			h.Run, h.Met = r, true
		case !met && !h.Met && r.P99Bind < h.Run.P99Bind:
			h.Run = r
		}
	}
	return out
}

// Markdown renders the headlines as a table, each policy's seed-hours also relative to the
// reactive policy's headline.
func Markdown(headlines []Headline) string {
	var reactive float64
	for _, h := range headlines {
		if h.Policy == PolicyReactive && h.Met {
			reactive = h.Run.SeedHours
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| policy | target | seed-hours | vs reactive | over oracle | shoot-minutes pending | p50 / p99 wait | p99 wait on the spike | scale events |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, h := range headlines {
		r := h.Run
		target := fmt.Sprintf("%d%%", r.TargetPercent)
		vs := "—"
		if !h.Met {
			target += fmt.Sprintf(" (none meets p99 ≤ %s)", ServiceLevel)
		} else if reactive > 0 {
			vs = fmt.Sprintf("%+.1f%%", 100*(r.SeedHours/reactive-1))
		}
		spike := "—"
		if r.SpikeShoots > 0 {
			spike = seconds(r.SpikeP99Bind)
		}
		fmt.Fprintf(&b, "| %s | %s | %.1f | %s | %.1f | %.1f | %s / %s | %s | %d |\n",
			h.Policy, target, r.SeedHours, vs, r.SeedHoursOverOracle(), r.ShootMinutesPending,
			seconds(r.P50Bind), seconds(r.P99Bind), spike, r.ScaleEvents)
	}
	return b.String()
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 0, 64) + " s"
}
