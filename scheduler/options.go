// Package scheduler is the scheduler part as `seedscaler scheduler` runs it: its flags and
// Run, which binds unscheduled shoots to seeds with the controller of scheduler/controller.
package scheduler

import (
	"errors"
	"fmt"

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
	// EventQPS and EventBurst bound the requests of the event client, which is the binds'
	// client's sibling with a rate limit of its own.
	EventQPS   float32
	EventBurst int
}

// NewOptions returns the defaults.
func NewOptions() *Options { return &Options{} }

// AddFlags registers the scheduler's flags: /metrics on :8080, probes on :8081.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.Options.AddFlags(fs, 8080, 8081)
	fs.StringVar(&o.ConfigPath, "config", "", "Path of the scheduler configuration file (docs/scheduler.md); defaults when empty.")
	fs.Float32Var(&o.EventQPS, "kube-api-events-qps", app.DefaultEventQPS, "Requests per second of the event client to the kube-apiserver, apart from --kube-api-qps; negative for no limit.")
	fs.IntVar(&o.EventBurst, "kube-api-events-burst", app.DefaultEventBurst, "Burst of the event client's requests to the kube-apiserver, apart from --kube-api-burst.")
	o.Webhook.AddFlags(fs)
}

// Validate checks the flags; Run checks the configuration file.
func (o *Options) Validate() error {
	if err := o.Options.Validate(); err != nil {
		return err
	}
	if o.EventQPS == 0 {
		return errors.New("--kube-api-events-qps=0: want requests per second above 0, or below 0 for no limit")
	}
	if o.EventBurst < 1 {
		return fmt.Errorf("--kube-api-events-burst=%d: want at least 1", o.EventBurst)
	}
	return o.Webhook.Validate()
}
