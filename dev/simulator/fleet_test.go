package simulator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFleetSetsHoldEverySeed(t *testing.T) {
	for _, seeds := range []int{1, 24, 100, 1000, 10_000} {
		sets := FleetSets(seeds)
		total, names := 0, map[string]bool{}
		for _, s := range sets {
			assert.LessOrEqual(t, s.Replicas, FleetSetSize)
			assert.Positive(t, s.Replicas)
			assert.False(t, names[s.Name], "set name %s used twice", s.Name)
			// Gardener's limit of 21 characters for a shoot's and its project's names: the
			// set's replica shoots, up to twice its replicas, in project garden.
			assert.LessOrEqual(t, len(s.Name)+len("-19")+len("garden"), 21, "set %s's replica shoots' names", s.Name)
			names[s.Name] = true
			assert.Len(t, s.Zones, 3, "fleet seeds take zone-failure-tolerant control planes")
			total += s.Replicas
		}
		assert.Equal(t, seeds, total, "%d seeds", seeds)
	}
	sets := FleetSets(1000)
	assert.Len(t, sets, 100)
	assert.Equal(t, FleetSet{Name: "aws-1", Provider: "aws", Region: "eu-central-1",
		Zones: []string{"eu-central-1a", "eu-central-1b", "eu-central-1c"}, Replicas: FleetSetSize}, sets[0])
	assert.Equal(t, "azure-1", sets[1].Name)
	assert.Equal(t, "gcp-1", sets[2].Name)
	assert.Equal(t, "us-east-1", sets[3].Region)
	assert.Equal(t, "aws-2", sets[3].Name)
	assert.Equal(t, "aws-9", sets[24].Name, "the 25th set starts the regions again")
	assert.Equal(t, "eu-central-1", sets[24].Region)
}

// The fleet's configuration is valid, asks for 100 shoots a seed at its peak, and spreads
// them over the sets' regions by their seeds, each region once.
func TestFleetConfiguration(t *testing.T) {
	cfg := FleetConfiguration(1000)
	require.NoError(t, Validate(cfg))
	assert.Empty(t, Desired(&cfg.Demand, 0), "the tenants wait for the seeds")
	assert.Equal(t, map[string]int{AnyLocation: 100_000}, Desired(&cfg.Demand, FleetDemandStart), "the wave starts at its peak")
	assert.Equal(t, 95_000, Total(Desired(&cfg.Demand, FleetDemandStart+12*time.Hour)))
	assert.Len(t, cfg.Demand.Locations, 24)
	weight := 0.0
	for _, l := range cfg.Demand.Locations {
		weight += l.Weight
	}
	assert.InDelta(t, 1000, weight, 1e-9)
	assert.Len(t, cfg.Faults, 3)
	assert.Equal(t, 32, cfg.Writers)
}
