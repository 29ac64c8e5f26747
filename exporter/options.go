package exporter

import (
	"github.com/spf13/pflag"

	"github.com/seedscaler/seedscaler/internal/app"
)

// Options are the flags of `seedscaler exporter`. Replicas are
// stateless and each serves the same series, so --leader-elect is accepted for uniformity
// with the other parts but ignored.
type Options struct {
	app.Options
	// SeedAutoscalers watches SeedAutoscalers and exports their series; false where the
	// cluster serves no SeedAutoscaler kind (autoscaling.seedscaler.io not installed).
	SeedAutoscalers bool
	// ShootInfo serves garden_shoot_info; false leaves every tenant's shoots out of what
	// a scraper learns.
	ShootInfo bool
}

// NewOptions returns the defaults.
func NewOptions() *Options { return &Options{SeedAutoscalers: true, ShootInfo: true} }

// AddFlags registers the exporter's flags: /metrics on :8086, probes on :8087.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.Options.AddFlags(fs, 8086, 8087)
	fs.BoolVar(&o.SeedAutoscalers, "seedautoscalers", o.SeedAutoscalers,
		"watch SeedAutoscalers and export their series; false where the cluster serves no SeedAutoscaler kind (autoscaling.seedscaler.io)")
	fs.BoolVar(&o.ShootInfo, "shoot-info", o.ShootInfo, "Serve garden_shoot_info, one series per shoot naming its project namespace, seed, provider, region and purpose. "+
		"Off: whoever scrapes the exporter learns no tenant's shoots; no shipped dashboard or alert reads it.")
}

// Validate checks the flags.
func (o *Options) Validate() error {
	return o.Options.Validate()
}
