package simulator

import (
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/seedscaler/seedscaler/seedmanagement/seed"
)

func parseOptions(t *testing.T, args ...string) *Options {
	t.Helper()
	o := NewOptions()
	fs := pflag.NewFlagSet("simulate", pflag.ContinueOnError)
	o.AddFlags(fs)
	require.NoError(t, fs.Parse(args))
	return o
}

func TestOptionsValidateNamesTheBadFlag(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"defaults", nil, ""},
		{"overrides", []string{"--speed=240", "--duration=24h", "--seed=7", "--timeline="}, ""},
		{"run until stopped", []string{"--duration=0"}, ""},
		{"zero speed", []string{"--speed=0"}, "--speed must be positive"},
		{"negative duration", []string{"--duration=-1h"}, "--duration must not be negative"},
		{"fleet", []string{"--profile=fleet", "--fleet-seeds=100"}, ""},
		{"unknown profile", []string{"--profile=huge"}, `--profile must be fleet (or empty, with --config), not "huge"`},
		{"profile and config", []string{"--profile=fleet", "--config=x.yaml"}, "--profile fleet and --config x.yaml both name a configuration"},
		{"no seeds", []string{"--profile=fleet", "--fleet-seeds=0"}, "--fleet-seeds must be at least 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := parseOptions(t, c.args...).Validate()
			if c.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// --profile fleet is the fleet's configuration of --fleet-seeds seeds, with the overrides.
func TestOptionsFleetProfile(t *testing.T) {
	cfg, err := parseOptions(t, "--profile=fleet", "--fleet-seeds=100", "--speed=60").Configuration()
	require.NoError(t, err)
	assert.Equal(t, 10_000, Total(Desired(&cfg.Demand, FleetDemandStart)))
	assert.InDelta(t, 60.0, cfg.Speed, 0)
}

// The fleet's gardenlets renew their Leases every FleetHeartbeat of wall-clock time at any
// --speed: the garden marks a seed's GardenletReady Unknown after 40 s without a renewal, so
// a heartbeat counted in simulated time would leave every seed flapping at a low speed.
func TestOptionsFleetHeartbeatIsWallClock(t *testing.T) {
	for _, speed := range []string{"15", "30", "120", "600"} {
		t.Run(speed, func(t *testing.T) {
			cfg, err := parseOptions(t, "--profile=fleet", "--fleet-seeds=10", "--speed="+speed).Configuration()
			require.NoError(t, err)
			wall := time.Duration(float64(cfg.Gardenlets.HeartbeatInterval.Duration) / cfg.Speed)
			assert.Equal(t, FleetHeartbeat, wall)
			assert.Less(t, wall, seed.DefaultHeartbeatGracePeriod, "a heartbeat within the garden's grace period")
		})
	}
}

// With --tenant-scheduler every tenant names that scheduler; without, none names one, and
// the garden's default scheduler places them.
func TestOptionsTenantScheduler(t *testing.T) {
	epoch := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	cfg, err := parseOptions(t, "--profile=fleet", "--fleet-seeds=10", "--tenant-scheduler=seedscaler-scheduler").Configuration()
	require.NoError(t, err)
	shoot := New(cfg, nil, clocktesting.NewFakeClock(epoch), nil).newTenantShoot(AnyLocation, epoch)
	require.NotNil(t, shoot.Spec.SchedulerName)
	assert.Equal(t, "seedscaler-scheduler", *shoot.Spec.SchedulerName)

	cfg, err = parseOptions(t, "--profile=fleet", "--fleet-seeds=10").Configuration()
	require.NoError(t, err)
	assert.Nil(t, New(cfg, nil, clocktesting.NewFakeClock(epoch), nil).newTenantShoot(AnyLocation, epoch).Spec.SchedulerName)

	_, err = parseOptions(t, "--profile=fleet", "--tenant-scheduler=No_Such").Configuration()
	assert.ErrorContains(t, err, `demand.schedulerName: "No_Such" is not a scheduler name`)
}

// A flag overrides the file's value only when given, 0 included.
func TestOptionsOverrideTheFileOnlyWhenGiven(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	demoDay := filepath.Join(filepath.Dir(file), "..", "..", "examples", "config", "demo-day.yaml")
	fromFile, err := LoadConfiguration(demoDay)
	require.NoError(t, err)
	require.NotZero(t, fromFile.Duration.Duration)

	o := parseOptions(t, "--config="+demoDay)
	assert.Nil(t, o.Speed)
	cfg, err := o.Configuration()
	require.NoError(t, err)
	assert.Equal(t, fromFile.Speed, cfg.Speed)
	assert.Equal(t, fromFile.Duration, cfg.Duration)
	assert.Equal(t, fromFile.RandomSeed, cfg.RandomSeed)

	cfg, err = parseOptions(t, "--config="+demoDay, "--speed=60", "--duration=0", "--seed=7").Configuration()
	require.NoError(t, err)
	assert.Equal(t, 60.0, cfg.Speed)
	assert.Equal(t, time.Duration(0), cfg.Duration.Duration)
	require.NotNil(t, cfg.RandomSeed)
	assert.Equal(t, uint64(7), *cfg.RandomSeed)

	cfg, err = parseOptions(t).Configuration()
	require.NoError(t, err)
	assert.Equal(t, 1.0, cfg.Speed, "without a file, the defaults")
}

func TestOptionsHelpShowsNoDefaultForOverrides(t *testing.T) {
	o := NewOptions()
	fs := pflag.NewFlagSet("simulate", pflag.ContinueOnError)
	o.AddFlags(fs)
	usage := fs.FlagUsages()
	assert.Contains(t, usage, "--speed float ")
	assert.Contains(t, usage, "--duration duration ")
	assert.Contains(t, usage, "--seed uint ")
	assert.Contains(t, usage, `(default "-")`, "--timeline")
	assert.NotContains(t, usage, "(default 0")
}
