package seeduse

import (
	"testing"

	"github.com/stretchr/testify/assert"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

func TestPerSeedAndOverfilled(t *testing.T) {
	migrating := builders.MakeShoot("t", "m").SeedName("b").StatusSeedName("a").Obj()
	shoots := []gardencorev1beta1.Shoot{
		*builders.MakeShoot("t", "1").SeedName("a").Obj(),
		*builders.MakeShoot("t", "2").SeedName("a").Obj(),
		*migrating,
		*builders.MakeShoot("t", "pending").Obj(),
	}
	perSeed := PerSeed(shoots)
	assert.Equal(t, map[string]int{"a": 3, "b": 1}, perSeed, "a migrating shoot counts on both seeds")

	seeds := []gardencorev1beta1.Seed{
		*builders.MakeSeed("a").Allocatable(2).Obj(),
		*builders.MakeSeed("b").Allocatable(1).Obj(),
		*builders.MakeSeed("root").Obj(), // no allocatable: takes any number
	}
	assert.Equal(t, []string{"seed a hosts 3 shoots, above its allocatable 2"}, Overfilled(seeds, perSeed))
}
