package simulator

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/yamltext"
)

// The version and kind of the configuration file.
const (
	ConfigAPIVersion = "simulator.seedscaler.io/v1alpha1"
	ConfigKind       = "SimulatorConfiguration"
)

// Profile names a demand profile.
type Profile string

// The demand profiles.
const (
	ProfileConstant Profile = "constant"
	ProfileRamp     Profile = "ramp"
	ProfileStep     Profile = "step"
	ProfileSine     Profile = "sine"
	ProfileReplay   Profile = "replay"
)

// Profiles returns every demand profile.
func Profiles() []Profile {
	return []Profile{ProfileConstant, ProfileRamp, ProfileStep, ProfileSine, ProfileReplay}
}

// Distribution names a shoot lifetime distribution.
type Distribution string

// The lifetime distributions.
const (
	// DistributionForever: tenant shoots live until the demand falls below the count.
	DistributionForever     Distribution = "forever"
	DistributionExponential Distribution = "exponential"
	DistributionUniform     Distribution = "uniform"
)

// FaultType names a fault the simulator can inject.
type FaultType string

// The faults.
const (
	// FaultHeartbeat stops the gardenlet of a seed from renewing its heartbeat Lease.
	FaultHeartbeat FaultType = "heartbeat"
	// FaultBackup sets the BackupBucketsReady condition of a seed to False.
	FaultBackup FaultType = "backup"
)

// Configuration is the simulator's configuration file. Every duration is simulated time:
// the speed factor compresses it, except tick, which is wall-clock time.
type Configuration struct {
	metav1.TypeMeta `json:",inline"`
	// Speed is how many simulated seconds pass per wall-clock second. Default 1.
	Speed float64 `json:"speed,omitempty"`
	// Duration is how much simulated time a run lasts; 0 runs until stopped.
	Duration metav1.Duration `json:"duration,omitempty"`
	// RandomSeed seeds every random draw, so a run can be repeated. Default 1.
	RandomSeed *uint64 `json:"randomSeed,omitempty"`
	// Tick is the wall-clock time between two steps of the simulation. Default 1s.
	Tick metav1.Duration `json:"tick,omitempty"`
	// ProgressInterval is the simulated time between two progress lines and timeline
	// samples. Default 15m.
	ProgressInterval metav1.Duration `json:"progressInterval,omitempty"`
	// Writers is how many writes a step sends to the apiserver at once, 1 to 256. Default 1:
	// one after the other, in the order the random draws were made, so a run repeats
	// exactly. More fill a large landscape faster; the shoots' delays and outcomes are then
	// drawn in the order the writes finish.
	Writers int `json:"writers,omitempty"`
	// Shoots configures the infrastructure: how shoots are created and deleted.
	Shoots ShootsConfig `json:"shoots,omitempty"`
	// Gardenlets configures the seeds' gardenlets.
	Gardenlets GardenletsConfig `json:"gardenlets,omitempty"`
	// Faults are injected at a simulated time for a while.
	Faults []Fault `json:"faults,omitempty"`
	// Demand is what the tenants ask for.
	Demand DemandConfig `json:"demand"`
}

// ShootsConfig configures how the simulated infrastructure creates and deletes shoots.
type ShootsConfig struct {
	// CreateDelay is how long a bound shoot is Processing before it succeeds or fails. Default 5m.
	CreateDelay metav1.Duration `json:"createDelay,omitempty"`
	// Jitter varies every delay by up to this fraction either way (0.2: ±20%). Default 0.2.
	Jitter *float64 `json:"jitter,omitempty"`
	// DeleteDelay is how long a deleted shoot takes to disappear. Default 2m.
	DeleteDelay metav1.Duration `json:"deleteDelay,omitempty"`
	// FailureRate is the fraction of creations that fail (state Failed). Default 0.
	FailureRate float64 `json:"failureRate,omitempty"`
	// MigrateDelay is how long a control plane migration (spec.seedName changed on a
	// running shoot) is Processing before it succeeds or fails. Default 10m.
	MigrateDelay metav1.Duration `json:"migrateDelay,omitempty"`
	// MigrationFailureRate is the fraction of migrations that fail (Migrate Failed, the
	// control plane still on its old seed). Default 0.
	MigrationFailureRate float64 `json:"migrationFailureRate,omitempty"`
}

