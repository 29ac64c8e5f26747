package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOptionsValidateNamesTheFlagAndTheFix(t *testing.T) {
	const user = "system:serviceaccount:seedscaler-system:seedscaler-scheduler"
	cases := []struct {
		name string
		opts Options
		want []string // empty: valid
	}{
		{"off", Options{}, nil},
		{"off ignores the rest", Options{SchedulerUsername: " padded "}, nil},
		{"served", Options{Port: 9443, CertDir: "/tls", SchedulerUsername: user}, nil},
		{"no port", Options{Port: 70000, CertDir: "/tls", SchedulerUsername: user}, []string{"--webhook-port=70000 is not a port: give 1 to 65535, or 0"}},
		{"no certificate", Options{Port: 9443, SchedulerUsername: user}, []string{"--webhook-cert-dir is empty: name the directory that holds the webhook's tls.crt and tls.key"}},
		{"no scheduler user", Options{Port: 9443, CertDir: "/tls"}, []string{"--webhook-scheduler-username is empty: give the scheduler's own user"}},
		{"padded scheduler user", Options{Port: 9443, CertDir: "/tls", SchedulerUsername: user + " "}, []string{"has surrounding spaces"}},
		{"every mistake at once", Options{Port: -1}, []string{"--webhook-port=-1", "--webhook-cert-dir", "--webhook-scheduler-username"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.opts.Validate()
			if len(c.want) == 0 {
				assert.NoError(t, err)
				return
			}
			for _, want := range c.want {
				assert.ErrorContains(t, err, want)
			}
		})
	}
}
