package disruption

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Schedule is a parsed cron schedule of five fields (minute, hour, day of month, month, day
// of week), read in UTC, as a disruption budget's schedule.
type Schedule struct {
	minute, hour, dom, month, dow uint64
	// domStar and dowStar say that the field began with "*": as in cron, a day matches when
	// both day fields match if either is a star, and when either matches otherwise
	// ("0 0 1 * 1" is the 1st of the month and every Monday).
	domStar, dowStar bool
}

// macros are the shorthands cron knows, with their five fields.
var macros = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
	"@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

// cronField is one of the five fields: its name for messages, its range and its names.
type cronField struct {
	name     string
	min, max int
	names    []string // names[i] stands for min+i
}

var (
	minuteField = cronField{name: "minute", min: 0, max: 59}
	hourField   = cronField{name: "hour", min: 0, max: 23}
	domField    = cronField{name: "day of month", min: 1, max: 31}
	monthField  = cronField{name: "month", min: 1, max: 12,
		names: []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}}
	// 7 is Sunday too, as in cron.
	dowField = cronField{name: "day of week", min: 0, max: 7,
		names: []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}}
)

// ParseSchedule parses a cron schedule: five fields separated by spaces, each a "*", a
// number, a range "1-5", a step "*/15" or "0-30/10", or a list of them "1,15"; months and
// days of the week may be named ("jan", "mon-fri"); or one of @yearly, @annually,
// @monthly, @weekly, @daily, @midnight and @hourly. The error names the field at fault.
func ParseSchedule(text string) (Schedule, error) {
	spec := strings.TrimSpace(text)
	if m, ok := macros[strings.ToLower(spec)]; ok {
		spec = m
	} else if strings.HasPrefix(spec, "@") {
		return Schedule{}, fmt.Errorf("%q is not one of @yearly, @annually, @monthly, @weekly, @daily, @midnight and @hourly", spec)
	}
	parts := strings.Fields(spec)
	if len(parts) != 5 {
		return Schedule{}, fmt.Errorf("%q has %d fields, a cron schedule has 5: minute hour day-of-month month day-of-week", text, len(parts))
	}
	var s Schedule
	var err error
	for i, target := range []struct {
		f    cronField
		bits *uint64
	}{{minuteField, &s.minute}, {hourField, &s.hour}, {domField, &s.dom}, {monthField, &s.month}, {dowField, &s.dow}} {
		if *target.bits, err = parseCronField(parts[i], target.f); err != nil {
			return Schedule{}, err
		}
	}
	if s.dow&(1<<7) != 0 {
		s.dow |= 1 // Sunday as 7
	}
	s.domStar, s.dowStar = strings.HasPrefix(parts[2], "*"), strings.HasPrefix(parts[4], "*")
	return s, nil
}

// parseCronField parses one field into a bit set of the values it matches.
func parseCronField(text string, f cronField) (uint64, error) {
	var set uint64
	for _, item := range strings.Split(text, ",") {
		span, stepText, hasStep := strings.Cut(item, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || n < 1 || n > f.max {
				return 0, fmt.Errorf("%s %q: the step %q is not a number from 1 to %d", f.name, item, stepText, f.max)
			}
			step = n
		}
		var lo, hi int
		switch from, to, isRange := strings.Cut(span, "-"); {
		case span == "*":
			lo, hi = f.min, f.max
		case isRange:
			var err error
			if lo, err = cronValue(from, f); err != nil {
				return 0, err
			}
			if hi, err = cronValue(to, f); err != nil {
				return 0, err
			}
			if lo > hi {
				return 0, fmt.Errorf("%s %q: the range runs backwards, write it from the smaller value, e.g. %d-%d", f.name, item, hi, lo)
			}
		default:
			var err error
			if lo, err = cronValue(span, f); err != nil {
				return 0, err
			}
			hi = lo
			if hasStep {
				hi = f.max // "5/15" runs from 5 to the end, as in cron
			}
		}
		for v := lo; v <= hi; v += step {
			set |= 1 << v
		}
	}
	return set, nil
}

// cronValue parses a number or a name of a field.
func cronValue(text string, f cronField) (int, error) {
	for i, name := range f.names {
		if strings.EqualFold(text, name) {
			return f.min + i, nil
		}
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < f.min || n > f.max {
		named := ""
		if len(f.names) > 0 {
			named = fmt.Sprintf(" or a name such as %q", f.names[1])
		}
		return 0, fmt.Errorf("%s %q is not a number from %d to %d%s", f.name, text, f.min, f.max, named)
	}
	return n, nil
}

// Matches says whether the schedule fires in the minute of t (in UTC).
func (s Schedule) Matches(t time.Time) bool {
	t = t.UTC()
	return s.minute&(1<<t.Minute()) != 0 && s.hour&(1<<t.Hour()) != 0 && s.month&(1<<int(t.Month())) != 0 && s.matchesDay(t)
}

func (s Schedule) matchesDay(t time.Time) bool {
	dom, dow := s.dom&(1<<t.Day()) != 0, s.dow&(1<<int(t.Weekday())) != 0
	if s.domStar || s.dowStar {
		return dom && dow
	}
	return dom || dow
}

// LastFiring is the latest minute at or before now in which the schedule fires, looking back
// no farther than after (exclusive); false when it does not fire in between. It skips whole
// months, days and hours that cannot match, so a look back over a year takes a few hundred
// steps.
func (s Schedule) LastFiring(now, after time.Time) (time.Time, bool) {
	t := now.UTC().Truncate(time.Minute)
	for t.After(after) {
		switch {
		case s.month&(1<<int(t.Month())) == 0:
			t = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC).Add(-time.Minute)
		case !s.matchesDay(t):
			t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC).Add(-time.Minute)
		case s.hour&(1<<t.Hour()) == 0:
			t = t.Truncate(time.Hour).Add(-time.Minute)
		case s.minute&(1<<t.Minute()) == 0:
			// The latest matching minute of this hour before this one, or the hour before.
			below := s.minute & (1<<t.Minute() - 1)
			if below == 0 {
				t = t.Truncate(time.Hour).Add(-time.Minute)
			} else {
				t = t.Truncate(time.Hour).Add(time.Duration(63-bits.LeadingZeros64(below)) * time.Minute)
			}
		default:
			return t, true
		}
	}
	return time.Time{}, false
}
