package autoscaler

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/objectlock"
)

// Options are the flags of `seedscaler autoscaler`.
type Options struct {
	app.Options
	Replicas objectlock.Replicas
	// SyncPeriod is how often every SeedAutoscaler is evaluated.
	SyncPeriod time.Duration
	// MetricMaxAge is how old a metric sample may be and still count.
	MetricMaxAge time.Duration
	// DryRun records recommendations but never scales a target.
	DryRun bool
	// ReactToSamples evaluates a SeedAutoscaler as soon as its next sample can be visible.
	ReactToSamples bool
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{SyncPeriod: DefaultSyncPeriod, MetricMaxAge: DefaultMetricMaxAge, ReactToSamples: true}
}

// AddFlags registers the autoscaler's flags: /metrics on :8090, probes on :8091.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.Options.AddFlags(fs, 8090, 8091)
	o.Replicas.AddFlags(fs)
	fs.DurationVar(&o.SyncPeriod, "sync-period", o.SyncPeriod,
		"The longest a SeedAutoscaler goes unevaluated. Changes of an autoscaler, its target or the readiness of its seeds are evaluated at once, and with --react-to-samples each new metric sample as soon as it can be read.")
	fs.BoolVar(&o.ReactToSamples, "react-to-samples", o.ReactToSamples,
		"Evaluate each SeedAutoscaler again as soon as its next metric sample can be read (learned from the samples' times), not only every --sync-period.")
	fs.DurationVar(&o.MetricMaxAge, "metric-max-age", o.MetricMaxAge,
		"How old a metric sample may be and still count; older samples count as missing.")
	fs.BoolVar(&o.DryRun, "dry-run", o.DryRun,
		"Compute and record recommendations in status and events, but never scale a target.")
}

// Validate checks the flags, naming the one to fix.
func (o *Options) Validate() error {
	errs := []error{o.Options.Validate()}
	if o.SyncPeriod <= 0 {
		errs = append(errs, fmt.Errorf("--sync-period must be positive, such as 15s, not %s", o.SyncPeriod))
	}
	if o.MetricMaxAge <= 0 {
		errs = append(errs, fmt.Errorf("--metric-max-age must be positive, such as 5m, not %s", o.MetricMaxAge))
	}
	errs = append(errs, o.Replicas.Validate(o.LeaderElect))
	return errors.Join(errs...)
}
