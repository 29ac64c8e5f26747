package seedcontroller

import (
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateNamesTheBadFlag(t *testing.T) {
	t.Setenv("POD_NAMESPACE", "")
	t.Setenv("POD_NAME", "seed-controller-0")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"defaults", nil, ""},
		{"capacity per resource", []string{"--default-seed-capacity=shoots=250,persistent-volumes=200", "--heartbeat-grace-period=1m"}, ""},
		{"object locks", []string{"--replicas-mode=object-locks", "--lock-namespace=seedscaler-system"}, ""},
		{"capacity that is no quantity", []string{"--default-seed-capacity=shoots=many"}, "--default-seed-capacity"},
		{"zero grace period", []string{"--heartbeat-grace-period=0s"}, "--heartbeat-grace-period must be positive"},
		{"negative grace period", []string{"--heartbeat-grace-period=-5s"}, "--heartbeat-grace-period must be positive"},
		{"object locks with leader election", []string{"--replicas-mode=object-locks", "--lock-namespace=seedscaler-system", "--leader-elect"}, "drop --leader-elect"},
		{"object locks without a namespace", []string{"--replicas-mode=object-locks"}, "needs --lock-namespace"},
		{"a health port without colon", []string{"--health-probe-bind-address=8083"}, "--health-probe-bind-address=8083"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := NewOptions()
			fs := pflag.NewFlagSet("seed-controller", pflag.ContinueOnError)
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

func TestDefaults(t *testing.T) {
	o := NewOptions()
	o.AddFlags(pflag.NewFlagSet("seed-controller", pflag.ContinueOnError))
	assert.Equal(t, ":8082", o.MetricsBindAddress)
	assert.Equal(t, ":8083", o.HealthProbeBindAddress)
	assert.Equal(t, "250", o.DefaultSeedCapacity)
	assert.Equal(t, "40s", o.HeartbeatGracePeriod.String())
}
