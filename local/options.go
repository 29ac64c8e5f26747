package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"
)

// NewOptions returns the defaults of `seedscaler local`: a simulated day in 6 minutes.
func NewOptions() *Options {
	return &Options{
		Duration: 6 * time.Minute,
		Speed:    240,
		Profile:  "examples/config/demo-day.yaml",
		Interval: 2 * time.Second,
		Image:    "bin/seedscaler-image.tar",
	}
}

// AddFlags registers the flags of `seedscaler local`.
func (o *Options) AddFlags(f *pflag.FlagSet) {
	f.DurationVar(&o.Duration, "duration", o.Duration, "How long the simulated demand runs, in wall time.")
	f.Float64Var(&o.Speed, "speed", o.Speed, "Simulated seconds per wall second: 240 plays a day in 6 minutes.")
	f.StringVar(&o.Profile, "profile", o.Profile, "Simulator configuration with the demand profile.")
	f.BoolVar(&o.Keep, "keep", o.Keep, "Leave the landscape running after the run, until Ctrl-C.")
	f.StringVar(&o.ReportDir, "report", o.ReportDir, "Report folder; report/<timestamp> when empty.")
	f.DurationVar(&o.Interval, "interval", o.Interval, "Interval of the live view's samples.")
	f.BoolVar(&o.Cluster, "cluster", o.Cluster, "Run the parts as the Helm chart's pods on a one-node cluster started on this machine (needs root).")
	f.StringVar(&o.Image, "image", o.Image, "With --cluster: the image tarball to install the chart from (`make image`).")
}

// Validate checks the flags of a run, naming the one to fix.
func (o *Options) Validate() error {
	var errs []error
	if o.Duration <= 0 {
		errs = append(errs, fmt.Errorf("--duration must be positive, e.g. --duration=6m, not %s", o.Duration))
	}
	if o.Speed <= 0 {
		errs = append(errs, fmt.Errorf("--speed must be positive, e.g. --speed=240 (a simulated day in 6 minutes), not %v", o.Speed))
	}
	if o.Interval <= 0 {
		errs = append(errs, fmt.Errorf("--interval must be positive, e.g. --interval=2s, not %s", o.Interval))
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
