package scheduler

import (
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/internal/app"
)

func TestValidateNamesTheBadFlag(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"defaults", nil, ""},
		{"a configuration file", []string{"--config=/etc/seedscaler/scheduler.yaml", "--leader-elect"}, ""},
		{"a metrics port without colon", []string{"--metrics-bind-address=8080"}, "--metrics-bind-address=8080: want host:port"},
		{"an event client without a limit", []string{"--kube-api-events-qps=-1"}, ""},
		{"an event client that never writes", []string{"--kube-api-events-qps=0"}, "--kube-api-events-qps=0: want requests per second above 0"},
		{"an event client without a burst", []string{"--kube-api-events-burst=0"}, "--kube-api-events-burst=0: want at least 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := NewOptions()
			fs := pflag.NewFlagSet("scheduler", pflag.ContinueOnError)
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

func TestDefaultPorts(t *testing.T) {
	o := NewOptions()
	o.AddFlags(pflag.NewFlagSet("scheduler", pflag.ContinueOnError))
	assert.Equal(t, ":8080", o.MetricsBindAddress)
	assert.Equal(t, ":8081", o.HealthProbeBindAddress)
	assert.Equal(t, float32(app.DefaultEventQPS), o.EventQPS)
	assert.Equal(t, app.DefaultEventBurst, o.EventBurst)
}
