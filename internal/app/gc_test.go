package app

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSetGCPercentSetsTheTargetWithoutGOGC(t *testing.T) {
	defer debug.SetGCPercent(GCPercent())
	t.Setenv("GOGC", "")
	debug.SetGCPercent(100)

	assert.Equal(t, MetricsPathGCPercent, SetGCPercent(MetricsPathGCPercent))
	assert.Equal(t, MetricsPathGCPercent, GCPercent())
}

func TestSetGCPercentLeavesTheOperatorsGOGC(t *testing.T) {
	defer debug.SetGCPercent(GCPercent())
	t.Setenv("GOGC", "150")
	// The runtime read GOGC when the process started; stand in for it.
	debug.SetGCPercent(150)

	assert.Equal(t, 150, SetGCPercent(MetricsPathGCPercent), "GOGC in the environment wins")
	assert.Equal(t, 150, GCPercent())
}
