package simulator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFleetSetsHoldEverySeed(t *testing.T) {
	for _, seeds := range []int{1, 24, 100, 1000, 3000} {
		sets := FleetSets(seeds)
		total, names := 0, map[string]bool{}
		for _, s := range sets {
			assert.LessOrEqual(t, s.Replicas, FleetSetSize)
			assert.Positive(t, s.Replicas)
			assert.False(t, names[s.Name], "set name %s used twice", s.Name)
			names[s.Name] = true
			assert.Len(t, s.Zones, 3, "fleet seeds take zone-failure-tolerant control planes")
			total += s.Replicas
		}
		assert.Equal(t, seeds, total, "%d seeds", seeds)
	}
	sets := FleetSets(1000)
	assert.Len(t, sets, 100)
	assert.Equal(t, "aws-eu-central-1", sets[0].Name)
	assert.Equal(t, "azure-westeurope", sets[1].Name)
	assert.Equal(t, "gcp-europe-west1", sets[2].Name)
	assert.Equal(t, "aws-eu-central-1-2", sets[24].Name, "the 25th set starts the regions again")
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
