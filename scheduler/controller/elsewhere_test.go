package controller

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/event"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/test/framework/builders"
)

// gardenerReport is the lastOperation gardener-scheduler writes on a shoot no seed takes
// (reportFailedScheduling).
func gardenerReport() *gardencorev1beta1.LastOperation {
	return &gardencorev1beta1.LastOperation{
		Type:        gardencorev1beta1.LastOperationTypeCreate,
		State:       gardencorev1beta1.LastOperationStatePending,
		Description: "Failed to schedule Shoot: none out of the 3 seeds has the matching labels required by seed selector of 'CloudProfile' (or is excluded by the shoot's seed selector)",
	}
}

// reported is a shoot of gardener-scheduler (no schedulerName) with the given lastOperation.
func reported(op *gardencorev1beta1.LastOperation) *gardencorev1beta1.Shoot {
	shoot := builders.MakeShoot("tenant", "web").Obj()
	shoot.Status.LastOperation = op
	return shoot
}

func TestPendingElsewhere(t *testing.T) {
	const ours = "seedscaler-scheduler"
	with := func(change func(*gardencorev1beta1.LastOperation)) *gardencorev1beta1.Shoot {
		op := gardenerReport()
		change(op)
		return reported(op)
	}
	deleting := reported(gardenerReport())
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	namedOther := reported(gardenerReport())
	namedOther.Spec.SchedulerName = ptr.To("custom-scheduler")
	bound := reported(gardenerReport())
	bound.Spec.SeedName = ptr.To("aws-1")
	mine := reported(gardenerReport())
	mine.Spec.SchedulerName = ptr.To(ours)

	cases := []struct {
		name  string
		shoot *gardencorev1beta1.Shoot
		want  bool
	}{
		{"gardener-scheduler reported it unschedulable", reported(gardenerReport()), true},
		{"another named scheduler reported it in gardener-scheduler's words", namedOther, true},
		{"not reported yet: its scheduler may still place it", reported(nil), false},
		{"bound", bound, false},
		{"being deleted", deleting, false},
		{"this scheduler's own shoot is scheduled, not counted here", mine, false},
		{"another seedscaler scheduler's report: it counts the shoot itself",
			with(func(op *gardencorev1beta1.LastOperation) {
				op.Description = SchedulingFailed + "0/3 seeds are available"
			}), false},
		{"a gardenlet's create in progress", with(func(op *gardencorev1beta1.LastOperation) {
			op.State = gardencorev1beta1.LastOperationStateProcessing
			op.Description = "Waiting for the seed"
		}), false},
		{"pending but not a scheduling failure", with(func(op *gardencorev1beta1.LastOperation) { op.Description = "Shoot cluster state is being reconciled" }), false},
		{"the right words on a reconcile", with(func(op *gardencorev1beta1.LastOperation) { op.Type = gardencorev1beta1.LastOperationTypeReconcile }), false},
		{"the right words in another state", with(func(op *gardencorev1beta1.LastOperation) { op.State = gardencorev1beta1.LastOperationStateError }), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, PendingElsewhere(c.shoot, ours))
		})
	}
}

func TestStopsWaiting(t *testing.T) {
	unbound := builders.MakeShoot("tenant", "web").Obj()
	bound := builders.MakeShoot("tenant", "web").SeedName("aws-1").Obj()
	deleting := unbound.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	migrating := builders.MakeShoot("tenant", "web").SeedName("aws-2").Obj()
	boundDeleting := bound.DeepCopy()
	boundDeleting.DeletionTimestamp = deleting.DeletionTimestamp
	reportedAgain := reported(gardenerReport())

	cases := []struct {
		name     string
		old, cur *gardencorev1beta1.Shoot
		want     bool
	}{
		{"bound", unbound, bound, true},
		{"its deletion began", unbound, deleting, true},
		{"still waiting: a report of its scheduler", unbound, reportedAgain, false},
		{"a deleting shoot changes again", deleting, deleting, false},
		{"a bound shoot moves to another seed", bound, migrating, false},
		{"a bound shoot is deleted: it never waited", bound, boundDeleting, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, StopsWaiting(c.old, c.cur))
		})
	}
}