// GardenletsConfig configures the simulated gardenlets.
type GardenletsConfig struct {
	// HeartbeatInterval is how often a gardenlet renews its seed's heartbeat Lease. Default 10s;
	// after compression never more often than once per tick.
	HeartbeatInterval metav1.Duration `json:"heartbeatInterval,omitempty"`
	// RenewUnmanagedSeeds also runs gardenlets for seeds that no ManagedSeed registered (seeds
	// made by hand). Default true.
	RenewUnmanagedSeeds *bool `json:"renewUnmanagedSeeds,omitempty"`
}

// Fault is a fault injected into one seed from At for Duration (simulated time).
type Fault struct {
	// Type is heartbeat (the gardenlet stops renewing its Lease) or backup (BackupBucketsReady False).
	Type FaultType `json:"type"`
	// Seed is the name of the seed.
	Seed string `json:"seed"`
	// At is when the fault starts, after the start of the run.
	At metav1.Duration `json:"at"`
	// Duration is how long the fault lasts.
	Duration metav1.Duration `json:"duration"`
}

// DemandConfig is the tenants' demand: how many shoots they want over time, and what shoots.
type DemandConfig struct {
	// Profile is constant, ramp, step, sine or replay. Default constant.
	Profile Profile `json:"profile,omitempty"`
	// Burst is the most tenant shoots created in one step, 0 for no limit: tenants that
	// want thousands of shoots at once create them over several steps, so a step stays
	// short and the shoots already there go on. Default 0.
	Burst int `json:"burst,omitempty"`
	// Start is the simulated time the tenants wait before they create their first shoot,
	// so that a landscape's seeds come up first; the profile's time begins then. Default 0.
	Start metav1.Duration `json:"start,omitempty"`
	// Constant holds the settings of the constant profile.
	Constant *ConstantProfile `json:"constant,omitempty"`
	// Ramp holds the settings of the ramp profile.
	Ramp *RampProfile `json:"ramp,omitempty"`
	// Steps holds the settings of the step profile.
	Steps []StepPoint `json:"steps,omitempty"`
	// Sine holds the settings of the sine profile.
	Sine *SineProfile `json:"sine,omitempty"`
	// Replay holds the settings of the replay profile.
	Replay *ReplayProfile `json:"replay,omitempty"`
	// Projects are the tenants' projects; shoots go to namespace garden-<project>. Default [demo].
	Projects []string `json:"projects,omitempty"`
	// Locations are the providers and regions shoots are created in, with weights.
	// Default one location, gcp europe-west1.
	Locations []Location `json:"locations,omitempty"`
	// Purposes are the shoot purposes, with weights. Default all evaluation.
	Purposes []WeightedPurpose `json:"purposes,omitempty"`
	// HighAvailability is the fraction of shoots that tolerate a zone failure. Default 0.
	HighAvailability float64 `json:"highAvailability,omitempty"`
	// Tolerations are sets of taint keys shoots tolerate, with weights; an empty set tolerates nothing.
	Tolerations []WeightedTolerations `json:"tolerations,omitempty"`
	// Lifetime is the distribution of a tenant shoot's lifetime. Default forever.
	Lifetime Lifetime `json:"lifetime,omitempty"`
	// NodesCIDR is the node network of every tenant shoot, disjoint from typical seed
	// networks (10.250.0.0/16, 100.64.0.0/10). Default 10.180.0.0/16.
	NodesCIDR string `json:"nodesCIDR,omitempty"`
	// SchedulerName is every tenant shoot's spec.schedulerName: the scheduler that places
	// them. Default empty: the garden's default scheduler.
	SchedulerName string `json:"schedulerName,omitempty"`
}

