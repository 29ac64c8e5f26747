package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func TestDefaults(t *testing.T) {
	c, err := Parse(nil)
	require.NoError(t, err)
	assert.Equal(t, &SchedulerConfiguration{
		APIVersion: APIVersion, Kind: Kind, SchedulerName: "default-scheduler", Binding: PatchBinding, Strategy: SameRegion,
		RegionConfigNamespace: "garden", Scoring: &Scoring{}, Workers: 8,
		Backoff: &Backoff{BaseSeconds: 1, MaxSeconds: 300}, DefaultSeedCapacity: 250,
		PendingFit: &PendingFit{OtherSchedulers: ptr.To(true)},
		Drain:      &Drain{MaxMigrationsPerSeed: 2, MaxMigrationsPerSet: 4, FailedMigrationCooldownSeconds: 600},
	}, c)
	assert.Equal(t, time.Second, c.BackoffBase())
	assert.Equal(t, 5*time.Minute, c.BackoffMax())
	assert.True(t, c.PendingFitOfOtherSchedulers(), "shoots other schedulers cannot place ask for seeds too")
}

func TestSampleLoads(t *testing.T) {
	c, err := Load(filepath.Join("..", "..", "examples", "config", "scheduler.yaml"))
	require.NoError(t, err)
	d, err := Parse(nil)
	require.NoError(t, err)
	assert.Equal(t, d, c, "the sample spells out the defaults")
}

func TestParse(t *testing.T) {
	c, err := Parse([]byte(`apiVersion: scheduler.seedscaler.io/v1alpha1
kind: SchedulerConfiguration
schedulerName: packing-scheduler
binding: Subresource
strategy: MinimalDistance
scoring:
  plugins:
  - {name: MinimalDistance, weight: 10}
  - {name: SeedResourcesMostAllocated, weight: 1}
workers: 16
backoff: {baseSeconds: 2, maxSeconds: 60}
defaultSeedCapacity: 100
pendingFit: {otherSchedulers: false}
`))
	require.NoError(t, err)
	assert.Equal(t, "packing-scheduler", c.SchedulerName)
	assert.Equal(t, SubresourceBinding, c.Binding)
	assert.Equal(t, MinimalDistance, c.Strategy)
	assert.Equal(t, []ScorePlugin{{MinimalDistancePlugin, 10}, {SeedResourcesMostAllocatedPlugin, 1}}, c.Scoring.Plugins)
	assert.Equal(t, int32(16), c.Workers)
	assert.Equal(t, 2*time.Second, c.BackoffBase())
	assert.Equal(t, int32(100), c.DefaultSeedCapacity)
	assert.False(t, c.PendingFitOfOtherSchedulers())
}

func TestPendingFitOfOtherSchedulers(t *testing.T) {
	cases := []struct {
		name, file string
		want       bool
	}{
		{"not set", "", true},
		{"an empty pendingFit", "pendingFit: {}\n", true},
		{"on", "pendingFit: {otherSchedulers: true}\n", true},
		{"off", "pendingFit: {otherSchedulers: false}\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse([]byte(c.file))
			require.NoError(t, err)
			assert.Equal(t, c.want, cfg.PendingFitOfOtherSchedulers())
		})
	}
}

