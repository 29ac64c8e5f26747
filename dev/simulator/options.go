package simulator

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/seedscaler/seedscaler/internal/app"
)

// Options are the flags of `seedscaler-dev simulate`.
type Options struct {
	app.Options
	// ConfigPath is the SimulatorConfiguration file; empty means the defaults with no
	// tenant demand.
	ConfigPath string
	// Profile is a built-in configuration instead of ConfigPath: "fleet" (FleetConfiguration
	// of FleetSeeds seeds).
	Profile    string
	FleetSeeds int
	// TenantScheduler overrides the demand's schedulerName when set.
	TenantScheduler string
	// Speed, Duration and RandomSeed override the file's values when set.
	Speed      *float64
	Duration   *time.Duration
	RandomSeed *uint64
	// Timeline is where the timeline CSV goes at the end: a file, - for Out, empty for
	// nowhere.
	Timeline string
	// Out receives the progress lines, and the timeline with Timeline -; standard output
	// when nil.
	Out io.Writer
}

// NewOptions returns the defaults.
func NewOptions() *Options { return &Options{Timeline: "-", FleetSeeds: 1000} }

// AddFlags registers the simulator's flags: /metrics on :8088, probes on :8089.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.Options.AddFlags(fs, 8088, 8089)
	fs.StringVar(&o.ConfigPath, "config", o.ConfigPath, "SimulatorConfiguration file (examples/config/simulator.yaml). Empty: the defaults, no tenant demand (shoots and gardenlets are still played).")
	fs.StringVar(&o.Profile, "profile", o.Profile, "A built-in configuration instead of --config: fleet (--fleet-seeds seeds in ManagedSeedSets of 10 across 24 regions of three providers, 100 tenant shoots a seed; the landscape itself comes from `seedscaler-dev local --profile fleet`).")
	fs.IntVar(&o.FleetSeeds, "fleet-seeds", o.FleetSeeds, "With --profile fleet: the seeds of the fleet (its tenant demand is 100 shoots a seed).")
	fs.StringVar(&o.TenantScheduler, "tenant-scheduler", o.TenantScheduler, "The scheduler every tenant shoot names (spec.schedulerName), e.g. seedscaler-scheduler; overrides the file's demand.schedulerName (default: the file's, else the garden's default scheduler).")
	fs.Var(&override[float64]{&o.Speed, "float64", parseFloat, formatFloat}, "speed", "Simulated seconds per wall-clock second; overrides the file's speed (default: the file's, else 1).")
	fs.Var(&override[time.Duration]{&o.Duration, "duration", time.ParseDuration, time.Duration.String}, "duration", "Simulated time to run, 0 until stopped; overrides the file's duration.")
	fs.Var(&override[uint64]{&o.RandomSeed, "uint64", parseUint, formatUint}, "seed", "Seed of every random draw; overrides the file's randomSeed (default: the file's, else 1).")
	fs.StringVar(&o.Timeline, "timeline", o.Timeline, "Where the timeline CSV goes at the end: a file, - for standard output after the progress lines, empty for nowhere.")
}

// Validate checks the flags, naming the one to fix; Run checks the configuration file with
// them.
func (o *Options) Validate() error {
	errs := []error{o.Options.Validate()}
	if o.Speed != nil && *o.Speed <= 0 {
		errs = append(errs, fmt.Errorf("--speed must be positive, such as 240 (a day in 6 minutes), not %v", *o.Speed))
	}
	if o.Profile != "" && o.Profile != ProfileFleet {
		errs = append(errs, fmt.Errorf("--profile must be %s (or empty, with --config), not %q", ProfileFleet, o.Profile))
	}
	if o.Profile != "" && o.ConfigPath != "" {
		errs = append(errs, fmt.Errorf("--profile %s and --config %s both name a configuration: give one", o.Profile, o.ConfigPath))
	}
	if o.FleetSeeds < 1 {
		errs = append(errs, fmt.Errorf("--fleet-seeds must be at least 1, such as 1000, not %d", o.FleetSeeds))
	}
	if o.Duration != nil && *o.Duration < 0 {
		errs = append(errs, fmt.Errorf("--duration must not be negative, not %s; 0 runs until stopped", *o.Duration))
	}
	return errors.Join(errs...)
}

// Configuration reads the configuration file, or the defaults, with the flags' overrides,
// and validates it.
func (o *Options) Configuration() (*Configuration, error) {
	cfg := &Configuration{}
	if o.Profile == ProfileFleet {
		cfg = FleetConfiguration(o.FleetSeeds)
	} else if o.ConfigPath != "" {
		var err error
		if cfg, err = LoadConfiguration(o.ConfigPath); err != nil {
			return nil, err
		}
	} else {
		cfg.Demand.Constant = &ConstantProfile{}
		SetDefaults(cfg)
	}
	if o.Speed != nil {
		cfg.Speed = *o.Speed
		if o.Profile == ProfileFleet {
			// The garden's grace period for a heartbeat is wall-clock time.
			cfg.Gardenlets.HeartbeatInterval.Duration = FleetHeartbeatInterval(cfg.Speed)
		}
	}
	if o.Duration != nil {
		cfg.Duration.Duration = *o.Duration
	}
	if o.RandomSeed != nil {
		cfg.RandomSeed = o.RandomSeed
	}
	if o.TenantScheduler != "" {
		cfg.Demand.SchedulerName = o.TenantScheduler
	}
	if err := Validate(cfg); err != nil {
		return nil, fmt.Errorf("simulator configuration: %w", err)
	}
	return cfg, nil
}

// override is a flag that sets *target only when given: a value of the configuration
// file that the flag overrides.
type override[T any] struct {
	target **T
	typ    string
	parse  func(string) (T, error)
	format func(T) string
}

func (v *override[T]) Set(s string) error {
	x, err := v.parse(s)
	if err != nil {
		return err
	}
	*v.target = &x
	return nil
}

func (v *override[T]) String() string {
	if *v.target == nil {
		return "0"
	}
	return v.format(**v.target)
}

func (v *override[T]) Type() string { return v.typ }

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
func formatFloat(f float64) string         { return strconv.FormatFloat(f, 'g', -1, 64) }
func parseUint(s string) (uint64, error)   { return strconv.ParseUint(s, 0, 64) }
func formatUint(u uint64) string           { return strconv.FormatUint(u, 10) }
