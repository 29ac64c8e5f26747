// Package seedcontroller is `seedscaler seed-controller`: the ManagedSeed controller, which
// registers the Seeds of ManagedSeeds with their capacity, and the seed lifecycle
// controller, which keeps every seed's GardenletReady condition and usage, in one manager.
package seedcontroller

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/objectlock"
	"github.com/seedscaler/seedscaler/seedmanagement/managedseed"
	"github.com/seedscaler/seedscaler/seedmanagement/seed"
)

// Options are the flags of `seedscaler seed-controller`.
type Options struct {
	app.Options
	Replicas objectlock.Replicas
	// DefaultSeedCapacity is the capacity of a seed whose ManagedSeed configures none: a
	// number of shoots, or name=quantity pairs.
	DefaultSeedCapacity string
	// HeartbeatGracePeriod is how long a heartbeat Lease counts as fresh.
	HeartbeatGracePeriod time.Duration
	// SeedManagementNamespaces are where ManagedSeeds live; the cache keeps shoots
	// elsewhere (tenants') only as far as counting them on seeds needs.
	SeedManagementNamespaces []string
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{
		DefaultSeedCapacity:  fmt.Sprint(managedseed.DefaultShootCapacity),
		HeartbeatGracePeriod: seed.DefaultHeartbeatGracePeriod,
	}
}

// AddFlags registers the seed controller's flags: /metrics on :8082, probes on :8083.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.Options.AddFlags(fs, 8082, 8083)
	o.Replicas.AddFlags(fs)
	fs.StringVar(&o.DefaultSeedCapacity, "default-seed-capacity", o.DefaultSeedCapacity,
		"Capacity of a seed whose ManagedSeed configures none (a seedTemplate, or a gardenlet config without resources): "+
			"a number of shoots, or name=quantity pairs such as shoots=250,persistent-volumes=200. It also fills resources a configuration lacks.")
	fs.DurationVar(&o.HeartbeatGracePeriod, "heartbeat-grace-period", o.HeartbeatGracePeriod,
		"How long after its last renewal a seed's heartbeat Lease counts as fresh; GardenletReady turns Unknown after it.")
	fs.StringSliceVar(&o.SeedManagementNamespaces, "seed-management-namespaces", nil,
		"Namespaces where ManagedSeeds live. Shoots elsewhere (tenants') are cached only as far as counting them on seeds needs; empty: every shoot whole.")
}

// Validate checks the flags, naming the one to fix.
func (o *Options) Validate() error {
	errs := []error{o.Options.Validate()}
	if _, err := managedseed.ParseDefaultCapacity(o.DefaultSeedCapacity); err != nil {
		errs = append(errs, fmt.Errorf("--default-seed-capacity: %w", err))
	}
	if o.HeartbeatGracePeriod <= 0 {
		errs = append(errs, fmt.Errorf("--heartbeat-grace-period must be positive, such as 40s, not %s", o.HeartbeatGracePeriod))
	}
	errs = append(errs, o.Replicas.Validate(o.LeaderElect))
	return errors.Join(errs...)
}
