package managedseedset

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/objectlock"
)

// Options are the flags of `seedscaler set-controller`.
type Options struct {
	app.Options
	Replicas objectlock.Replicas
	Config   Config
	// SeedManagementNamespaces limit the ControllerRevision cache, as the RBAC allows
	// (empty: all namespaces).
	SeedManagementNamespaces []string
}

// NewOptions returns the defaults.
func NewOptions() *Options { return &Options{Config: DefaultConfig()} }

// AddFlags registers the set controller's flags: /metrics on :8084, probes on :8085.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.Options.AddFlags(fs, 8084, 8085)
	o.Replicas.AddFlags(fs)
	fs.Int32Var(&o.Config.MaxShootRetries, "max-shoot-retries", o.Config.MaxShootRetries,
		"How often a replica's failed shoot is retried (gardener.cloud/operation=retry) before the set reports it and moves on.")
	fs.IntVar(&o.Config.ConcurrentSyncs, "concurrent-syncs", o.Config.ConcurrentSyncs, "Number of ManagedSeedSets reconciled at the same time.")
	fs.DurationVar(&o.Config.InFlightResync, "in-flight-resync", o.Config.InFlightResync,
		"How often a set with a replica in flight is looked at even without events; 0 disables it.")
	fs.StringSliceVar(&o.SeedManagementNamespaces, "seed-management-namespaces", nil,
		"Namespaces ManagedSeedSets live in: their ControllerRevisions are watched there only, as the RBAC allows, and shoots elsewhere (tenants') are cached only as far as counting them on seeds needs. Empty: every namespace, every shoot whole.")
}

// Validate checks the flags, naming the one to fix.
func (o *Options) Validate() error {
	errs := []error{o.Options.Validate()}
	if o.Config.MaxShootRetries < 0 {
		errs = append(errs, fmt.Errorf("--max-shoot-retries must not be negative, not %d", o.Config.MaxShootRetries))
	}
	if o.Config.ConcurrentSyncs < 1 {
		errs = append(errs, fmt.Errorf("--concurrent-syncs must be at least 1, not %d", o.Config.ConcurrentSyncs))
	}
	if o.Config.InFlightResync < 0 {
		errs = append(errs, fmt.Errorf("--in-flight-resync must not be negative, not %s; 0 disables it", o.Config.InFlightResync))
	}
	errs = append(errs, o.Replicas.Validate(o.LeaderElect))
	return errors.Join(errs...)
}
