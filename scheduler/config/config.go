// Package config is the scheduler's versioned configuration file: its types, defaults,
// validation and loading, so that a bad file stops the scheduler with the field and the fix.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/fielderrors"
	"github.com/seedscaler/seedscaler/internal/yamltext"
)

// APIVersion and Kind identify the configuration file format.
const (
	APIVersion = "scheduler.seedscaler.io/v1alpha1"
	Kind       = "SchedulerConfiguration"
)

// Strategy decides which seeds are candidates by region (Gardener's
// candidateDeterminationStrategy).
type Strategy string

const (
	// SameRegion keeps seeds of the shoot's provider in the shoot's region.
	SameRegion Strategy = "SameRegion"
	// MinimalDistance keeps the seeds closest to the shoot's region: distances from a
	// region-config ConfigMap, else the Levenshtein fallback.
	MinimalDistance Strategy = "MinimalDistance"
)

// Binding is how the scheduler sets a shoot's spec.seedName.
type Binding string

const (
	// PatchBinding patches spec.seedName on the shoot: what the Shoot CRD serves.
	PatchBinding Binding = "Patch"
	// SubresourceBinding updates the shoot through its shoots/binding subresource, as
	// gardener-scheduler does: gardener-apiserver refuses a spec.seedName set any other way.
	SubresourceBinding Binding = "Subresource"
)

// ScorePluginName names a plugin of the weighted scoring stage.
type ScorePluginName string

const (
	// MinimalDistancePlugin prefers seeds close to the shoot's region.
	MinimalDistancePlugin ScorePluginName = "MinimalDistance"
	// SeedResourcesLeastAllocatedPlugin prefers the emptiest seeds (spread).
	SeedResourcesLeastAllocatedPlugin ScorePluginName = "SeedResourcesLeastAllocated"
	// SeedResourcesMostAllocatedPlugin prefers the fullest seeds (pack), so that the
	// autoscaler finds empty seeds to scale in.
	SeedResourcesMostAllocatedPlugin ScorePluginName = "SeedResourcesMostAllocated"
)

// ScorePluginNames lists every score plugin, for validation messages.
var scorePluginNames = []ScorePluginName{MinimalDistancePlugin, SeedResourcesLeastAllocatedPlugin, SeedResourcesMostAllocatedPlugin}

// Defaults.
const (
	DefaultSchedulerName         = gardencorev1beta1.DefaultSchedulerName
	DefaultRegionConfigNamespace = "garden"
	DefaultWorkers               = 8
	DefaultBackoffBaseSeconds    = 1
	DefaultBackoffMaxSeconds     = 300
	DefaultSeedCapacity          = 250
	// DefaultMaxMigrationsPerSeed and DefaultMaxMigrationsPerSet bound the control plane
	// migrations a drain has in flight.
	DefaultMaxMigrationsPerSeed = 2
	DefaultMaxMigrationsPerSet  = 4
	// DefaultFailedMigrationCooldownSeconds is how long a drain leaves a shoot alone after
	// its migration failed and was rolled back.
	DefaultFailedMigrationCooldownSeconds = 600
	maxWeight                             = 100
	maxWorkers                            = 256
)

// SchedulerConfiguration is the scheduler's configuration file.
type SchedulerConfiguration struct {
	// apiVersion is scheduler.seedscaler.io/v1alpha1.
	APIVersion string `json:"apiVersion"`
	// kind is SchedulerConfiguration.
	Kind string `json:"kind"`
	// schedulerName is the spec.schedulerName of the shoots this scheduler binds. Shoots
	// without one belong to default-scheduler.
	SchedulerName string `json:"schedulerName,omitempty"`
	// binding is Patch (default), for shoots served by the Shoot CRD, or Subresource, for
	// shoots served by gardener-apiserver.
	Binding Binding `json:"binding,omitempty"`
	// strategy is SameRegion (default) or MinimalDistance.
	Strategy Strategy `json:"strategy,omitempty"`
	// regionConfigNamespace holds the region-config ConfigMaps of MinimalDistance.
	RegionConfigNamespace string `json:"regionConfigNamespace,omitempty"`
	// scoring is the weighted scoring stage. Without plugins (default) the winner is
	// Gardener's: the candidate with the fewest shoots, ties by name.
	Scoring *Scoring `json:"scoring,omitempty"`
	// workers is the number of shoots scheduled concurrently.
	Workers int32 `json:"workers,omitempty"`
	// backoff of retries of shoots that fit no seed.
	Backoff *Backoff `json:"backoff,omitempty"`
	// defaultSeedCapacity is the shoots a new replica of a ManagedSeedSet takes when
	// neither the set's capacity annotation nor its gardenlet resources say.
	DefaultSeedCapacity int32 `json:"defaultSeedCapacity,omitempty"`
	// pendingFit chooses which unschedulable shoots the pending-fit signal counts.
	PendingFit *PendingFit `json:"pendingFit,omitempty"`
	// drain bounds how fast drained seeds are emptied.
	Drain *Drain `json:"drain,omitempty"`
}

