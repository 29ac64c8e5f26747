package autoscaler

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
)

// objectSample is one series of an objectGauge: its labels after namespace and name, and
// its value.
type objectSample struct {
	labels []string
	value  float64
}

// objectGauge is a gauge with series per SeedAutoscaler that each evaluation replaces
// whole. A SeedAutoscaler's series go with it, and also when no evaluation has renewed them
// for maxAge: in object-locks mode another replica may evaluate it now, and a replica
// must not go on serving what it last saw.
type objectGauge struct {
	desc   *prometheus.Desc
	maxAge time.Duration
	now    func() time.Time

	mu     sync.Mutex
	series map[types.NamespacedName]objectSeries
}

type objectSeries struct {
	expires time.Time
	samples []objectSample
}

func newObjectGauge(name, help string, maxAge time.Duration, labels ...string) *objectGauge {
	return &objectGauge{
		desc:   prometheus.NewDesc(name, help, append([]string{"namespace", "name"}, labels...), nil),
		maxAge: maxAge,
		now:    time.Now,
		series: map[types.NamespacedName]objectSeries{},
	}
}

// set replaces the series of a SeedAutoscaler for maxAge; no samples removes them.
func (g *objectGauge) set(obj types.NamespacedName, samples []objectSample) {
	g.setFor(obj, samples, g.maxAge)
}

// setFor replaces the series of a SeedAutoscaler for ttl; no samples removes them.
func (g *objectGauge) setFor(obj types.NamespacedName, samples []objectSample, ttl time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(samples) == 0 {
		delete(g.series, obj)
		return
	}
	g.series[obj] = objectSeries{expires: g.now().Add(ttl), samples: samples}
}

// Describe implements prometheus.Collector.
func (g *objectGauge) Describe(ch chan<- *prometheus.Desc) { ch <- g.desc }

// Collect implements prometheus.Collector: the series that have not expired; it drops the
// expired ones.
func (g *objectGauge) Collect(ch chan<- prometheus.Metric) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	for obj, s := range g.series {
		if !now.Before(s.expires) {
			delete(g.series, obj)
			continue
		}
		for _, smp := range s.samples {
			ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, smp.value, append([]string{obj.Namespace, obj.Name}, smp.labels...)...)
		}
	}
}
