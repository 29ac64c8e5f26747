package exporter

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
)

// How long shoots wait for a seed, the service level indicator of scheduling
// (docs/metrics.md, docs/runbooks.md#shootschedulingbudgetburnfast).
//
// The exporter observes it, not the scheduler: the scheduler sees only its own binds, while
// the exporter watches every Shoot of the garden and so also sees the binds of
// gardener-scheduler and of operators who set spec.seedName by hand. A wait is observed
// when the Shoot informer reports the update that set spec.seedName on a shoot it held
// without one; a shoot created with a seed, or first seen already bound (e.g. by a
// replica that started after the bind), waited for nothing the exporter can time.

// schedulingWaitBuckets are the upper bounds of garden_shoot_scheduling_wait_seconds. The
// objective's threshold (60 s by default) must be one of them, since the SLI reads the
// bucket of the threshold: the chart's monitoring.shootSchedulingSLO.thresholdSeconds
// accepts exactly these. Fine around a minute, where the objective is, and up to the hour
// a new seed may take to appear.
var schedulingWaitBuckets = []float64{1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600, 900, 1800, 3600}

// newSchedulingWaits returns the garden_shoot_scheduling_wait_seconds histogram, by the
// ManagedSeedSet of the chosen seed (managedseedset and namespace, empty for a seed of no
// set, as in garden_seed_info) and the shoot's region.
func newSchedulingWaits() *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "garden_shoot_scheduling_wait_seconds",
		Help:    "Seconds from a shoot's creation to the update that set its spec.seedName, for shoots the exporter saw without a seed.",
		Buckets: schedulingWaitBuckets,
	}, []string{"managedseedset", "namespace", "region"})
}

// bindWait returns how long a shoot waited for a seed when the update from old to updated
// is its binding: old had no spec.seedName and updated has one. It returns false for any
// other update (a resync, a migration to another seed, a change while still unbound) and
// for a shoot without a creation time. creationTimestamp has a resolution of a second, so
// the wait is at most a second longer than it was; a wait the clocks of the kube-apiserver
// and the exporter make negative counts as none.
func bindWait(old, updated *shootInfo, now time.Time) (time.Duration, bool) {
	if old.seed != "" || updated.seed == "" || updated.created == 0 {
		return 0, false
	}
	return max(0, now.Sub(time.Unix(updated.created, 0))), true
}

// bindingHandler observes the wait of every binding the Shoot informer reports, labeled
// with the set of the seed as the Seed and ManagedSeed caches say at that moment.
func (c *Collector) bindingHandler(clk clock.PassiveClock) toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{UpdateFunc: func(oldObj, newObj any) {
		old, ok := oldObj.(*shootInfo)
		if !ok {
			return
		}
		updated, ok := newObj.(*shootInfo)
		if !ok {
			return
		}
		wait, bound := bindWait(old, updated, clk.Now())
		if !bound {
			return
		}
		set := c.setOfSeedNamed(updated.seed)
		c.schedulingWaits.WithLabelValues(set.Name, set.Namespace, updated.region).Observe(wait.Seconds())
	}}
}

// setOfSeedNamed is setOfSeed of the seed of that name in the Seed cache; empty when the
// cache does not hold it (yet).
func (c *Collector) setOfSeedNamed(name string) types.NamespacedName {
	obj, ok, _ := c.src.Seeds.GetByKey(name)
	if !ok {
		return types.NamespacedName{}
	}
	seed, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return types.NamespacedName{}
	}
	return c.setOfSeed(seed)
}
