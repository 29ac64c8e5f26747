package plugins

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// Decide picks the same seed as Schedule; it leaves out the rejections when a seed fits and
// gives the same explanation as Schedule when none does.
func TestDecideAgreesWithSchedule(t *testing.T) {
	landscape := seeds(
		builders.MakeSeed("full").Allocatable(1),
		builders.MakeSeed("other-region").Provider("gcp", "europe-west3").Allocatable(0),
		builders.MakeSeed("free").Allocatable(5),
	)
	usage := usageOf(map[string]int{"full": 1, "free": 4})
	for _, strategy := range []config.Strategy{config.SameRegion, config.MinimalDistance} {
		p := gardener(t, strategy)
		in := &framework.Input{Shoot: builders.MakeShoot("p", "a").Obj(), Usage: usage}
		decided, scheduled := p.Decide(in, landscape), p.Schedule(in, landscape)
		assert.Equal(t, "free", winner(decided), strategy)
		assert.Equal(t, winner(scheduled), winner(decided), strategy)
		assert.Empty(t, decided.Rejections, "a successful decision explains nothing")
		assert.NotEmpty(t, scheduled.Rejections)

		in.Usage = usageOf(map[string]int{"full": 1, "free": 5})
		decided, scheduled = p.Decide(in, landscape), p.Schedule(in, landscape)
		assert.Nil(t, decided.Seed)
		assert.Equal(t, scheduled, decided, "a failed decision is explained like Schedule's")
		assert.Contains(t, decided.Message(), "CapacityExhausted: 3 seed(s)")
	}
}
