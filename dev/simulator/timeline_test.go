package simulator

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

func TestTakeSampleAndTimeline(t *testing.T) {
	tenant := func(name string, seed string) gardencorev1beta1.Shoot {
		b := builders.MakeShoot("garden-p", name).Labels(LabelTenant, "true")
		if seed != "" {
			b.SeedName(seed)
		}
		return *b.Obj()
	}
	deleting := tenant("d", "a")
	deleting.DeletionTimestamp = &metav1.Time{Time: epoch}
	failed := *builders.MakeShoot("garden", "replica").SeedName("soil").
		LastOperation(gardencorev1beta1.LastOperationTypeCreate, gardencorev1beta1.LastOperationStateFailed).Obj()
	shoots := []gardencorev1beta1.Shoot{tenant("x", "a"), tenant("y", "b"), tenant("z", ""), deleting, failed}
	seeds := []gardencorev1beta1.Seed{
		*builders.MakeSeed("a").Allocatable(4).Ready().Obj(),
		*builders.MakeSeed("b").Allocatable(6).Ready().Obj(),
		*builders.MakeSeed("c").Allocatable(10).Obj(), // not ready: its allocatable does not count
		*builders.MakeSeed("soil").Ready().Obj(),      // no allocatable: unlimited, not counted
	}
	smp := TakeSample(90*time.Minute+500*time.Millisecond, map[string]int{"gcp/x": 3, "aws/y": 2}, shoots, seeds)
	assert.Equal(t, Sample{Elapsed: 90*time.Minute + 500*time.Millisecond, Wanted: 5, Tenants: 3, Shoots: 4, Bound: 4, Pending: 1, Failed: 1,
		Seeds: 4, SeedsReady: 3, Allocatable: 10, Utilization: 0.3}, smp)
	assert.Equal(t, "sim 1h30m0s   wanted    5  tenants    3  bound    4  pending    1  failed   1  seeds ready   3/4    utilization  30.0%", smp.ProgressLine())

	var buf bytes.Buffer
	require.NoError(t, WriteTimelineCSV(&buf, []Sample{{}, smp}))
	assert.Equal(t, "elapsed_seconds,wanted,tenants,shoots,bound,pending,failed,seeds,seeds_ready,allocatable,utilization\n"+
		"0,0,0,0,0,0,0,0,0,0,0.0000\n"+
		"5400,5,3,4,4,1,1,4,3,10,0.3000\n", buf.String())
}

// epoch is where every fake clock starts; a whole second, so Lease renew times (microseconds)
// compare equal to it.
var epoch = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
