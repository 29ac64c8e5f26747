package managedseedset

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

// BenchmarkDecideScaleIn measures one scale-in decision of a set with n replicas asked to
// shrink by a tenth: a fifth of the seeds host shoots, one in twenty is protected, one in
// ten is NotReady, one in eight has a priority annotation.
func BenchmarkDecideScaleIn(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("replicas=%d", n), func(b *testing.B) {
			w := scaleInWorld(n)
			d := decide(w)
			require.NotNil(b, d.replica)
			require.Equal(b, stepDeleteManagedSeed, d.step.kind)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				decide(w)
			}
		})
	}
}

func scaleInWorld(n int) world {
	f := fixture{set: "bench"}
	rng := rand.New(rand.NewPCG(1, 0))
	replicas := make([]*replica, 0, n)
	for i := range n {
		r := readyReplica(f, int32(i), "r1")
		switch {
		case rng.IntN(5) == 0:
			r.shootsOnSeed = 1 + rng.IntN(100)
		case rng.IntN(20) == 0:
			annotate(r, seedmanagementv1alpha1.AnnotationProtectFromDeletion, "true")
		}
		if rng.IntN(10) == 0 {
			withSeed(r, false)
		}
		if rng.IntN(8) == 0 {
			annotate(r, seedmanagementv1alpha1.AnnotationPriority, strconv.Itoa(rng.IntN(6)))
		}
		replicas = append(replicas, r)
	}
	return world{replicas: replicas, target: n - n/10 - 1, updateRevision: "r1", nextOrdinal: int32(n), maxRetries: 3}
}
