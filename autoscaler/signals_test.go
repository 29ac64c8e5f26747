//go:build integration

package autoscaler_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/scale"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler"
)

// failingScales is the real scale client, with reads or writes failing on demand and the
// reads counted.
type failingScales struct {
	scale.ScalesGetter
	mu                  sync.Mutex
	failGet, failUpdate bool
	gets                int
}

func (s *failingScales) Scales(namespace string) scale.ScaleInterface {
	return &failingScale{ScaleInterface: s.ScalesGetter.Scales(namespace), s: s}
}

func (s *failingScales) getCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets
}

type failingScale struct {
	scale.ScaleInterface
	s *failingScales
}

func (x *failingScale) Get(ctx context.Context, gr schema.GroupResource, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error) {
	x.s.mu.Lock()
	x.s.gets++
	fail := x.s.failGet
	x.s.mu.Unlock()
	if fail {
		return nil, errors.New("the server is currently unable to handle the request")
	}
	return x.ScaleInterface.Get(ctx, gr, name, opts)
}

func (x *failingScale) Update(ctx context.Context, gr schema.GroupResource, sc *autoscalingv1.Scale, opts metav1.UpdateOptions) (*autoscalingv1.Scale, error) {
	x.s.mu.Lock()
	fail := x.s.failUpdate
	x.s.mu.Unlock()
	if fail {
		return nil, errors.New("admission webhook denied the request")
	}
	return x.ScaleInterface.Update(ctx, gr, sc, opts)
}

// startWithFailingScales starts the controller with a scale client that fails on demand.
func (f *fixture) startWithFailingScales(failGet, failUpdate bool) *failingScales {
	f.t.Helper()
	scales := &failingScales{failGet: failGet, failUpdate: failUpdate}
	f.startWith(func(mgr manager.Manager, r *autoscaler.Reconciler) {
		dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
		require.NoError(f.t, err)
		scalesGetter, err := scale.NewForConfig(env.Config, mgr.GetRESTMapper(), dynamic.LegacyAPIPathResolverFunc, scale.NewDiscoveryScaleKindResolver(dc))
		require.NoError(f.t, err)
		scales.ScalesGetter = scalesGetter
		r.Scales = scales
	})
	return scales
}

// createHotSet creates a set of two replicas whose seeds are at 90% of 100 shoots, nothing
// pending: against a target of 50% it wants 4 replicas.
func (f *fixture) createHotSet() *seedmanagementv1alpha1.ManagedSeedSet {
	f.t.Helper()
	set := f.createSet(2, nil)
	f.addReplica(set, replicaName(f.name, 0), 90, false)
	f.addReplica(set, replicaName(f.name, 1), 90, false)
	f.metrics.setPending(f.name, 0)
	return set
}

// waitForReason waits until the condition of the given type has the given reason.
func (f *fixture) waitForReason(typ, reason string) {
	f.t.Helper()
	f.waitForStatus(typ+" "+reason, func(st autoscalingv1alpha1.SeedAutoscalerStatus) bool {
		c := meta.FindStatusCondition(st.Conditions, typ)
		return c != nil && c.Reason == reason
	})
}

// A human's zero is no metrics problem: it gets an event of its own, not MetricsUnavailable.
func TestHumanZeroIsNotReportedAsMetricsUnavailable(t *testing.T) {
	f := newFixture(t, "human-zero")
	f.createSet(0, nil)
	f.metrics.setPending(f.name, 3)
	f.createAutoscaler(1, 10, 50, nil)
	f.start(false)

	require.Eventually(t, func() bool {
		return f.condition(autoscalingv1alpha1.SeedAutoscalerScalingActive).Reason == "ScalingDisabled"
	}, timeout, tick)
	notes := f.eventsOnceThere("ScalingDisabled", 1)
	assert.Contains(t, notes[0], "scaled to zero by someone else")
	assert.Empty(t, f.events("MetricsUnavailable"))
	assert.Equal(t, int32(0), f.specReplicas())
}

// An unusable selector is said in an event, and the status does not keep the last
// decision's replicas and metrics as if they were current.
func TestInvalidSelectorIsReportedAndStatusNotStale(t *testing.T) {
	f := newFixture(t, "invalid-selector")
	set := f.createHotSet()
	f.createAutoscaler(1, 10, 50, nil)
	f.start(false)
	require.Eventually(t, func() bool { return f.specReplicas() == 4 }, timeout, tick)
	f.waitForTargets("90%/50%")

	require.NoError(t, env.Client.Get(f.ctx, client.ObjectKeyFromObject(set), set))
	set.Status.Selector = ""
	require.NoError(t, env.Client.Status().Update(f.ctx, set))

	f.waitForReason(autoscalingv1alpha1.SeedAutoscalerScalingActive, "InvalidSelector")
	notes := f.eventsOnceThere("InvalidSelector", 1)
	assert.Contains(t, notes[0], "status.selector")
	sa := f.get()
	assert.Equal(t, "<unknown>/50%", sa.Status.Targets)
	assert.Equal(t, int32(4), sa.Status.CurrentReplicas)
	assert.Equal(t, int32(4), sa.Status.DesiredReplicas, "no decision: the replicas stay")
	require.Len(t, sa.Status.CurrentMetrics, 1)
	assert.Nil(t, sa.Status.CurrentMetrics[0].Resource.Current.AverageUtilization, "no current value is known")
	assert.Empty(t, f.events("MetricsUnavailable"))
}

