package app

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// gcPercent reads the runtime's garbage collector target.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func TestSetGCPercentSetsTheTargetWithoutGOGC(t *testing.T) {
	defer debug.SetGCPercent(gcPercent())
	t.Setenv("GOGC", "")
	debug.SetGCPercent(100)

	assert.Equal(t, MetricsPathGCPercent, SetGCPercent(MetricsPathGCPercent))
	assert.Equal(t, MetricsPathGCPercent, gcPercent())
}

func TestSetGCPercentLeavesTheOperatorsGOGC(t *testing.T) {
	defer debug.SetGCPercent(gcPercent())
	t.Setenv("GOGC", "150")
	// The runtime read GOGC when the process started; stand in for it.
	debug.SetGCPercent(150)

	assert.Equal(t, 150, SetGCPercent(MetricsPathGCPercent), "GOGC in the environment wins")
	assert.Equal(t, 150, gcPercent())
	assert.Equal(t, "150", os.Getenv("GOGC"))
}
