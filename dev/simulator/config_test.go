package simulator

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

func TestSampleConfigurationLoads(t *testing.T) {
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	cfg, err := LoadConfiguration(filepath.Join(root, "examples", "config", "simulator.yaml"))
	require.NoError(t, err)
	assert.Equal(t, ProfileSine, cfg.Demand.Profile)
	assert.Equal(t, 240.0, cfg.Speed)
	assert.Equal(t, 24*time.Hour, cfg.Duration.Duration)
	assert.Len(t, cfg.Demand.Locations, 4)
	assert.Equal(t, "gcp", cfg.Demand.Locations[0].CloudProfile, "the cloud profile defaults to the provider")
	assert.Equal(t, 120, Total(Desired(&cfg.Demand, 15*time.Hour)), "the sine peaks at peakAt")
}

func TestSampleReplayLoads(t *testing.T) {
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	cfg, err := ParseConfiguration([]byte(`
apiVersion: simulator.seedscaler.io/v1alpha1
kind: SimulatorConfiguration
demand:
  profile: replay
  replay: {file: ` + filepath.Join(root, "examples", "config", "demand-replay.csv") + `}
`))
	require.NoError(t, err)
	replay, err := ReadReplayFile(cfg.Demand.Replay.File)
	require.NoError(t, err)
	assert.Equal(t, []string{"gcp/europe-west1", "aws/eu-central-1", "azure/westeurope"}, replay.Locations)
	assert.Equal(t, map[string]int{"gcp/europe-west1": 30, "aws/eu-central-1": 12, "azure/westeurope": 4}, replay.Desired(5*time.Hour))
}

func TestDefaults(t *testing.T) {
	cfg, err := ParseConfiguration([]byte("demand: {constant: {shoots: 3}}"))
	require.NoError(t, err)
	assert.Equal(t, ConfigAPIVersion, cfg.APIVersion)
	assert.Equal(t, 1.0, cfg.Speed)
	assert.Equal(t, uint64(1), *cfg.RandomSeed)
	assert.Equal(t, time.Second, cfg.Tick.Duration)
	assert.Equal(t, 15*time.Minute, cfg.ProgressInterval.Duration)
	assert.Equal(t, 5*time.Minute, cfg.Shoots.CreateDelay.Duration)
	assert.Equal(t, 2*time.Minute, cfg.Shoots.DeleteDelay.Duration)
	assert.Equal(t, 0.2, *cfg.Shoots.Jitter)
	assert.Equal(t, 10*time.Second, cfg.Gardenlets.HeartbeatInterval.Duration)
	assert.True(t, *cfg.Gardenlets.RenewUnmanagedSeeds)
	assert.Equal(t, ProfileConstant, cfg.Demand.Profile)
	assert.Equal(t, []string{"demo"}, cfg.Demand.Projects)
	assert.Equal(t, []Location{{Provider: "gcp", Region: "europe-west1", CloudProfile: "gcp", Weight: 1}}, cfg.Demand.Locations)
	assert.Equal(t, DistributionForever, cfg.Demand.Lifetime.Distribution)
	assert.Equal(t, "10.180.0.0/16", cfg.Demand.NodesCIDR)
}

