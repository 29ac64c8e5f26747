package disruption

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseScheduleRefusesWhatCronRefuses(t *testing.T) {
	tests := []struct{ schedule, want string }{
		{"0 9 * *", `"0 9 * *" has 4 fields, a cron schedule has 5: minute hour day-of-month month day-of-week`},
		{"61 * * * *", `minute "61" is not a number from 0 to 59`},
		{"0 24 * * *", `hour "24" is not a number from 0 to 23`},
		{"0 0 0 * *", `day of month "0" is not a number from 1 to 31`},
		{"0 0 * 13 *", `month "13" is not a number from 1 to 12 or a name such as "feb"`},
		{"0 0 * * 8", `day of week "8" is not a number from 0 to 7 or a name such as "mon"`},
		{"0 0 * * fri-mon", `day of week "fri-mon": the range runs backwards, write it from the smaller value, e.g. 1-5`},
		{"*/0 * * * *", `minute "*/0": the step "0" is not a number from 1 to 59`},
		{"@fortnightly", `"@fortnightly" is not one of @yearly, @annually, @monthly, @weekly, @daily, @midnight and @hourly`},
	}
	for _, tt := range tests {
		t.Run(tt.schedule, func(t *testing.T) {
			_, err := ParseSchedule(tt.schedule)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func TestScheduleMatches(t *testing.T) {
	at := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339, s)
		require.NoError(t, err)
		return v
	}
	// 2026-01-05 is a Monday.
	tests := []struct {
		schedule string
		at       string
		want     bool
	}{
		{"0 9 * * mon-fri", "2026-01-05T09:00:00Z", true},
		{"0 9 * * mon-fri", "2026-01-05T09:00:59Z", true},
		{"0 9 * * mon-fri", "2026-01-05T09:01:00Z", false},
		{"0 9 * * mon-fri", "2026-01-04T09:00:00Z", false}, // Sunday
		{"0 9 * * 1-5", "2026-01-09T09:00:00Z", true},      // Friday
		{"0 9 * * 7", "2026-01-04T09:00:00Z", true},        // 7 is Sunday
		{"0 9 * * 0", "2026-01-04T09:00:00Z", true},
		{"*/15 * * * *", "2026-01-05T10:45:00Z", true},
		{"*/15 * * * *", "2026-01-05T10:50:00Z", false},
		{"5/20 * * * *", "2026-01-05T10:45:00Z", true},
		{"0-30/10 * * * *", "2026-01-05T10:40:00Z", false},
		{"0,30 22 * * *", "2026-01-05T22:30:00Z", true},
		{"0 0 1 jan *", "2026-01-01T00:00:00Z", true},
		{"0 0 1 JAN *", "2026-02-01T00:00:00Z", false},
		// Both day fields restricted: either matches, as in cron.
		{"0 0 13 * fri", "2026-02-13T00:00:00Z", true}, // the 13th, a Friday
		{"0 0 13 * fri", "2026-01-09T00:00:00Z", true}, // a Friday
		{"0 0 13 * fri", "2026-01-13T00:00:00Z", true}, // the 13th
		{"0 0 13 * fri", "2026-01-14T00:00:00Z", false},
		// One of them a star: both must match.
		{"0 0 */2 * fri", "2026-01-09T00:00:00Z", true}, // the 9th, a Friday
		{"0 0 */2 * fri", "2026-01-16T00:00:00Z", false},
		{"@daily", "2026-01-05T00:00:00Z", true},
		{"@hourly", "2026-01-05T07:00:00Z", true},
		{"@weekly", "2026-01-04T00:00:00Z", true},
		// UTC, whatever the zone of the time.
		{"0 9 * * *", "2026-01-05T10:00:00+01:00", true},
	}
	for _, tt := range tests {
		t.Run(tt.schedule+" at "+tt.at, func(t *testing.T) {
			s, err := ParseSchedule(tt.schedule)
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.Matches(at(tt.at)))
		})
	}
}

// LastFiring skips what cannot match and agrees with a minute-by-minute search.
func TestLastFiringAgreesWithAMinuteByMinuteSearch(t *testing.T) {
	now := time.Date(2026, 3, 1, 8, 17, 42, 0, time.UTC) // a Sunday
	for _, schedule := range []string{
		"0 9 * * mon-fri", "30 2 * * *", "*/7 * * * *", "0 0 29 2 *", "15,45 */3 13 * fri", "@monthly", "59 23 31 12 *", "0 0 30 2 *",
	} {
		t.Run(schedule, func(t *testing.T) {
			s, err := ParseSchedule(schedule)
			require.NoError(t, err)
			after := now.Add(-400 * 24 * time.Hour)
			want, wantOK := time.Time{}, false
			for m := now.Truncate(time.Minute); m.After(after); m = m.Add(-time.Minute) {
				if s.Matches(m) {
					want, wantOK = m, true
					break
				}
			}
			got, ok := s.LastFiring(now, after)
			assert.Equal(t, wantOK, ok)
			assert.Equal(t, want, got)
		})
	}
}
