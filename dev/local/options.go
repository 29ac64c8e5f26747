package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/seedscaler/seedscaler/dev/simulator"
)

// The built-in profiles of `seedscaler-dev local --profile`.
const (
	// ProfileDemo is the demo: examples/demo's set on examples/config/demo-day.yaml, a
	// simulated day in 6 minutes.
	ProfileDemo = "demo"
	// ProfileFleet is the fleet (simulator.FleetConfiguration): --fleet-seeds seeds in
	// ManagedSeedSets across three providers, measured (docs/performance.md).
	ProfileFleet = simulator.ProfileFleet
	demoDayFile  = "examples/config/demo-day.yaml"
)

// NewOptions returns the defaults of `seedscaler-dev local`: the demo, a simulated day in 6
// minutes. Duration and Speed left at 0 take the profile's.
func NewOptions() *Options {
	return &Options{
		Profile:        ProfileDemo,
		Interval:       2 * time.Second,
		Image:          "bin/seedscaler-image.tar",
		FleetSeeds:     1000,
		FleetScheduler: FleetSchedulerGardener,
	}
}

// AddFlags registers the flags of `seedscaler-dev local`.
func (o *Options) AddFlags(f *pflag.FlagSet) {
	f.DurationVar(&o.Duration, "duration", o.Duration, "How long the simulated demand runs, in wall time (default: the profile's, 6m for demo, 20m for fleet).")
	f.Float64Var(&o.Speed, "speed", o.Speed, "Simulated seconds per wall second (default: the profile's, 240 for demo, a day in 6 minutes; 120 for fleet).")
	f.StringVar(&o.Profile, "profile", o.Profile, "demo (examples/demo on examples/config/demo-day.yaml), fleet (--fleet-seeds seeds across three providers, measured into a report), or a simulator configuration file for the demo's landscape.")
	f.StringVar(&o.PartsBinary, "parts-binary", o.PartsBinary, "The seedscaler binary the parts run as (e.g. the image's, bin/seedscaler-linux-amd64); when empty, seedscaler beside this binary. The simulator always runs as this one.")
	f.IntVar(&o.FleetSeeds, "fleet-seeds", o.FleetSeeds, "With --profile fleet: the seeds of the fleet, 100 tenant shoots each at the demand's peak.")
	f.BoolVar(&o.Keep, "keep", o.Keep, "Leave the landscape running after the run, until Ctrl-C.")
	f.StringVar(&o.ReportDir, "report", o.ReportDir, "Report folder; report/<timestamp> when empty.")
	f.DurationVar(&o.Interval, "interval", o.Interval, "Interval of the live view's samples.")
	f.BoolVar(&o.Cluster, "cluster", o.Cluster, "Run the parts as the Helm chart's pods on a one-node cluster started on this machine (needs root).")
	f.StringVar(&o.Image, "image", o.Image, "With --cluster: the image tarball to install the chart from (`make image`).")
	f.StringVar(&o.FleetScheduler, "fleet-scheduler", o.FleetScheduler, "With --profile fleet --gardener: who binds the tenants, gardener-scheduler or seedscaler (the tenants name seedscaler's scheduler, and gardener-apiserver judges its bindings).")
	f.BoolVar(&o.Gardener, "gardener", o.Gardener, "Run in a real Gardener garden: gardener-apiserver, gardener-scheduler and gardener-controller-manager beside the parts, as the chart runs beside Gardener; the demo's landscape is examples/gardener/demo, the fleet's the same objects per set and region.")
}

// Validate checks the flags of a run, naming the one to fix.
func (o *Options) Validate() error {
	var errs []error
	if o.Duration < 0 {
		errs = append(errs, fmt.Errorf("--duration must be positive, e.g. --duration=6m, not %s", o.Duration))
	}
	if o.Speed < 0 {
		errs = append(errs, fmt.Errorf("--speed must be positive, e.g. --speed=240 (a simulated day in 6 minutes), not %v", o.Speed))
	}
	if o.Profile == ProfileFleet && o.FleetSeeds < 1 {
		errs = append(errs, fmt.Errorf("--fleet-seeds must be at least 1, e.g. --fleet-seeds=1000, not %d", o.FleetSeeds))
	}
	if o.Profile == ProfileFleet && o.Cluster {
		errs = append(errs, errors.New("--profile fleet runs the parts as processes, to measure each; it does not run with --cluster"))
	}
	if o.Interval <= 0 {
		errs = append(errs, fmt.Errorf("--interval must be positive, e.g. --interval=2s, not %s", o.Interval))
	}
	switch o.FleetScheduler {
	case "", FleetSchedulerGardener: // the default
	case FleetSchedulerSeedscaler:
		if !o.Gardener || o.Profile != ProfileFleet {
			errs = append(errs, errors.New("--fleet-scheduler=seedscaler needs --profile fleet --gardener: without a garden seedscaler's scheduler binds the fleet anyway"))
		}
	default:
		errs = append(errs, fmt.Errorf("--fleet-scheduler must be %s or %s, not %q", FleetSchedulerGardener, FleetSchedulerSeedscaler, o.FleetScheduler))
	}
	if o.Gardener && o.Cluster {
		errs = append(errs, errors.New("--gardener runs the parts as processes beside Gardener's; it does not run with --cluster"))
	}
	if o.Cluster && o.Image == "" {
		errs = append(errs, errors.New("--cluster needs --image: the image tarball `make image` writes, bin/seedscaler-image.tar"))
	}
	return errors.Join(errs...)
}

// complete fills what a run needs and the flags leave empty: the report folder
// report/<timestamp>, and standard output as the live view, redrawn in place on a
// terminal.
func (o *Options) complete() {
	fleet := o.Profile == ProfileFleet
	if o.Duration == 0 {
		o.Duration = map[bool]time.Duration{false: 6 * time.Minute, true: 20 * time.Minute}[fleet]
	}
	if o.Speed == 0 {
		o.Speed = map[bool]float64{false: 240, true: simulator.FleetSpeed}[fleet]
	}
	if o.ReportDir == "" {
		o.ReportDir = filepath.Join("report", time.Now().Format("20060102-150405"))
	}
	if o.Out == nil {
		o.Out = os.Stdout
		if fi, err := os.Stdout.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			o.Interactive = true
		}
	}
}