// When writing /scale fails, status still shows what was decided and measured.
func TestFailedScaleWriteStillShowsTheDecision(t *testing.T) {
	f := newFixture(t, "failed-update")
	f.createHotSet()
	f.createAutoscaler(1, 10, 50, nil)
	f.startWithFailingScales(false, true)

	f.waitForReason(autoscalingv1alpha1.SeedAutoscalerAbleToScale, "FailedUpdateScale")
	sa := f.get()
	assert.Equal(t, int32(2), sa.Status.CurrentReplicas)
	assert.Equal(t, int32(4), sa.Status.DesiredReplicas)
	assert.Equal(t, "90%/50%", sa.Status.Targets)
	assert.Empty(t, sa.Status.ScaleEvents, "nothing was scaled")
	assert.Nil(t, sa.Status.LastScaleTime)
	assert.Equal(t, int32(2), f.specReplicas())
	assert.NotEmpty(t, f.eventsOnceThere("FailedRescale", 1))
}

// After errors the controller retries within its sync period, not after an exponential
// backoff that reaches minutes.
func TestRetriesWithinTheSyncPeriodAfterErrors(t *testing.T) {
	f := newFixture(t, "backoff")
	f.createSet(2, nil)
	f.metrics.setPending(f.name, 0)
	f.createAutoscaler(1, 10, 50, nil)
	scales := f.startWithFailingScales(true, false)

	require.Eventually(t, func() bool { return scales.getCount() > 0 }, timeout, tick)
	start := scales.getCount()
	time.Sleep(5 * time.Second)
	// Doubling from 5 ms reaches 2.5 s after ten failures; every 100 ms (the sync period
	// here) is about 50 in 5 s.
	assert.GreaterOrEqual(t, scales.getCount()-start, 25, "retries in 5 s")
}

// The pause annotation scales the target to its replicas and holds it there, whatever the
// metrics say, until it is removed; an invalid value holds the target where it is.
func TestPausedReplicasHoldTheTarget(t *testing.T) {
	f := newFixture(t, "paused")
	f.createHotSet()
	sa := f.createAutoscaler(1, 10, 50, nil)
	sa.Annotations = map[string]string{autoscalingv1alpha1.AnnotationPausedReplicas: "3"}
	require.NoError(t, env.Client.Update(f.ctx, sa))
	f.start(false)

	require.Eventually(t, func() bool { return f.specReplicas() == 3 }, timeout, tick)
	f.waitForReason(autoscalingv1alpha1.SeedAutoscalerScalingActive, "ScalingPaused")
	st := f.get().Status
	assert.Equal(t, "ManagedSeedSet/paused", st.Reference)
	assert.Equal(t, int32(3), st.DesiredReplicas)
	assert.Equal(t, "90%/50%", st.Targets, "still measured while paused")
	assert.Equal(t, []string{"2 → 3: paused at 3 replicas by the annotation autoscaling.seedscaler.io/paused-replicas; remove it to resume autoscaling"}, f.eventsOnceThere("SuccessfulRescale", 1))
	assert.NotEmpty(t, f.eventsOnceThere("ScalingPaused", 1))
	f.clock.Step(time.Minute)
	f.waitForEvaluation()
	assert.Equal(t, int32(3), f.specReplicas(), "90% of target 50% would be 4")

	// Not a number: held where it is, and said.
	sa = f.get()
	sa.Annotations[autoscalingv1alpha1.AnnotationPausedReplicas] = "three"
	require.NoError(t, env.Client.Update(f.ctx, sa))
	f.waitForReason(autoscalingv1alpha1.SeedAutoscalerScalingActive, "InvalidPausedReplicas")
	notes := f.eventsOnceThere("InvalidPausedReplicas", 1)
	assert.Contains(t, notes[0], `annotation autoscaling.seedscaler.io/paused-replicas="three" is not a whole number of replicas`)
	assert.Equal(t, int32(3), f.specReplicas())

	// Removed: the autoscaler decides again.
	sa = f.get()
	delete(sa.Annotations, autoscalingv1alpha1.AnnotationPausedReplicas)
	require.NoError(t, env.Client.Update(f.ctx, sa))
	require.Eventually(t, func() bool { return f.specReplicas() == 4 }, timeout, tick)
}
