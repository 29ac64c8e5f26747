package uninstall

import (
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOptionsValidateNamesTheBadFlag(t *testing.T) {
	known := map[string]Part{"scheduler": {LeaderElection: true}, "exporter": {}}
	cases := []struct {
		name      string
		namespace string
		args      []string
		want      string
	}{
		{"from the pod's namespace", "seedscaler-system", []string{"--selector=app.kubernetes.io/instance=seedscaler", "--parts=scheduler,exporter"}, ""},
		{"no namespace", "", []string{"--selector=app=x"}, "--namespace is required"},
		{"no selector", "seedscaler-system", nil, "--selector is required"},
		{"a blank selector", "seedscaler-system", []string{"--selector= "}, "--selector is required"},
		{"a bad selector", "seedscaler-system", []string{"--selector=app in (x"}, "--selector:"},
		{"zero timeout", "seedscaler-system", []string{"--selector=app=x", "--timeout=0s"}, "--timeout must be positive"},
		{"unknown part", "seedscaler-system", []string{"--selector=app=x", "--parts=scheduler,webhook"}, `--parts: unknown part "webhook"; the parts are exporter, scheduler`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("POD_NAMESPACE", c.namespace)
			o := NewOptions(known)
			fs := pflag.NewFlagSet("prepare-uninstall", pflag.ContinueOnError)
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
