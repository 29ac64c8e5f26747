// Package scheduler is the scheduler part as `seedscaler scheduler` runs it: its flags and
// Run, which binds unscheduled shoots to seeds with the controller of scheduler/controller.
package scheduler

import (
	"github.com/spf13/pflag"

	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/scheduler/admission"
)

// Options are the flags of `seedscaler scheduler`.
type Options struct {
	app.Options
	// ConfigPath is the scheduler configuration file (docs/scheduler.md); the defaults when
	// empty.
	ConfigPath string
	// Webhook serves the check of manual bindings (docs/security.md).
	Webhook admission.Options
}

// NewOptions returns the defaults.
func NewOptions() *Options { return &Options{} }

// AddFlags registers the scheduler's flags: /metrics on :8080, probes on :8081.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.Options.AddFlags(fs, 8080, 8081)
	fs.StringVar(&o.ConfigPath, "config", "", "Path of the scheduler configuration file (docs/scheduler.md); defaults when empty.")
	o.Webhook.AddFlags(fs)
}

// Validate checks the flags; Run checks the configuration file.
func (o *Options) Validate() error {
	if err := o.Options.Validate(); err != nil {
		return err
	}
	return o.Webhook.Validate()
}
