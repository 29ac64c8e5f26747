// Package seeduse counts, for tests and the demo, how many shoots of a sample of a
// landscape each seed hosts, and names the seeds above their allocatable: the invariant
// the end-to-end and node tests watch. The parts count with internal/usage's index.
package seeduse

import (
	"fmt"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// PerSeed counts the shoots of a list on each seed, by usage.SeedNames: a migrating shoot counts
// on both of its seeds. For samples of a landscape read from a cache or a list.
func PerSeed(shoots []gardencorev1beta1.Shoot) map[string]int {
	counts := map[string]int{}
	for i := range shoots {
		for _, seed := range usage.SeedNames(&shoots[i]) {
			counts[seed]++
		}
	}
	return counts
}

// Overfilled names the seeds that host more shoots (perSeed, from PerSeed) than their
// allocatable; a seed without allocatable shoots takes any number.
func Overfilled(seeds []gardencorev1beta1.Seed, perSeed map[string]int) []string {
	var over []string
	for _, s := range seeds {
		if q, ok := s.Status.Allocatable[gardencorev1beta1.ResourceShoots]; ok && int64(perSeed[s.Name]) > q.Value() {
			over = append(over, fmt.Sprintf("seed %s hosts %d shoots, above its allocatable %d", s.Name, perSeed[s.Name], q.Value()))
		}
	}
	return over
}