// PendingFit chooses which unschedulable shoots count in the pending-fit signal (the
// scale-out signal of the SeedAutoscaler). This scheduler's own always do.
type PendingFit struct {
	// otherSchedulers counts the unbound shoots of other schedulers too (default true), once
	// their scheduler reported them unschedulable in status.lastOperation as
	// gardener-scheduler does. This scheduler never binds them.
	OtherSchedulers *bool `json:"otherSchedulers,omitempty"`
}

// Drain is the disruption budget of draining seeds: control plane migrations in flight at
// once, out of one seed and out of the seeds of one ManagedSeedSet.
type Drain struct {
	// maxMigrationsPerSeed is the most migrations out of one drained seed at once.
	MaxMigrationsPerSeed int32 `json:"maxMigrationsPerSeed,omitempty"`
	// maxMigrationsPerSet is the most migrations out of the seeds of one ManagedSeedSet at once.
	MaxMigrationsPerSet int32 `json:"maxMigrationsPerSet,omitempty"`
	// failedMigrationCooldownSeconds is how long a shoot whose migration failed (and was
	// rolled back) is left where it is before a drain tries to move it again.
	FailedMigrationCooldownSeconds int32 `json:"failedMigrationCooldownSeconds,omitempty"`
}

// Scoring configures the weighted scoring stage.
type Scoring struct {
	// plugins and their weights; each plugin scores a seed 0..100.
	Plugins []ScorePlugin `json:"plugins,omitempty"`
}

// ScorePlugin is a score plugin with its weight.
type ScorePlugin struct {
	// name of the plugin.
	Name ScorePluginName `json:"name"`
	// weight of the plugin's score in the sum, 1..100.
	Weight int32 `json:"weight"`
}

// Backoff is an exponential backoff: baseSeconds doubled on every failure, up to maxSeconds.
type Backoff struct {
	// baseSeconds is the delay after the first failure.
	BaseSeconds int32 `json:"baseSeconds,omitempty"`
	// maxSeconds caps the delay.
	MaxSeconds int32 `json:"maxSeconds,omitempty"`
}

// Default fills in what the file leaves out.
func Default(c *SchedulerConfiguration) {
	if c.APIVersion == "" {
		c.APIVersion = APIVersion
	}
	if c.Kind == "" {
		c.Kind = Kind
	}
	if c.SchedulerName == "" {
		c.SchedulerName = DefaultSchedulerName
	}
	if c.Binding == "" {
		c.Binding = PatchBinding
	}
	if c.Strategy == "" {
		c.Strategy = SameRegion
	}
	if c.RegionConfigNamespace == "" {
		c.RegionConfigNamespace = DefaultRegionConfigNamespace
	}
	if c.Scoring == nil {
		c.Scoring = &Scoring{}
	}
	if len(c.Scoring.Plugins) == 0 {
		// `plugins: []` and no plugins mean the same: Gardener's profile.
		c.Scoring.Plugins = nil
	}
	if c.Workers == 0 {
		c.Workers = DefaultWorkers
	}
	if c.Backoff == nil {
		c.Backoff = &Backoff{}
	}
	if c.Backoff.BaseSeconds == 0 {
		c.Backoff.BaseSeconds = DefaultBackoffBaseSeconds
	}
	if c.Backoff.MaxSeconds == 0 {
		c.Backoff.MaxSeconds = DefaultBackoffMaxSeconds
	}
	if c.DefaultSeedCapacity == 0 {
		c.DefaultSeedCapacity = DefaultSeedCapacity
	}
	if c.PendingFit == nil {
		c.PendingFit = &PendingFit{}
	}
	if c.PendingFit.OtherSchedulers == nil {
		c.PendingFit.OtherSchedulers = ptr.To(true)
	}
	if c.Drain == nil {
		c.Drain = &Drain{}
	}
	if c.Drain.MaxMigrationsPerSeed == 0 {
		c.Drain.MaxMigrationsPerSeed = DefaultMaxMigrationsPerSeed
	}
	if c.Drain.MaxMigrationsPerSet == 0 {
		c.Drain.MaxMigrationsPerSet = DefaultMaxMigrationsPerSet
	}
	if c.Drain.FailedMigrationCooldownSeconds == 0 {
		c.Drain.FailedMigrationCooldownSeconds = DefaultFailedMigrationCooldownSeconds
	}
}