// Of other schedulers' shoots, the scheduler sees those that start or stop counting in
// pending-fit, and spec changes while they count; with pendingFit.otherSchedulers off, none.
func TestPredicateOfShootsPendingElsewhere(t *testing.T) {
	predicateFor := func(otherSchedulers bool) func(old, cur *gardencorev1beta1.Shoot) bool {
		cfg := &config.SchedulerConfiguration{SchedulerName: "seedscaler-scheduler", PendingFit: &config.PendingFit{OtherSchedulers: ptr.To(otherSchedulers)}}
		config.Default(cfg)
		require.NoError(t, config.Validate(cfg))
		p := (&Reconciler{Config: cfg}).predicate()
		return func(old, cur *gardencorev1beta1.Shoot) bool {
			switch {
			case old == nil:
				return p.Create(event.CreateEvent{Object: cur})
			case cur == nil:
				return p.Delete(event.DeleteEvent{Object: old})
			}
			return p.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: cur})
		}
	}
	waiting := reported(nil)
	waiting.Generation = 1
	pending := waiting.DeepCopy()
	pending.Status.LastOperation = gardenerReport()
	reportedAgain := pending.DeepCopy()
	reportedAgain.Status.LastOperation.LastUpdateTime = metav1.Unix(60, 0)
	specChanged := pending.DeepCopy()
	specChanged.Generation = 2
	bound := pending.DeepCopy()
	bound.Spec.SeedName = ptr.To("aws-1")

	cases := []struct {
		name     string
		old, cur *gardencorev1beta1.Shoot
		want     bool
	}{
		{"created already reported (the scheduler started late)", nil, pending, true},
		{"created, not reported yet", nil, waiting, false},
		{"its scheduler reports it unschedulable", waiting, pending, true},
		{"its scheduler reports it again: the backoff looks again", pending, reportedAgain, false},
		{"its spec changed while it counts", pending, specChanged, true},
		{"its scheduler bound it", pending, bound, true},
		{"deleted while it counts", pending, nil, true},
		{"deleted before it counted", waiting, nil, false},
	}
	on, off := predicateFor(true), predicateFor(false)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, on(c.old, c.cur))
			assert.False(t, off(c.old, c.cur), "pendingFit.otherSchedulers: false leaves other schedulers' shoots alone")
		})
	}
}

// A shoot leaves pending-fit the moment the informer shows it bound or deleted, without
// waiting for the work queue.
func TestForgetPlacedShoots(t *testing.T) {
	set := types.NamespacedName{Namespace: "garden", Name: "aws"}
	r := &Reconciler{
		pending:  newPendingFits(func() ([]types.NamespacedName, bool) { return []types.NamespacedName{set}, true }),
		failures: map[string]int{},
	}
	h := r.forgetPlacedShoots()
	count := func() int {
		counts, ok := r.pending.counts()
		require.True(t, ok)
		return counts[set]
	}
	waiting := reported(gardenerReport())
	other := builders.MakeShoot("tenant", "api").Obj()
	other.Status.LastOperation = gardenerReport()
	for _, s := range []*gardencorev1beta1.Shoot{waiting, other} {
		r.pending.set(usage.Key(s), []types.NamespacedName{set})
		r.failures[usage.Key(s)] = 3
	}
	require.Equal(t, 2, count())

	h.OnUpdate(waiting, reported(gardenerReport()))
	assert.Equal(t, 2, count(), "reported again: still waiting")

	bound := waiting.DeepCopy()
	bound.Spec.SeedName = ptr.To("aws-1")
	h.OnUpdate(waiting, bound)
	assert.Equal(t, 1, count(), "bound by its scheduler")
	assert.NotContains(t, r.failures, usage.Key(waiting), "its backoff starts over")

	h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: usage.Key(other), Obj: other})
	assert.Equal(t, 0, count(), "deleted, seen only as a tombstone")
	assert.Empty(t, r.failures)
}