func TestInvalid(t *testing.T) {
	cases := []struct{ name, file, want string }{
		{"unknown field", "strategi: SameRegion\n", `unknown field "strategi"`},
		{"wrong version", "apiVersion: v2\n", `apiVersion: Unsupported value: "v2": supported values: "scheduler.seedscaler.io/v1alpha1"`},
		{"wrong kind", "kind: Foo\n", `kind: Unsupported value: "Foo": supported values: "SchedulerConfiguration"`},
		{"binding", "binding: Binding\n", `binding: Unsupported value: "Binding": supported values: "Patch", "Subresource" (Patch for the Shoot CRD, Subresource for gardener-apiserver)`},
		{"strategy", "strategy: Nearest\n", `strategy: Unsupported value: "Nearest": supported values: "SameRegion", "MinimalDistance"`},
		{"plugin name", "scoring: {plugins: [{name: Foo, weight: 1}]}\n", `scoring.plugins[0].name: Unsupported value: "Foo": supported values: "MinimalDistance", "SeedResourcesLeastAllocated", "SeedResourcesMostAllocated"`},
		{"plugin twice", "scoring: {plugins: [{name: MinimalDistance, weight: 1}, {name: MinimalDistance, weight: 2}]}\n", `scoring.plugins[1].name: Duplicate value: "MinimalDistance": list each plugin once`},
		{"weight", "scoring: {plugins: [{name: MinimalDistance, weight: 0}]}\n", `scoring.plugins[0].weight: Invalid value: 0: out of range, use 1 to 100`},
		{"workers", "workers: -1\n", `workers: Invalid value: -1: out of range, use 1 to 256`},
		{"backoff base", "backoff: {baseSeconds: -1}\n", `backoff.baseSeconds: Invalid value: -1: must be at least 1`},
		{"backoff max", "backoff: {baseSeconds: 10, maxSeconds: 5}\n", `backoff.maxSeconds: Invalid value: 5: below backoff.baseSeconds 10, make it at least the base`},
		{"drain per seed", "drain: {maxMigrationsPerSeed: -1}\n", `drain.maxMigrationsPerSeed: Invalid value: -1: must be at least 1`},
		{"drain per set", "drain: {maxMigrationsPerSeed: 3, maxMigrationsPerSet: 2}\n", `drain.maxMigrationsPerSet: Invalid value: 2: below drain.maxMigrationsPerSeed 3, make it at least that`},
		{"drain cooldown", "drain: {failedMigrationCooldownSeconds: -1}\n", `drain.failedMigrationCooldownSeconds: Invalid value: -1: must not be negative`},
		{"capacity", "defaultSeedCapacity: -5\n", `defaultSeedCapacity: Invalid value: -5: must not be negative`},
		{"long scheduler name", "schedulerName: " + strings.Repeat("s", 254) + "\n", `schedulerName: Invalid value: "sss`},
		{"scheduler name", "schedulerName: ' x'\n", `schedulerName: Invalid value: " x": must be a name of at most 253 characters without surrounding spaces`},
		{"type", "workers: many\n", `decoding the scheduler configuration: workers: Invalid value: a string is given, use a whole number`},
		{"pendingFit switch", "pendingFit: {otherSchedulers: \"no\"}\n", `pendingFit.otherSchedulers: Invalid value: a string is given, use true or false`},
		{"fraction", "scoring: {plugins: [{name: MinimalDistance, weight: 1.5}]}\n", `scoring.plugins.weight: Invalid value: a number 1.5 is given, use a whole number`},
		{"list for a mapping", "drain: [1]\n", `drain: Invalid value: an array is given, use a mapping of its fields`},
		{"pendingFit", "pendingFit: true\n", `pendingFit: Invalid value: a bool is given, use a mapping of its fields`},
		{"pendingFit field", "pendingFit: {otherScheduler: true}\n", `unknown field "otherScheduler"`},
		{"not UTF-8", "workers: 8\nschedulerName: caf\xe9\n", `decoding the scheduler configuration: line 2, column 19: byte 0xe9 is not UTF-8`},
		{"syntax on the first line", "workers: 8: 9\n", `decoding the scheduler configuration: line 1: error converting YAML to JSON: yaml: mapping values are not allowed`},
		{"not a mapping", "- workers: 2\n", `decoding the scheduler configuration: the file is an array, not a mapping of fields such as apiVersion: scheduler.seedscaler.io/v1alpha1`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.file))
			assert.ErrorContains(t, err, c.want)
		})
	}
}

func TestEveryProblemOneALine(t *testing.T) {
	_, err := Parse([]byte("apiVersion: foo\nstrategy: Nearest\nworkers: 300\nscoring: {plugins: [{name: Nope, weight: 1}, {name: Nope, weight: 101}]}\n"))
	require.Error(t, err)
	assert.Equal(t, `invalid scheduler configuration: apiVersion: Unsupported value: "foo": supported values: "scheduler.seedscaler.io/v1alpha1"
strategy: Unsupported value: "Nearest": supported values: "SameRegion", "MinimalDistance"
scoring.plugins[0].name: Unsupported value: "Nope": supported values: "MinimalDistance", "SeedResourcesLeastAllocated", "SeedResourcesMostAllocated"
scoring.plugins[1].name: Unsupported value: "Nope": supported values: "MinimalDistance", "SeedResourcesLeastAllocated", "SeedResourcesMostAllocated"
scoring.plugins[1].name: Duplicate value: "Nope": list each plugin once
scoring.plugins[1].weight: Invalid value: 101: out of range, use 1 to 100
workers: Invalid value: 300: out of range, use 1 to 256`, err.Error())
	var fe *field.Error
	require.ErrorAs(t, err, &fe, "each problem stays a field error")
	assert.Equal(t, "apiVersion", fe.Field)
}

func TestLoadNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(path, []byte("workers: 1000\n"), 0o600))
	_, err := Load(path)
	assert.ErrorContains(t, err, path+": invalid scheduler configuration: workers: Invalid value: 1000: out of range, use 1 to 256")
	_, err = Load(filepath.Join(t.TempDir(), "missing.yaml"))
	assert.ErrorContains(t, err, "reading the scheduler configuration")
}