// Validate returns every problem of a defaulted configuration, one a line, each starting
// with the path of its field (`scoring.plugins[1].name: Duplicate value: ...`).
func Validate(c *SchedulerConfiguration) error {
	return fielderrors.Join(validate(c))
}

// validate lists every problem of a defaulted configuration with its field and the fix.
func validate(c *SchedulerConfiguration) field.ErrorList {
	var errs field.ErrorList
	if c.APIVersion != APIVersion {
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), c.APIVersion, []string{APIVersion}))
	}
	if c.Kind != Kind {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), c.Kind, []string{Kind}))
	}
	if strings.TrimSpace(c.SchedulerName) != c.SchedulerName || len(c.SchedulerName) > 253 {
		errs = append(errs, field.Invalid(field.NewPath("schedulerName"), c.SchedulerName, "must be a name of at most 253 characters without surrounding spaces"))
	}
	if c.Binding != PatchBinding && c.Binding != SubresourceBinding {
		unsupported := field.NotSupported(field.NewPath("binding"), c.Binding, []Binding{PatchBinding, SubresourceBinding})
		// Which one is a matter of who serves the shoots; the list alone does not say.
		unsupported.Detail += fmt.Sprintf(" (%s for the Shoot CRD, %s for gardener-apiserver)", PatchBinding, SubresourceBinding)
		errs = append(errs, unsupported)
	}
	if c.Strategy != SameRegion && c.Strategy != MinimalDistance {
		errs = append(errs, field.NotSupported(field.NewPath("strategy"), c.Strategy, []Strategy{SameRegion, MinimalDistance}))
	}
	seen := map[ScorePluginName]bool{}
	for i, p := range c.Scoring.Plugins {
		path := field.NewPath("scoring", "plugins").Index(i)
		if !known(p.Name) {
			errs = append(errs, field.NotSupported(path.Child("name"), p.Name, scorePluginNames))
		}
		if seen[p.Name] {
			duplicate := field.Duplicate(path.Child("name"), p.Name)
			duplicate.Detail = "list each plugin once"
			errs = append(errs, duplicate)
		}
		seen[p.Name] = true
		if p.Weight < 1 || p.Weight > maxWeight {
			errs = append(errs, field.Invalid(path.Child("weight"), p.Weight, fmt.Sprintf("out of range, use 1 to %d", maxWeight)))
		}
	}
	if c.Workers < 1 || c.Workers > maxWorkers {
		errs = append(errs, field.Invalid(field.NewPath("workers"), c.Workers, fmt.Sprintf("out of range, use 1 to %d", maxWorkers)))
	}
	backoff := field.NewPath("backoff")
	if c.Backoff.BaseSeconds < 1 {
		errs = append(errs, field.Invalid(backoff.Child("baseSeconds"), c.Backoff.BaseSeconds, "must be at least 1"))
	}
	if c.Backoff.MaxSeconds < c.Backoff.BaseSeconds {
		errs = append(errs, field.Invalid(backoff.Child("maxSeconds"), c.Backoff.MaxSeconds,
			fmt.Sprintf("below backoff.baseSeconds %d, make it at least the base", c.Backoff.BaseSeconds)))
	}
	if c.DefaultSeedCapacity < 0 {
		errs = append(errs, field.Invalid(field.NewPath("defaultSeedCapacity"), c.DefaultSeedCapacity, "must not be negative"))
	}
	drain := field.NewPath("drain")
	if c.Drain.MaxMigrationsPerSeed < 1 {
		errs = append(errs, field.Invalid(drain.Child("maxMigrationsPerSeed"), c.Drain.MaxMigrationsPerSeed, "must be at least 1"))
	}
	if c.Drain.MaxMigrationsPerSet < c.Drain.MaxMigrationsPerSeed {
		errs = append(errs, field.Invalid(drain.Child("maxMigrationsPerSet"), c.Drain.MaxMigrationsPerSet,
			fmt.Sprintf("below drain.maxMigrationsPerSeed %d, make it at least that", c.Drain.MaxMigrationsPerSeed)))
	}
	if c.Drain.FailedMigrationCooldownSeconds < 0 {
		errs = append(errs, field.Invalid(drain.Child("failedMigrationCooldownSeconds"), c.Drain.FailedMigrationCooldownSeconds, "must not be negative"))
	}
	return errs
}

