package exporter

import (
	"testing"

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
		{"leader election is accepted", []string{"--leader-elect", "--metrics-bind-address=0"}, ""},
		{"a metrics address without port", []string{"--metrics-bind-address=0.0.0.0"}, "--metrics-bind-address=0.0.0.0: want host:port"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := NewOptions()
			fs := pflag.NewFlagSet("exporter", pflag.ContinueOnError)
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

func TestOptionsDefaultPorts(t *testing.T) {
	o := NewOptions()
	o.AddFlags(pflag.NewFlagSet("exporter", pflag.ContinueOnError))
	assert.Equal(t, ":8086", o.MetricsBindAddress)
	assert.Equal(t, ":8087", o.HealthProbeBindAddress)
}
