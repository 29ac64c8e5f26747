//go:build integration

package autoscaler_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/autoscaler"
)

// A set of two replicas at the target (50 of 100 shoots each, 50%), evaluated by a
// controller whose sync period is an hour: whatever it decides in a test came from
// something other than the timer.
func (f *fixture) startWithoutTimer(reactToSamples bool) {
	f.t.Helper()
	set := f.createSet(2, nil)
	f.addReplica(set, replicaName(f.name, 0), 50, false)
	f.addReplica(set, replicaName(f.name, 1), 50, false)
	f.metrics.setPending(f.name, 0)
	f.createAutoscaler(1, 10, 50, nil)
	f.startWith(func(_ manager.Manager, r *autoscaler.Reconciler) {
		r.SyncPeriod, r.ReactToSamples = time.Hour, reactToSamples
	})
	f.waitForTargets("50%/50%")
}

// touch changes an annotation of the autoscaler, which is evaluated at once.
func (f *fixture) touch(value string) {
	f.t.Helper()
	sa := f.get()
	patch := client.MergeFrom(sa.DeepCopy())
	metav1.SetMetaDataAnnotation(&sa.ObjectMeta, "test/touch", value)
	require.NoError(f.t, env.Client.Patch(f.ctx, sa, patch))
}

// Samples every 2 s: once the autoscaler has seen two of them, it evaluates the next one as
// soon as it can be read, without waiting for the sync period, and scales on it.
func TestNextSampleIsEvaluatedWithoutWaitingForTheSyncPeriod(t *testing.T) {
	f := newFixture(t, "react-to-samples")
	f.startWithoutTimer(true)

	// A second sample, 2 s after the first, teaches the interval.
	f.clock.Step(2 * time.Second)
	f.touch("1")
	f.waitForEvaluation()

	// The next sample shows the seeds at 90%: 4 replicas hold it at 50%.
	f.metrics.setUsage(gardencorev1beta1.ResourceShoots, replicaName(f.name, 0), 90)
	f.metrics.setUsage(gardencorev1beta1.ResourceShoots, replicaName(f.name, 1), 90)
	f.clock.Step(2 * time.Second)
	require.Eventually(t, func() bool { return f.specReplicas() == 4 }, timeout, tick,
		"the autoscaler did not scale on the next sample before its hour-long sync period")
}

// A seed that turns NotReady changes the capacity the set has: the autoscaler evaluates at
// once, not at its next sync.
func TestSeedReadinessChangeIsEvaluatedAtOnce(t *testing.T) {
	f := newFixture(t, "seed-readiness")
	f.startWithoutTimer(false)

	f.clock.Step(time.Second)
	seed := &gardencorev1beta1.Seed{}
	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKey{Name: replicaName(f.name, 1)}, seed))
	meta.SetStatusCondition(&seed.Status.Conditions, metav1.Condition{
		Type: gardencorev1beta1.SeedGardenletReady, Status: metav1.ConditionFalse, Reason: "HeartbeatMissing", Message: "no heartbeat",
	})
	require.NoError(t, env.Client.Status().Update(f.ctx, seed))
	f.waitForEvaluation()
}
