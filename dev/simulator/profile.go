package simulator

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// AnyLocation is the demand key of the profiles that want a total number of shoots spread
// over demand.locations by weight, rather than a number per location (replay).
const AnyLocation = ""

// Desired is the number of tenant shoots the demand asks for at simulated time t after the
// start (none before the demand's Start, and the profile's time begins then): one count under AnyLocation, or for replay one count per provider/region.
func Desired(d *DemandConfig, t time.Duration) map[string]int {
	if t < d.Start.Duration {
		return map[string]int{}
	}
	t -= d.Start.Duration
	switch d.Profile {
	case ProfileConstant:
		return map[string]int{AnyLocation: d.Constant.Shoots}
	case ProfileRamp:
		return map[string]int{AnyLocation: RampDesired(*d.Ramp, t)}
	case ProfileStep:
		return map[string]int{AnyLocation: StepDesired(d.Steps, t)}
	case ProfileSine:
		return map[string]int{AnyLocation: SineDesired(*d.Sine, t)}
	case ProfileReplay:
		if d.Replay == nil || d.Replay.Data == nil {
			return map[string]int{}
		}
		return d.Replay.Data.Desired(t)
	}
	return map[string]int{}
}

// Total sums the counts of a Desired result.
func Total(desired map[string]int) int {
	n := 0
	for _, c := range desired {
		n += c
	}
	return n
}

// RampDesired goes linearly from From (until Start) to To (at Start+Over), rounded, and
// holds To afterwards.
func RampDesired(p RampProfile, t time.Duration) int {
	switch {
	case t <= p.Start.Duration:
		return p.From
	case t >= p.Start.Duration+p.Over.Duration:
		return p.To
	}
	f := float64(t-p.Start.Duration) / float64(p.Over.Duration)
	return int(math.Round(float64(p.From) + f*float64(p.To-p.From)))
}

// StepDesired is the count of the last step at or before t; 0 before the first step.
func StepDesired(steps []StepPoint, t time.Duration) int {
	n := 0
	for _, s := range steps {
		if s.At.Duration > t {
			break
		}
		n = s.Shoots
	}
	return n
}

// SineDesired is a diurnal wave between Min and Max that peaks at PeakAt within every
// Period: min + (max-min)·(1+cos(2π(t-peakAt)/period))/2, rounded.
func SineDesired(p SineProfile, t time.Duration) int {
	peak := time.Duration(0)
	if p.PeakAt != nil {
		peak = p.PeakAt.Duration
	}
	phase := 2 * math.Pi * float64(t-peak) / float64(p.Period.Duration)
	return int(math.Round(float64(p.Min) + float64(p.Max-p.Min)*(1+math.Cos(phase))/2))
}

// Replay is a replayed demand: desired shoots per provider/region at offsets from the start.
type Replay struct {
	// Locations are the provider/region keys of the CSV's columns.
	Locations []string
	// Points are the CSV's rows, ordered by offset.
	Points []ReplayPoint
}

// ReplayPoint is one row of a replay CSV: from At on, Shoots[i] shoots in Locations[i].
type ReplayPoint struct {
	At     time.Duration
	Shoots []int
}

// Desired holds each row's counts from its offset until the next row; before the first row
// every location wants 0.
func (r *Replay) Desired(t time.Duration) map[string]int {
	out := make(map[string]int, len(r.Locations))
	for _, l := range r.Locations {
		out[l] = 0
	}
	i := sort.Search(len(r.Points), func(i int) bool { return r.Points[i].At > t }) - 1
	if i < 0 {
		return out
	}
	for j, l := range r.Locations {
		out[l] = r.Points[i].Shoots[j]
	}
	return out
}

// ReadReplayFile reads a replay CSV; see ParseReplay.
func ReadReplayFile(path string) (*Replay, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := ParseReplay(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// ParseReplay parses a replay CSV. The header is `offset` followed by one provider/region
// column per location (gcp/europe-west1); each row is an offset (a Go duration such as 90m,
// or seconds) and the desired shoot count per column. Lines starting with # are comments.
func ParseReplay(in io.Reader) (*Replay, error) {
	rd := csv.NewReader(in)
	rd.Comment = '#'
	rd.TrimLeadingSpace = true
	header, err := rd.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("empty replay CSV: write a header `offset,<provider>/<region>,...` and one row per point")
	}
	if err != nil {
		return nil, err
	}
	if len(header) < 2 || strings.TrimSpace(header[0]) != "offset" {
		return nil, errors.New("line 1: the header must be `offset` followed by at least one <provider>/<region> column")
	}
	r := &Replay{}
	seen := map[string]bool{}
	for i, h := range header[1:] {
		h = strings.TrimSpace(h)
		provider, region, ok := strings.Cut(h, "/")
		if !ok || provider == "" || region == "" || strings.Contains(region, "/") {
			return nil, fmt.Errorf("line 1, column %d: %q is not <provider>/<region> such as gcp/europe-west1", i+2, h)
		}
		if seen[h] {
			return nil, fmt.Errorf("line 1, column %d: %s appears twice; name every location once", i+2, h)
		}
		seen[h] = true
		r.Locations = append(r.Locations, h)
	}
	for {
		rec, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		line, _ := rd.FieldPos(0)
		at, err := parseOffset(strings.TrimSpace(rec[0]))
		if err != nil {
			return nil, fmt.Errorf("line %d: offset %q %v", line, rec[0], err)
		}
		if n := len(r.Points); n > 0 && at <= r.Points[n-1].At {
			return nil, fmt.Errorf("line %d: offset %s is not later than the row before (%s); order rows by offset", line, at, r.Points[n-1].At)
		}
		p := ReplayPoint{At: at}
		for j, v := range rec[1:] {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("line %d, column %d (%s): %q is not a shoot count (0 or more)", line, j+2, r.Locations[j], v)
			}
			p.Shoots = append(p.Shoots, n)
		}
		r.Points = append(r.Points, p)
	}
	if len(r.Points) == 0 {
		return nil, errors.New("the replay CSV has a header but no rows")
	}
	return r, nil
}

// parseOffset reads an offset of a replay row: a Go duration or seconds, 0 or more. Its
// error completes "offset "x" ...".
func parseOffset(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		secs, ferr := strconv.ParseFloat(s, 64)
		switch {
		case ferr != nil || math.IsNaN(secs):
			return 0, errors.New("is neither a duration (90m) nor seconds")
		case secs < 0:
			return 0, errors.New("is negative; offsets count from the start, 0 or more")
		case secs >= math.MaxInt64/float64(time.Second):
			// A float beyond Duration's range converts to any number at all.
			return 0, fmt.Errorf("is beyond the longest offset, %s", time.Duration(math.MaxInt64))
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d < 0 {
		return 0, errors.New("is negative; offsets count from the start, 0 or more")
	}
	return d, nil
}
