package local

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
		{"a short run on the cluster", []string{"--duration=1m", "--speed=60", "--cluster"}, ""},
		{"zero duration", []string{"--duration=0s"}, "--duration must be positive"},
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
