package autoscaling

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Trace is the demand to replay: the shoots tenants want at the start of each minute.
// During minute m the demand moves from Shoots[m-1] to Shoots[m], one shoot at a time at
// even intervals; Shoots[0] is there from the start, already bound.
type Trace struct {
	Shoots []int
	// SpikeFrom and SpikeTo are the minutes of an unannounced spike, [from, to), for its
	// own wait figures; both 0 when the trace marks none.
	SpikeFrom, SpikeTo int
}

// Minutes is how long the trace lasts.
func (t Trace) Minutes() int { return len(t.Shoots) }

// The built-in week's shape.
const (
	weekMinutes = 7 * 24 * 60
	nightShoots = 300.0
	// Weekday and weekend shoots for the day, above the night.
	weekdayWave = 700.0
	weekendWave = 250.0
	// weeklyGrowth is the growth of the demand over the week.
	weeklyGrowth = 0.10
	// The spike: Thursday 10:30, spikeShoots more within 5 minutes, for 2 hours.
	spikeAt     = 3*24*60 + 10*60 + 30
	spikeRamp   = 5
	spikeHold   = 120
	spikeShoots = 200.0
)

// BuiltinTrace is a week of demand from Monday 00:00 in the shape of a working day: about
// 300 long-lived shoots at night, and shoots for the day created between 07:30 and 09:30
// (up to about 1,000 on weekdays, 550 on weekends) and deleted between 17:00 and 20:00;
// the demand grows by 10% over the week and wanders by about 1% (a random walk pulled back
// to the wave, from a source seeded with seed). One spike is announced by nothing before
// it: 200 shoots more within five minutes on Thursday at 10:30, gone two hours later.
func BuiltinTrace(seed uint64) Trace {
	return weekTrace(seed, week{spike: true})
}

// The holiday-and-launch week's events.
const (
	// holidayDay is Tuesday: a weekday with a weekend's demand, and the day the seasonal
	// forecast of Wednesday looks back on.
	holidayDay = 1
	// launchAt is Thursday 10:00: launchShoots long-lived shoots more within launchRamp
	// minutes, and they stay for the rest of the week.
	launchAt     = 3*24*60 + 10*60
	launchRamp   = 60
	launchShoots = 200.0
)

// HolidayLaunchTrace is the built-in week's working days with two changes a forecast has
// to live through, and no spike: Tuesday is a holiday, with a weekend's demand, so that
// Wednesday morning's seasonal forecast looks back on a quiet day; and on Thursday at
// 10:00 a launch adds 200 long-lived shoots within an hour, which stay, so that the
// demand steps up for the rest of the week and each day's seasonal forecast lags the day
// before's step.
func HolidayLaunchTrace(seed uint64) Trace {
	return weekTrace(seed, week{holiday: holidayDay, launch: true})
}

// week is what a built-in week has beyond the working days and the weekend.
type week struct {
	// spike adds the unannounced spike on Thursday at 10:30.
	spike bool
	// holiday is the day (0 is Monday) with a weekend's demand; 0 for none (Monday is
	// never a holiday: it has no day behind it).
	holiday int
	// launch adds the launch's long-lived shoots on Thursday at 10:00.
	launch bool
}

// weekTrace generates a built-in week.
func weekTrace(seed uint64, w week) Trace {
	rng := rand.New(rand.NewPCG(seed, 0x5ca1eab1e))
	shoots := make([]int, weekMinutes)
	var noise float64
	for m := range shoots {
		day, minuteOfDay := m/(24*60), m%(24*60)
		wave := weekdayWave
		if day >= 5 || (w.holiday > 0 && day == w.holiday) {
			wave = weekendWave
		}
		hour := float64(minuteOfDay) / 60
		demand := (nightShoots + wave*workday(hour)) * (1 + weeklyGrowth*float64(m)/weekMinutes)
		noise = 0.98*noise + 0.002*rng.NormFloat64()
		demand *= 1 + noise
		if w.launch && m >= launchAt {
			demand += launchShoots * min(1, float64(m-launchAt+1)/launchRamp)
		}
		if w.spike {
			switch {
			case m >= spikeAt && m < spikeAt+spikeRamp:
				demand += spikeShoots * float64(m-spikeAt+1) / spikeRamp
			case m >= spikeAt+spikeRamp && m < spikeAt+spikeHold:
				demand += spikeShoots
			}
		}
		shoots[m] = max(0, int(math.Round(demand)))
	}
	if !w.spike {
		return Trace{Shoots: shoots}
	}
	return Trace{Shoots: shoots, SpikeFrom: spikeAt, SpikeTo: spikeAt + spikeHold}
}

// workday is the share of the day's shoots running at an hour: rising from 07:30 to 09:30,
// falling from 17:00 to 20:00, each along a smoothstep.
func workday(hour float64) float64 {
	smooth := func(from, to float64) float64 {
		x := min(1, max(0, (hour-from)/(to-from)))
		return x * x * (3 - 2*x)
	}
	return smooth(7.5, 9.5) - smooth(17, 20)
}

// MaxTraceMinutes bounds a trace read from a file: a year of minutes. A minute left out is
// filled in, so without a bound one row could ask for any amount of memory.
const MaxTraceMinutes = 366 * 24 * 60

// ReadTrace reads a trace as CSV with the header minute,shoots: one row per minute from 0,
// in order, up to MaxTraceMinutes; a minute left out keeps the shoots of the one before.
func ReadTrace(r io.Reader) (Trace, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 2
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err != nil {
		return Trace{}, fmt.Errorf("trace: reading the header: %w", err)
	}
	if strings.TrimSpace(header[0]) != "minute" || strings.TrimSpace(header[1]) != "shoots" {
		return Trace{}, fmt.Errorf("trace: the header is %q, want minute,shoots", strings.Join(header, ","))
	}
	var t Trace
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Trace{}, fmt.Errorf("trace: %w", err)
		}
		// The line the row starts on: a quoted field may span lines.
		line, _ := cr.FieldPos(0)
		minute, err := strconv.Atoi(strings.TrimSpace(rec[0]))
		if err != nil || minute < 0 {
			return Trace{}, fmt.Errorf("trace line %d: minute %q is not a whole number of 0 or more", line, rec[0])
		}
		if minute >= MaxTraceMinutes {
			return Trace{}, fmt.Errorf("trace line %d: minute %d is beyond a year (%d minutes); shorten the trace", line, minute, MaxTraceMinutes)
		}
		shoots, err := strconv.Atoi(strings.TrimSpace(rec[1]))
		if err != nil || shoots < 0 {
			return Trace{}, fmt.Errorf("trace line %d: shoots %q is not a whole number of 0 or more", line, rec[1])
		}
		if len(t.Shoots) == 0 && minute != 0 {
			return Trace{}, fmt.Errorf("trace line %d: the first minute is %d, want 0", line, minute)
		}
		if minute < len(t.Shoots) {
			return Trace{}, fmt.Errorf("trace line %d: minute %d comes after minute %d; the minutes must increase", line, minute, len(t.Shoots)-1)
		}
		for len(t.Shoots) < minute {
			t.Shoots = append(t.Shoots, t.Shoots[len(t.Shoots)-1])
		}
		t.Shoots = append(t.Shoots, shoots)
	}
	if len(t.Shoots) < 2 {
		return Trace{}, errors.New("trace: at least two minutes are needed, from minute 0")
	}
	return t, nil
}