func known(name ScorePluginName) bool {
	for _, n := range scorePluginNames {
		if n == name {
			return true
		}
	}
	return false
}

// Parse decodes a configuration file strictly (unknown fields are errors), defaults and
// validates it.
func Parse(data []byte) (*SchedulerConfiguration, error) {
	c := &SchedulerConfiguration{}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yamltext.Check(data); err != nil {
			return nil, fmt.Errorf("decoding the scheduler configuration: %w", err)
		}
		if err := yaml.UnmarshalStrict(data, c); err != nil {
			err = yamltext.Locate(data, err, func(part []byte) error { return yaml.UnmarshalStrict(part, &SchedulerConfiguration{}) })
			return nil, fmt.Errorf("decoding the scheduler configuration: %w", decodeError(err))
		}
	}
	Default(c)
	if err := Validate(c); err != nil {
		return nil, fmt.Errorf("invalid scheduler configuration: %w", err)
	}
	return c, nil
}

// decodeError names the field a value of the wrong type was given for and what it takes
// (`pendingFit.otherSchedulers: Invalid value: a string is given, use true or false`)
// instead of the JSON decoder's Go type names; other errors pass unchanged.
func decodeError(err error) error {
	var typeErr *json.UnmarshalTypeError
	if !errors.As(err, &typeErr) || typeErr.Type == nil {
		return err
	}
	if typeErr.Field == "" {
		// The document itself is no mapping: a list, a string or a number.
		return fmt.Errorf("the file is %s, not a mapping of fields such as apiVersion: %s", withArticle(typeErr.Value), APIVersion)
	}
	want := "a " + typeErr.Type.String()
	switch typeErr.Type.Kind() {
	case reflect.Bool:
		want = "true or false"
	case reflect.Int, reflect.Int32, reflect.Int64:
		want = "a whole number"
	case reflect.String:
		want = "a string"
	case reflect.Struct:
		want = "a mapping of its fields"
	case reflect.Slice:
		want = "a list"
	}
	// The decoder names the field by its dotted path, without list indices, and the value
	// by its JSON type only ("string", "number 1.5"): that is what the error can tell.
	parts := strings.Split(typeErr.Field, ".")
	return field.TypeInvalid(field.NewPath(parts[0], parts[1:]...), field.OmitValueType{},
		fmt.Sprintf("%s is given, use %s", withArticle(typeErr.Value), want))
}

// withArticle puts "a" or "an" before the JSON decoder's name of a value: "an array",
// "a number 1.5".
func withArticle(value string) string {
	if strings.IndexAny(value[:min(1, len(value))], "aeiou") == 0 {
		return "an " + value
	}
	return "a " + value
}

// Load reads, defaults and validates the configuration file at path; an empty path gives
// the defaults.
func Load(path string) (*SchedulerConfiguration, error) {
	if path == "" {
		return Parse(nil)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the scheduler configuration %s: %w", path, err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// BackoffBase is the delay after the first failure.
func (c *SchedulerConfiguration) BackoffBase() time.Duration {
	return time.Duration(c.Backoff.BaseSeconds) * time.Second
}

// PendingFitOfOtherSchedulers says whether pending-fit counts the shoots other schedulers
// reported unschedulable.
func (c *SchedulerConfiguration) PendingFitOfOtherSchedulers() bool {
	return *c.PendingFit.OtherSchedulers
}

// BackoffMax caps the delay between retries.
func (c *SchedulerConfiguration) BackoffMax() time.Duration {
	return time.Duration(c.Backoff.MaxSeconds) * time.Second
}