// ConstantProfile wants the same number of shoots all the time.
type ConstantProfile struct {
	// Shoots is the number of shoots.
	Shoots int `json:"shoots"`
}

// RampProfile goes linearly from From to To shoots within Over, starting after Start, then holds.
type RampProfile struct {
	From  int             `json:"from"`
	To    int             `json:"to"`
	Start metav1.Duration `json:"start,omitempty"`
	Over  metav1.Duration `json:"over"`
}

// StepPoint sets the number of shoots from At on, until the next step.
type StepPoint struct {
	At     metav1.Duration `json:"at"`
	Shoots int             `json:"shoots"`
}

// SineProfile is a diurnal demand: Min at the trough, Max at PeakAt (modulo Period).
type SineProfile struct {
	Min int `json:"min"`
	Max int `json:"max"`
	// Period of the wave. Default 24h.
	Period metav1.Duration `json:"period,omitempty"`
	// PeakAt is when, within a period, the demand peaks. Default 12h.
	PeakAt *metav1.Duration `json:"peakAt,omitempty"`
}

// ReplayProfile replays a CSV of desired shoots per provider/region over time.
type ReplayProfile struct {
	// File is the CSV, relative to the configuration file's folder unless absolute.
	File string `json:"file,omitempty"`
	// Data is the parsed CSV: LoadConfiguration reads File into it; a program may set it
	// instead of File.
	Data *Replay `json:"-"`
}

// Location is a provider and region shoots are created in.
type Location struct {
	Provider string `json:"provider"`
	Region   string `json:"region"`
	// CloudProfile of the shoots; the provider's name when empty.
	CloudProfile string `json:"cloudProfile,omitempty"`
	// Weight of this location among all; default 1.
	Weight float64 `json:"weight,omitempty"`
}

// Key is how the location is named in a replay CSV header: provider/region.
func (l Location) Key() string { return l.Provider + "/" + l.Region }

// WeightedPurpose is a shoot purpose with a weight.
type WeightedPurpose struct {
	Purpose gardencorev1beta1.ShootPurpose `json:"purpose"`
	Weight  float64                        `json:"weight,omitempty"`
}

// WeightedTolerations is a set of tolerated taint keys with a weight.
type WeightedTolerations struct {
	Keys   []string `json:"keys"`
	Weight float64  `json:"weight,omitempty"`
}

// Lifetime is a distribution of shoot lifetimes.
type Lifetime struct {
	// Distribution is forever, exponential (with Mean) or uniform (between Min and Max).
	Distribution Distribution    `json:"distribution,omitempty"`
	Mean         metav1.Duration `json:"mean,omitempty"`
	Min          metav1.Duration `json:"min,omitempty"`
	Max          metav1.Duration `json:"max,omitempty"`
}

// LoadConfiguration reads, defaults and validates a configuration file. A replay profile's
// CSV is read into demand.replay.data, relative to the file's folder.
func LoadConfiguration(path string) (*Configuration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the simulator configuration: %w", err)
	}
	cfg, err := ParseConfiguration(data)
	if err != nil {
		return nil, fmt.Errorf("simulator configuration %s: %w", path, err)
	}
	if r := cfg.Demand.Replay; cfg.Demand.Profile == ProfileReplay && r.Data == nil {
		file := r.File
		if !filepath.IsAbs(file) {
			file = filepath.Join(filepath.Dir(path), file)
		}
		if r.Data, err = ReadReplayFile(file); err != nil {
			return nil, fmt.Errorf("simulator configuration %s: demand.replay.file: %w (a relative file is read from the configuration file's folder)", path, err)
		}
	}
	return cfg, nil
}