func TestValidationMessages(t *testing.T) {
	const header = "apiVersion: simulator.seedscaler.io/v1alpha1\nkind: SimulatorConfiguration\n"
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"unknown profile", "demand: {profile: rmap}",
			[]string{`demand.profile: unknown profile "rmap"; use one of constant, ramp, step, sine, replay`}},
		{"wrong version", "apiVersion: simulator.seedscaler.io/v2\nkind: SimulatorConfiguration\ndemand: {constant: {shoots: 1}}",
			[]string{`apiVersion: unknown version "simulator.seedscaler.io/v2"; use simulator.seedscaler.io/v1alpha1`}},
		{"wrong kind", "apiVersion: simulator.seedscaler.io/v1alpha1\nkind: Simulator\ndemand: {constant: {shoots: 1}}",
			[]string{`kind: unknown kind "Simulator"; use SimulatorConfiguration`}},
		{"missing section", header + "demand: {profile: ramp}", []string{"demand.ramp: is required by profile ramp"}},
		{"negative speed", header + "speed: -2\ndemand: {constant: {shoots: 1}}", []string{"speed: must be positive"}},
		{"ramp without over", header + "demand: {profile: ramp, ramp: {from: 0, to: 10}}",
			[]string{"demand.ramp.over: must be positive: how long the ramp takes, such as 6h"}},
		{"unordered steps", header + "demand: {profile: step, steps: [{at: 2h, shoots: 1}, {at: 1h, shoots: 2}]}",
			[]string{"demand.steps[1].at: must be later than the step before (2h0m0s); order the steps by time"}},
		{"sine min above max", header + "demand: {profile: sine, sine: {min: 5, max: 2}}",
			[]string{"demand.sine: needs 0 <= min <= max, got min 5 and max 2"}},
		{"replay without file", header + "demand: {profile: replay}",
			[]string{"demand.replay.file: is required by profile replay"}},
		{"failure rate", header + "shoots: {failureRate: 1.5}\ndemand: {constant: {shoots: 1}}",
			[]string{"shoots.failureRate: must be between 0 and 1"}},
		{"jitter", header + "shoots: {jitter: 1}\ndemand: {constant: {shoots: 1}}",
			[]string{"shoots.jitter: must be at least 0 and less than 1"}},
		{"fault", header + "faults: [{type: network, at: 1h}]\ndemand: {constant: {shoots: 1}}",
			[]string{`faults[0].type: unknown fault "network"; use heartbeat or backup`, "faults[0].seed: is required", "faults[0].duration: must be positive"}},
		{"location", header + "demand: {constant: {shoots: 1}, locations: [{provider: gcp}, {provider: aws, region: x}, {provider: aws, region: x}]}",
			[]string{"demand.locations[0]: needs provider and region", "demand.locations[2]: aws/x is listed twice"}},
		{"purpose", header + "demand: {constant: {shoots: 1}, purposes: [{purpose: fun}]}",
			[]string{`demand.purposes[0].purpose: unknown purpose "fun"`}},
		{"project", header + "demand: {constant: {shoots: 1}, projects: [My_Project]}",
			[]string{`demand.projects[0]: "My_Project" is not a project name`}},
		{"high availability", header + "demand: {constant: {shoots: 1}, highAvailability: 2}",
			[]string{"demand.highAvailability: is the fraction of zone-tolerant shoots, between 0 and 1, got 2"}},
		{"lifetime", header + "demand: {constant: {shoots: 1}, lifetime: {distribution: exponential}}",
			[]string{"demand.lifetime.mean: must be positive for the exponential distribution"}},
		{"uniform lifetime", header + "demand: {constant: {shoots: 1}, lifetime: {distribution: uniform, min: 2h, max: 1h}}",
			[]string{"demand.lifetime: the uniform distribution needs 0 <= min < max"}},
		{"unknown distribution", header + "demand: {constant: {shoots: 1}, lifetime: {distribution: normal}}",
			[]string{`demand.lifetime.distribution: unknown distribution "normal"; use forever, exponential or uniform`}},
		{"cidr", header + "demand: {constant: {shoots: 1}, nodesCIDR: 10.180.0.0}",
			[]string{`demand.nodesCIDR: "10.180.0.0" is not a CIDR; use one such as 10.180.0.0/16`}},
		{"scheduler name", header + "demand: {constant: {shoots: 1}, schedulerName: Seedscaler_Scheduler}",
			[]string{`demand.schedulerName: "Seedscaler_Scheduler" is not a scheduler name`, "use one such as seedscaler-scheduler"}},
		{"unknown field", header + "demand: {constant: {shoots: 1}}\nspeeed: 3",
			[]string{`unknown field "speeed"`, "check its spelling and place against docs/simulator.md"}},
		{"bad duration", header + "demand: {constant: {shoots: 1}, lifetime: {distribution: exponential, mean: 6 hours}}",
			[]string{`demand.lifetime.mean: "6 hours" is not a duration; use a Go duration such as 90s, 15m or 6h`}},
		{"bad duration in a list", header + "faults: [{type: heartbeat, seed: a, at: 1h, duration: soon}]\ndemand: {constant: {shoots: 1}}",
			[]string{`faults[0].duration: "soon" is not a duration`}},
		{"wrong type", header + "speed: fast\ndemand: {constant: {shoots: 1}}",
			[]string{"speed", "docs/simulator.md"}},
		{"syntax on the first line", "speed: 1: 2\n" + header,
			[]string{"line 1: error converting YAML to JSON: yaml: mapping values are not allowed in this context"}},
		{"not a mapping", "- speed: 2\n", []string{"line 1: ", "cannot unmarshal array into Go value of type simulator.Configuration"}},
		{"not UTF-8", header + "demand: {projects: [caf\xe9]}\n", []string{"line 3, column 24: byte 0xe9 is not UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfiguration([]byte(tt.yaml))
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestValidConfigurations(t *testing.T) {
	for _, y := range []string{
		"demand: {constant: {shoots: 0}}",
		"demand: {profile: ramp, ramp: {from: 10, to: 0, over: 1h}}",
		"demand: {profile: step, steps: [{at: 0s, shoots: 1}, {at: 1h, shoots: 3}]}",
		"demand: {profile: sine, sine: {min: 0, max: 10}}",
		"demand: {profile: replay, replay: {file: x.csv}}",
		"demand: {constant: {shoots: 1}, lifetime: {distribution: uniform, min: 1h, max: 2h}}",
	} {
		_, err := ParseConfiguration([]byte(y))
		assert.NoError(t, err, y)
	}
}

func TestParseReplayErrors(t *testing.T) {
	tests := map[string]string{
		"":                                 "empty replay CSV",
		"time,gcp/x\n":                     "the header must be `offset`",
		"offset,gcp\n0,1\n":                `"gcp" is not <provider>/<region>`,
		"offset,gcp/x,gcp/x\n0,1,1\n":      "gcp/x appears twice",
		"offset,gcp/x\n":                   "has a header but no rows",
		"offset,gcp/x\nsoon,1\n":           `line 2: offset "soon" is neither a duration`,
		"offset,gcp/x\n1h,1\n30m,2\n":      "line 3: offset 30m0s is not later than the row before (1h0m0s)",
		"offset,gcp/x\nNaN,1\n":            `line 2: offset "NaN" is neither a duration (90m) nor seconds`,
		"offset,gcp/x\n1e300,1\n":          `line 2: offset "1e300" is beyond the longest offset, 2562047h47m16.854775807s`,
		"offset,gcp/x\n-Inf,1\n":           `line 2: offset "-Inf" is negative`,
		"offset,gcp/x\n-5m,1\n":            `line 2: offset "-5m" is negative`,
		"offset,gcp/x\n0,-1\n":             `line 2, column 2 (gcp/x): "-1" is not a shoot count`,
		"offset,gcp/x,aws/y\n0,1\n":        "wrong number of fields",
		"# comment\noffset,gcp/x\n0,1\n1,": `line 4, column 2 (gcp/x): "" is not a shoot count`,
	}
	for in, want := range tests {
		_, err := ParseReplay(strings.NewReader(in))
		if assert.Error(t, err, in) {
			assert.Contains(t, err.Error(), want, in)
		}
	}
}
