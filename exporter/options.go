package exporter

import (
	"github.com/spf13/pflag"

	"github.com/seedscaler/seedscaler/internal/app"
)

// Options are the flags of `seedscaler exporter`: the common ones only. Replicas are
// stateless and each serves the same series, so --leader-elect is accepted for uniformity
// with the other parts but ignored.
type Options struct {
	app.Options
}

// NewOptions returns the defaults.
func NewOptions() *Options { return &Options{} }

// AddFlags registers the exporter's flags: /metrics on :8086, probes on :8087.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.Options.AddFlags(fs, 8086, 8087)
}

// Validate checks the flags.
func (o *Options) Validate() error {
	return o.Options.Validate()
}
