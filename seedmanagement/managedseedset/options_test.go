package managedseedset

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOptionsValidateNamesTheBadFlag(t *testing.T) {
	t.Setenv("POD_NAMESPACE", "")
	t.Setenv("POD_NAME", "set-controller-0")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"defaults", nil, ""},
		{"no retries, no resync", []string{"--max-shoot-retries=0", "--in-flight-resync=0", "--concurrent-syncs=1"}, ""},
		{"negative retries", []string{"--max-shoot-retries=-1"}, "--max-shoot-retries must not be negative"},
		{"no workers", []string{"--concurrent-syncs=0"}, "--concurrent-syncs must be at least 1"},
		{"negative resync", []string{"--in-flight-resync=-1m"}, "--in-flight-resync must not be negative"},
		{"object locks with leader election", []string{"--replicas-mode=object-locks", "--lock-namespace=garden", "--leader-elect"}, "drop --leader-elect"},
		{"unknown replicas mode", []string{"--replicas-mode=active-active"}, "--replicas-mode"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := NewOptions()
			fs := pflag.NewFlagSet("set-controller", pflag.ContinueOnError)
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
	o := NewOptions()
	o.AddFlags(pflag.NewFlagSet("set-controller", pflag.ContinueOnError))
	assert.Equal(t, ":8084", o.MetricsBindAddress)
	assert.Equal(t, ":8085", o.HealthProbeBindAddress)
	assert.Equal(t, Config{MaxShootRetries: 3, ConcurrentSyncs: 5, InFlightResync: time.Minute}, o.Config)
}
