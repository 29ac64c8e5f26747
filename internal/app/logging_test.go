package app

import (
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoggingFlags(t *testing.T) {
	l := NewLogging()
	fs := pflag.NewFlagSet("seedscaler", pflag.ContinueOnError)
	l.AddFlags(fs)
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	assert.ElementsMatch(t, []string{"logging-format", "v", "vmodule"}, names)
	assert.Equal(t, "text", fs.Lookup("logging-format").DefValue)
	assert.Equal(t, "v", fs.Lookup("v").Shorthand, "-v=2 must keep working")
}

func TestLoggingValidateNamesTheBadFlag(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"defaults", nil, ""},
		{"json", []string{"--logging-format=json", "-v=4"}, ""},
		{"text with vmodule", []string{"--vmodule=reconciler=4"}, ""},
		{"unknown format", []string{"--logging-format=logfmt"}, "--logging-format=logfmt is no log format: use text or json"},
		{"vmodule in json", []string{"--logging-format=json", "--vmodule=reconciler=4"}, "--vmodule works only with --logging-format=text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := NewLogging()
			fs := pflag.NewFlagSet("seedscaler", pflag.ContinueOnError)
			l.AddFlags(fs)
			require.NoError(t, fs.Parse(c.args))
			err := l.Validate()
			if c.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}