// ParseConfiguration decodes (rejecting unknown fields), defaults and validates a
// configuration. A replay profile's file is not read.
func ParseConfiguration(data []byte) (*Configuration, error) {
	cfg := &Configuration{}
	if err := yamltext.Check(data); err != nil {
		return nil, err
	}
	if err := yaml.UnmarshalStrict(data, cfg); err != nil {
		return nil, decodeError(data, err)
	}
	SetDefaults(cfg)
	if err := Validate(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

var invalidDuration = regexp.MustCompile(`time: (?:invalid|unknown unit .* in) duration "(.*)"`)

// decodeError turns a decoding error into one that names the field and the fix. An invalid
// duration names no field by itself, so the field holding the offending value is looked up;
// an error that names neither field nor line gets its line (yamltext.Locate).
func decodeError(data []byte, err error) error {
	msg := err.Error()
	// where is "line N: " when the error names no line and a line explains it.
	where := strings.TrimSuffix(yamltext.Locate(data, err, func(part []byte) error {
		return yaml.UnmarshalStrict(part, &Configuration{})
	}).Error(), msg)
	if m := invalidDuration.FindStringSubmatch(msg); m != nil {
		var doc any
		if yaml.Unmarshal(data, &doc) == nil {
			if paths := findValue(doc, m[1], ""); len(paths) > 0 {
				return fmt.Errorf("%s: %q is not a duration; use a Go duration such as 90s, 15m or 6h", strings.Join(paths, ", "), m[1])
			}
		}
		return fmt.Errorf("%s%q is not a duration; use a Go duration such as 90s, 15m or 6h", where, m[1])
	}
	msg = where + strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(msg, "error unmarshaling JSON: "), "while decoding JSON: "), "json: ")
	if m := wrongType.FindStringSubmatch(msg); m != nil {
		field := structName.ReplaceAllString(m[2], "")
		return fmt.Errorf("%s: a %s here, but it must be a %s; docs/simulator.md lists every field", field, m[1], typeNames[m[3]])
	}
	if strings.Contains(msg, "unknown field") {
		return fmt.Errorf("%s: check its spelling and place against docs/simulator.md", msg)
	}
	return fmt.Errorf("%s: the file must be YAML as in examples/config/simulator.yaml (docs/simulator.md lists every field)", msg)
}

var (
	wrongType  = regexp.MustCompile(`cannot unmarshal (\w+)(?: \S+)? into Go struct field (\S+) of type (\S+)`)
	structName = regexp.MustCompile(`^[A-Z]\w*\.`)
)

// typeNames says in YAML terms what a Go type of the configuration takes.
var typeNames = map[string]string{
	"float64": "number", "int": "whole number", "uint64": "whole number (0 or more)", "string": "string",
	"bool": "boolean (true or false)", "simulator.Profile": "string", "simulator.Distribution": "string", "simulator.FaultType": "string",
}

