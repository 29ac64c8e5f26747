package local

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOptionsValidateNamesTheBadFlag(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"defaults", nil, ""},
		{"a short run on the cluster", []string{"--duration=1m", "--speed=60", "--cluster"}, ""},
		{"negative duration", []string{"--duration=-1s"}, "--duration must be positive"},
		{"the fleet", []string{"--profile=fleet", "--fleet-seeds=100"}, ""},
		{"a fleet of none", []string{"--profile=fleet", "--fleet-seeds=0"}, "--fleet-seeds must be at least 1"},
		{"the fleet on the cluster", []string{"--profile=fleet", "--cluster"}, "--profile fleet runs the parts as processes"},
		{"the fleet in a garden", []string{"--profile=fleet", "--fleet-seeds=10", "--gardener"}, ""},
		{"the fleet in a garden bound by seedscaler", []string{"--profile=fleet", "--gardener", "--fleet-scheduler=seedscaler"}, ""},
		{"seedscaler binding a fleet without a garden", []string{"--profile=fleet", "--fleet-scheduler=seedscaler"}, "--fleet-scheduler=seedscaler needs --profile fleet --gardener"},
		{"an unknown fleet scheduler", []string{"--profile=fleet", "--gardener", "--fleet-scheduler=kube-scheduler"}, `--fleet-scheduler must be gardener-scheduler or seedscaler, not "kube-scheduler"`},
		{"the demo in a garden on the cluster", []string{"--gardener", "--cluster"}, "--gardener runs the parts as processes"},
		{"negative speed", []string{"--speed=-1"}, "--speed must be positive"},
		{"zero interval", []string{"--interval=0s"}, "--interval must be positive"},
		{"cluster without image", []string{"--cluster", "--image="}, "--cluster needs --image"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := NewOptions()
			fs := pflag.NewFlagSet("local", pflag.ContinueOnError)
			o.AddFlags(fs)
			require.NoError(t, fs.Parse(c.args))
			err := o.Validate()
			if c.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestOptionsCompleteNamesTheReportFolder(t *testing.T) {
	o := NewOptions()
	o.complete()
	assert.Regexp(t, `^report/\d{8}-\d{6}$`, o.ReportDir)
	assert.NotNil(t, o.Out)

	o = &Options{ReportDir: "mine"}
	o.complete()
	assert.Equal(t, "mine", o.ReportDir)
}

// Duration and speed left unset are the profile's.
func TestOptionsCompleteTakesTheProfilesClock(t *testing.T) {
	o := NewOptions()
	o.complete()
	assert.Equal(t, 6*time.Minute, o.Duration)
	assert.InDelta(t, 240.0, o.Speed, 0)

	o = NewOptions()
	o.Profile = ProfileFleet
	o.complete()
	assert.Equal(t, 20*time.Minute, o.Duration)
	assert.InDelta(t, 120.0, o.Speed, 0)

	o = NewOptions()
	o.Profile, o.Speed, o.Duration = ProfileFleet, 60, time.Minute
	o.complete()
	assert.Equal(t, time.Minute, o.Duration)
	assert.InDelta(t, 60.0, o.Speed, 0)
}
