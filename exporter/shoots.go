package exporter

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	toolscache "k8s.io/client-go/tools/cache"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/internal/usage"
)

// shootIndex keeps, from Shoot informer events, one garden_shoot_info series per shoot and
// the count of unscheduled shoots per provider and region. A scrape only reads it: with
// 100,000 shoots, building their series at scrape time would cost more than the scrape
// budget, and walking the shoots to count the unscheduled ones is what an index is for.
type shootIndex struct {
	mu          sync.Mutex
	byKey       map[string]*shootInfo
	unscheduled map[providerRegion]int
	// sorted holds byKey's series in exposition order while clean: the registry sorts
	// every family, and sorting 100,000 series from map order dominates a scrape, while
	// an already sorted family costs it one pass.
	sorted []*shootInfo
	clean  bool
}

type providerRegion struct{ provider, region string }

func newShootIndex() *shootIndex {
	return &shootIndex{byKey: map[string]*shootInfo{}, unscheduled: map[providerRegion]int{}}
}

// Handler returns informer event handlers that keep the index in step with a Shoot
// informer. Objects that are not Shoots are ignored.
func (x *shootIndex) Handler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { x.observe(obj) },
		UpdateFunc: func(_, obj any) { x.observe(obj) },
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				x.delete(tomb.Key)
				return
			}
			if shoot, ok := obj.(*gardencorev1beta1.Shoot); ok {
				x.delete(usage.Key(shoot))
			}
		},
	}
}

func (x *shootIndex) observe(obj any) {
	shoot, ok := obj.(*gardencorev1beta1.Shoot)
	if !ok {
		return
	}
	info := &shootInfo{
		name:      shoot.Name,
		namespace: shoot.Namespace,
		provider:  shoot.Spec.Provider.Type,
		region:    shoot.Spec.Region,
	}
	if shoot.Spec.SeedName != nil {
		info.seed = *shoot.Spec.SeedName
	}
	if shoot.Spec.Purpose != nil {
		info.purpose = string(*shoot.Spec.Purpose)
	}
	key := usage.Key(shoot)

	x.mu.Lock()
	defer x.mu.Unlock()
	x.forget(key)
	info.labels = info.labelPairs()
	x.byKey[key] = info
	x.clean = false
	if info.seed == "" {
		x.unscheduled[providerRegion{info.provider, info.region}]++
	}
}

func (x *shootIndex) delete(key string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.forget(key)
}

// forget removes what the index holds for a shoot; the caller holds the lock.
func (x *shootIndex) forget(key string) {
	old, ok := x.byKey[key]
	if !ok {
		return
	}
	delete(x.byKey, key)
	x.clean = false
	if old.seed != "" {
		return
	}
	// A provider and region once seen keeps its series at 0: a dashboard shows 0, not "no
	// data", and alerts see the series drop instead of vanish. Regions are few.
	pr := providerRegion{old.provider, old.region}
	x.unscheduled[pr] = max(0, x.unscheduled[pr]-1)
}

// collect sends a garden_shoot_info series per shoot and a garden_shoots_unscheduled
// series per provider and region that has had unscheduled shoots (0 when it has none now).
func (x *shootIndex) collect(ch chan<- prometheus.Metric) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.clean {
		x.sorted = x.sorted[:0]
		for _, info := range x.byKey {
			x.sorted = append(x.sorted, info)
		}
		// The registry's order: label values in label-name order; name and namespace
		// already tell every shoot apart.
		slices.SortFunc(x.sorted, func(a, b *shootInfo) int {
			return cmp.Or(strings.Compare(a.name, b.name), strings.Compare(a.namespace, b.namespace))
		})
		x.clean = true
	}
	for _, info := range x.sorted {
		ch <- info
	}
	for pr, n := range x.unscheduled {
		ch <- prometheus.MustNewConstMetric(shootsUnscheduledDesc, prometheus.GaugeValue, float64(n), pr.provider, pr.region)
	}
}

// shootInfo is a shoot's garden_shoot_info series. It is its own prometheus.Metric with
// its label pairs built once, when the informer reports the shoot, so a scrape of 100,000
// shoots sends pointers and allocates almost nothing per series. It is never changed once
// in the index (an update replaces it), and nobody downstream of Write changes a label
// pair, so the pairs a Write hands out can be shared by every scrape.
type shootInfo struct {
	name, namespace, seed, provider, region, purpose string
	labels                                           []*dto.LabelPair
}

// Label names of garden_shoot_info in sorted order, as the exposition wants them.
var shootInfoLabelNames = [...]string{"name", "namespace", "provider", "purpose", "region", "seed"}

// Desc implements prometheus.Metric.
func (s *shootInfo) Desc() *prometheus.Desc { return shootInfoDesc }

// Write implements prometheus.Metric.
func (s *shootInfo) Write(out *dto.Metric) error {
	out.Label = s.labels
	out.Gauge = infoGauge
	return nil
}

// labelPairs builds the series' labels, in label-name order.
func (s *shootInfo) labelPairs() []*dto.LabelPair {
	values := [...]*string{&s.name, &s.namespace, &s.provider, &s.purpose, &s.region, &s.seed}
	pairs := make([]dto.LabelPair, len(values))
	out := make([]*dto.LabelPair, len(values))
	for i := range values {
		pairs[i].Name, pairs[i].Value = &shootInfoLabelNames[i], values[i]
		out[i] = &pairs[i]
	}
	return out
}

// infoGauge is the value of every info series, shared: nobody writes it.
var infoGauge = &dto.Gauge{Value: &one}

var one = 1.0