// findValue returns the paths (demand.lifetime.mean, faults[0].at) of the string value v in doc.
func findValue(doc any, v, path string) []string {
	var out []string
	switch d := doc.(type) {
	case map[string]any:
		keys := make([]string, 0, len(d))
		for k := range d {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			out = append(out, findValue(d[k], v, p)...)
		}
	case []any:
		for i, e := range d {
			out = append(out, findValue(e, v, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case string:
		if d == v {
			out = append(out, path)
		}
	}
	return out
}

// SetDefaults fills in what the configuration leaves out; docs/simulator.md lists the defaults.
func SetDefaults(cfg *Configuration) {
	if cfg.APIVersion == "" {
		cfg.APIVersion = ConfigAPIVersion
	}
	if cfg.Kind == "" {
		cfg.Kind = ConfigKind
	}
	if cfg.Speed == 0 {
		cfg.Speed = 1
	}
	if cfg.RandomSeed == nil {
		cfg.RandomSeed = new(uint64(1))
	}
	setDuration(&cfg.Tick, time.Second)
	setDuration(&cfg.ProgressInterval, 15*time.Minute)
	if cfg.Writers == 0 {
		cfg.Writers = 1
	}
	setDuration(&cfg.Shoots.CreateDelay, 5*time.Minute)
	setDuration(&cfg.Shoots.DeleteDelay, 2*time.Minute)
	setDuration(&cfg.Shoots.MigrateDelay, 10*time.Minute)
	if cfg.Shoots.Jitter == nil {
		cfg.Shoots.Jitter = new(0.2)
	}
	setDuration(&cfg.Gardenlets.HeartbeatInterval, 10*time.Second)
	if cfg.Gardenlets.RenewUnmanagedSeeds == nil {
		cfg.Gardenlets.RenewUnmanagedSeeds = new(true)
	}
	d := &cfg.Demand
	if d.Profile == "" {
		d.Profile = ProfileConstant
	}
	if d.Sine != nil {
		setDuration(&d.Sine.Period, 24*time.Hour)
		if d.Sine.PeakAt == nil {
			d.Sine.PeakAt = &metav1.Duration{Duration: 12 * time.Hour}
		}
	}
	if len(d.Projects) == 0 {
		d.Projects = []string{"demo"}
	}
	if len(d.Locations) == 0 {
		d.Locations = []Location{{Provider: "gcp", Region: "europe-west1"}}
	}
	for i := range d.Locations {
		if d.Locations[i].CloudProfile == "" {
			d.Locations[i].CloudProfile = d.Locations[i].Provider
		}
		if d.Locations[i].Weight == 0 {
			d.Locations[i].Weight = 1
		}
	}
	if len(d.Purposes) == 0 {
		d.Purposes = []WeightedPurpose{{Purpose: gardencorev1beta1.ShootPurposeEvaluation}}
	}
	for i := range d.Purposes {
		if d.Purposes[i].Weight == 0 {
			d.Purposes[i].Weight = 1
		}
	}
	for i := range d.Tolerations {
		if d.Tolerations[i].Weight == 0 {
			d.Tolerations[i].Weight = 1
		}
	}
	if d.Lifetime.Distribution == "" {
		d.Lifetime.Distribution = DistributionForever
	}
	if d.NodesCIDR == "" {
		d.NodesCIDR = "10.180.0.0/16"
	}
}

func setDuration(d *metav1.Duration, def time.Duration) {
	if d.Duration == 0 {
		d.Duration = def
	}
}

// Validate checks a defaulted configuration. Every problem is reported with the field it is
// in and how to fix it.
func Validate(cfg *Configuration) error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if cfg.APIVersion != ConfigAPIVersion {
		add("apiVersion", "unknown version %q; use %s", cfg.APIVersion, ConfigAPIVersion)
	}
	if cfg.Kind != ConfigKind {
		add("kind", "unknown kind %q; use %s", cfg.Kind, ConfigKind)
	}
	if cfg.Speed <= 0 {
		add("speed", "must be positive (1 is real time, 60 runs an hour in a minute), got %v", cfg.Speed)
	}
	nonNegative := func(field string, d metav1.Duration) {
		if d.Duration < 0 {
			add(field, "must not be negative, got %s", d.Duration)
		}
	}
	positive := func(field string, d metav1.Duration) {
		if d.Duration <= 0 {
			add(field, "must be positive, such as 10s or 5m, got %s", d.Duration)
		}
	}
	nonNegative("duration", cfg.Duration)
	nonNegative("demand.start", cfg.Demand.Start)
	if cfg.Demand.Burst < 0 {
		add("demand.burst", "must not be negative (0 creates any number of shoots in a step), got %d", cfg.Demand.Burst)
	}
	positive("tick", cfg.Tick)
	positive("progressInterval", cfg.ProgressInterval)
	if w := cfg.Writers; w < 1 || w > maxWriters {
		add("writers", "must be from 1 to %d (writes a step sends at once), got %d", maxWriters, w)
	}
	positive("shoots.createDelay", cfg.Shoots.CreateDelay)
	positive("shoots.deleteDelay", cfg.Shoots.DeleteDelay)
	positive("shoots.migrateDelay", cfg.Shoots.MigrateDelay)
	if j := *cfg.Shoots.Jitter; j < 0 || j >= 1 {
		add("shoots.jitter", "must be at least 0 and less than 1 (0.2 varies delays by ±20%%), got %v", j)
	}
	if r := cfg.Shoots.FailureRate; r < 0 || r > 1 {
		add("shoots.failureRate", "must be between 0 and 1 (0.05 fails one creation in 20), got %v", r)
	}
	if r := cfg.Shoots.MigrationFailureRate; r < 0 || r > 1 {
		add("shoots.migrationFailureRate", "must be between 0 and 1 (0.05 fails one migration in 20), got %v", r)
	}
	positive("gardenlets.heartbeatInterval", cfg.Gardenlets.HeartbeatInterval)
	for i, f := range cfg.Faults {
		field := fmt.Sprintf("faults[%d]", i)
		if f.Type != FaultHeartbeat && f.Type != FaultBackup {
			add(field+".type", "unknown fault %q; use heartbeat or backup", f.Type)
		}
		if f.Seed == "" {
			add(field+".seed", "is required: name the seed the fault hits")
		}
		nonNegative(field+".at", f.At)
		positive(field+".duration", f.Duration)
	}
	validateDemand(&cfg.Demand, add)
	return errors.Join(errs...)
}

// validateDemand reports every problem of the demand with add, as Validate does.
func validateDemand(d *DemandConfig, add func(field, format string, args ...any)) {
	missing := func(section, example string) {
		add("demand."+section, "is required by profile %s, such as %s", d.Profile, example)
	}
	switch d.Profile {
	case ProfileConstant:
		if d.Constant == nil {
			missing("constant", "{shoots: 10}")
		} else if d.Constant.Shoots < 0 {
			add("demand.constant.shoots", "must not be negative, got %d", d.Constant.Shoots)
		}
	case ProfileRamp:
		if d.Ramp == nil {
			missing("ramp", "{from: 0, to: 100, over: 6h}")
			break
		}
		if d.Ramp.From < 0 || d.Ramp.To < 0 {
			add("demand.ramp", "from and to must not be negative, got %d and %d", d.Ramp.From, d.Ramp.To)
		}
		if d.Ramp.Start.Duration < 0 {
			add("demand.ramp.start", "must not be negative, got %s", d.Ramp.Start.Duration)
		}
		if d.Ramp.Over.Duration <= 0 {
			add("demand.ramp.over", "must be positive: how long the ramp takes, such as 6h")
		}
	case ProfileStep:
		if len(d.Steps) == 0 {
			add("demand.steps", "is required by profile step: list {at, shoots} points")
		}
		for i, s := range d.Steps {
			if s.Shoots < 0 {
				add(fmt.Sprintf("demand.steps[%d].shoots", i), "must not be negative, got %d", s.Shoots)
			}
			if i > 0 && s.At.Duration <= d.Steps[i-1].At.Duration {
				add(fmt.Sprintf("demand.steps[%d].at", i), "must be later than the step before (%s); order the steps by time", d.Steps[i-1].At.Duration)
			}
		}
	case ProfileSine:
		if d.Sine == nil {
			missing("sine", "{min: 10, max: 100}")
			break
		}
		if d.Sine.Min < 0 || d.Sine.Max < d.Sine.Min {
			add("demand.sine", "needs 0 <= min <= max, got min %d and max %d", d.Sine.Min, d.Sine.Max)
		}
		if d.Sine.Period.Duration <= 0 {
			add("demand.sine.period", "must be positive, such as 24h")
		}
	case ProfileReplay:
		if d.Replay == nil || (d.Replay.File == "" && d.Replay.Data == nil) {
			add("demand.replay.file", "is required by profile replay: name a CSV of offset and shoots per provider/region")
		}
	default:
		names := make([]string, 0, 5)
		for _, p := range Profiles() {
			names = append(names, string(p))
		}
		add("demand.profile", "unknown profile %q; use one of %s", d.Profile, strings.Join(names, ", "))
	}
	for i, p := range d.Projects {
		if p == "" || len(ProjectNamespacePrefix+p) > 63 || strings.ToLower(p) != p || strings.ContainsAny(p, "./_ ") {
			add(fmt.Sprintf("demand.projects[%d]", i), "%q is not a project name: use lower-case letters, digits and '-', at most 56 characters", p)
		}
	}
	seen := map[string]bool{}
	for i, l := range d.Locations {
		field := fmt.Sprintf("demand.locations[%d]", i)
		if l.Provider == "" || l.Region == "" {
			add(field, "needs provider and region, such as {provider: gcp, region: europe-west1}")
		}
		if strings.Contains(l.Provider, "/") {
			add(field+".provider", "%q must not contain '/'", l.Provider)
		}
		if seen[l.Key()] {
			add(field, "%s is listed twice; list every location once", l.Key())
		}
		seen[l.Key()] = true
		if l.Weight < 0 {
			add(field+".weight", "must not be negative, got %v", l.Weight)
		}
	}
	for i, p := range d.Purposes {
		switch p.Purpose {
		case gardencorev1beta1.ShootPurposeEvaluation, gardencorev1beta1.ShootPurposeTesting, gardencorev1beta1.ShootPurposeDevelopment,
			gardencorev1beta1.ShootPurposeProduction, gardencorev1beta1.ShootPurposeInfrastructure:
		default:
			add(fmt.Sprintf("demand.purposes[%d].purpose", i), "unknown purpose %q; use evaluation, testing, development, production or infrastructure", p.Purpose)
		}
		if p.Weight < 0 {
			add(fmt.Sprintf("demand.purposes[%d].weight", i), "must not be negative, got %v", p.Weight)
		}
	}
	if h := d.HighAvailability; h < 0 || h > 1 {
		add("demand.highAvailability", "is the fraction of zone-tolerant shoots, between 0 and 1, got %v", h)
	}
	for i, t := range d.Tolerations {
		for j, k := range t.Keys {
			if k == "" {
				add(fmt.Sprintf("demand.tolerations[%d].keys[%d]", i, j), "must not be empty: name a taint key such as seed.gardener.cloud/protected")
			}
		}
		if t.Weight < 0 {
			add(fmt.Sprintf("demand.tolerations[%d].weight", i), "must not be negative, got %v", t.Weight)
		}
	}
	switch l := d.Lifetime; l.Distribution {
	case DistributionForever:
	case DistributionExponential:
		if l.Mean.Duration <= 0 {
			add("demand.lifetime.mean", "must be positive for the exponential distribution, such as 4h")
		}
	case DistributionUniform:
		if l.Min.Duration < 0 || l.Max.Duration <= l.Min.Duration {
			add("demand.lifetime", "the uniform distribution needs 0 <= min < max, got min %s and max %s", l.Min.Duration, l.Max.Duration)
		}
	default:
		add("demand.lifetime.distribution", "unknown distribution %q; use forever, exponential or uniform", l.Distribution)
	}
	if _, _, err := net.ParseCIDR(d.NodesCIDR); err != nil {
		add("demand.nodesCIDR", "%q is not a CIDR; use one such as 10.180.0.0/16", d.NodesCIDR)
	}
	if d.SchedulerName != "" {
		if msgs := validation.IsDNS1123Subdomain(d.SchedulerName); len(msgs) > 0 {
			add("demand.schedulerName", "%q is not a scheduler name (%s); use one such as seedscaler-scheduler, or leave it empty for the default scheduler", d.SchedulerName, strings.Join(msgs, "; "))
		}
	}
}
