package autoscaler_test

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/autoscaler"
)

func TestOptionsValidateNamesTheBadFlag(t *testing.T) {
	t.Setenv("POD_NAMESPACE", "")
	t.Setenv("POD_NAME", "autoscaler-0")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"defaults", nil, ""},
		{"dry run, quick", []string{"--dry-run", "--sync-period=5s", "--metric-max-age=1m"}, ""},
		{"zero sync period", []string{"--sync-period=0s"}, "--sync-period must be positive"},
		{"negative metric age", []string{"--metric-max-age=-1m"}, "--metric-max-age must be positive"},
		{"object locks without a holder", []string{"--replicas-mode=object-locks", "--lock-namespace=garden", "--lock-holder="}, "needs --lock-holder"},
		{"object locks without a lease", []string{"--replicas-mode=object-locks", "--lock-namespace=garden", "--lock-lease-duration=0s"}, "--lock-lease-duration must be positive"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := autoscaler.NewOptions()
			fs := pflag.NewFlagSet("autoscaler", pflag.ContinueOnError)
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

func TestOptionsDefaults(t *testing.T) {
	o := autoscaler.NewOptions()
	o.AddFlags(pflag.NewFlagSet("autoscaler", pflag.ContinueOnError))
	assert.Equal(t, ":8090", o.MetricsBindAddress)
	assert.Equal(t, ":8091", o.HealthProbeBindAddress)
	assert.Equal(t, 15*time.Second, o.SyncPeriod)
	assert.Equal(t, 5*time.Minute, o.MetricMaxAge)
	assert.False(t, o.DryRun)
}
