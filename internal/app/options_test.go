package app

import (
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateNamesABadBindAddress(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"defaults", nil, nil},
		{"switched off", []string{"--metrics-bind-address=0", "--health-probe-bind-address=0"}, nil},
		{"a host and port", []string{"--metrics-bind-address=127.0.0.1:9090"}, nil},
		{"a port without colon", []string{"--metrics-bind-address=8080"}, []string{"--metrics-bind-address=8080: want host:port"}},
		{"both wrong", []string{"--metrics-bind-address=metrics", "--health-probe-bind-address=:1:2"},
			[]string{"--metrics-bind-address=metrics", "--health-probe-bind-address=:1:2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := &Options{}
			fs := pflag.NewFlagSet("part", pflag.ContinueOnError)
			o.AddFlags(fs, 8080, 8081)
			require.NoError(t, fs.Parse(c.args))
			err := o.Validate()
			if len(c.want) == 0 {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, want := range c.want {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}
