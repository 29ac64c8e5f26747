package exporter

import (
	"cmp"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"

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

// Handler returns informer event handlers that keep the index in step with the Shoot
// informer, whose objects are shootInfo records (transformShoot). Other objects are ignored.
func (x *shootIndex) Handler() toolscache.ResourceEventHandler {
	return usage.KeyedHandler(shootKey, x.observe, x.delete)
}

// usageHandler keeps a usage index in step with the Shoot informer's shootInfo records,
// counting each shoot on its seeds as usage.SeedNames does.
func usageHandler(index *usage.Index) toolscache.ResourceEventHandler {
	return usage.KeyedHandler(shootKey, func(info *shootInfo) {
		index.Set(info.key, usage.SeedNamesOf(info.seed, info.statusSeed))
	}, index.Delete)
}

func shootKey(info *shootInfo) string { return info.key }

func (x *shootIndex) observe(info *shootInfo) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.forget(info.key)
	x.byKey[info.key] = info
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

// collect sends a garden_shoot_info series per shoot, unless withInfo is false (the text
// handler writes them), and a garden_shoots_unscheduled series per provider and region
// that has had unscheduled shoots (0 when it has none now).
func (x *shootIndex) collect(ch chan<- prometheus.Metric, withInfo bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if withInfo {
		for _, info := range x.sortedLocked() {
			ch <- info
		}
	}
	for pr, n := range x.unscheduled {
		ch <- prometheus.MustNewConstMetric(shootsUnscheduledDesc, prometheus.GaugeValue, float64(n), pr.provider, pr.region)
	}
}

// sortedLocked returns the series in exposition order (label values in label-name order;
// name and namespace already tell every shoot apart), sorting only after a change. The
// caller holds the lock. A slice handed out is never changed (a change sorts into a new
// one), so callers may read it after unlocking.
func (x *shootIndex) sortedLocked() []*shootInfo {
	if !x.clean {
		x.sorted = make([]*shootInfo, 0, len(x.byKey))
		for _, info := range x.byKey {
			x.sorted = append(x.sorted, info)
		}
		slices.SortFunc(x.sorted, func(a, b *shootInfo) int {
			return cmp.Or(strings.Compare(a.name, b.name), strings.Compare(a.namespace, b.namespace))
		})
		x.clean = true
	}
	return x.sorted
}

// writeText writes the garden_shoot_info family in the Prometheus text format: the lines
// were rendered when the informer reported each shoot, so a scrape copies bytes. It writes
// outside the lock: a slow scraper must not hold up the shoot informer's handler.
func (x *shootIndex) writeText(w io.Writer) error {
	x.mu.Lock()
	sorted := x.sortedLocked()
	x.mu.Unlock()
	if len(sorted) == 0 {
		return nil
	}
	if _, err := io.WriteString(w, shootInfoHeader); err != nil {
		return err
	}
	for _, info := range sorted {
		if _, err := w.Write(info.line); err != nil {
			return err
		}
	}
	return nil
}

const shootInfoHeader = "# HELP garden_shoot_info " + shootInfoHelp + "\n# TYPE garden_shoot_info gauge\n"

// shootInfo is what the exporter keeps of a shoot: the Shoot informer's object
// (transformShoot) and, the same record, the shoot's garden_shoot_info series. It is its
// own prometheus.Metric (for a registry), and carries its text exposition line, rendered
// once when the informer reports the shoot, for the exporter's handler (Collector.Handler):
// a scrape of 100,000 shoots copies lines instead of building, checking and encoding
// 100,000 series. It is never changed once made; an update replaces it.
type shootInfo struct {
	// key is namespace/name, the informer's key; name shares its memory.
	key, name, namespace, resourceVersion string
	// seed is spec.seedName, statusSeed status.seedName.
	seed, statusSeed, provider, region, purpose string
	// created is metadata.creationTimestamp in Unix seconds (its resolution), 0 when unset:
	// where a shoot's wait for a seed starts (bindWait).
	created int64
	line    []byte
}

// GetObjectMeta lets the informer's store key the record and tell an update from a resync
// by its resource version (metav1.ObjectMetaAccessor).
func (s *shootInfo) GetObjectMeta() metav1.Object {
	return &metav1.ObjectMeta{Namespace: s.namespace, Name: s.name, ResourceVersion: s.resourceVersion}
}

// Label names of garden_shoot_info in sorted order, as the exposition wants them.
var shootInfoLabelNames = [...]string{"name", "namespace", "provider", "purpose", "region", "seed"}

// Desc implements prometheus.Metric.
func (s *shootInfo) Desc() *prometheus.Desc { return shootInfoDesc }

// Write implements prometheus.Metric.
func (s *shootInfo) Write(out *dto.Metric) error {
	values := [...]*string{&s.name, &s.namespace, &s.provider, &s.purpose, &s.region, &s.seed}
	pairs := make([]dto.LabelPair, len(values))
	out.Label = make([]*dto.LabelPair, len(values))
	for i := range values {
		pairs[i].Name, pairs[i].Value = &shootInfoLabelNames[i], values[i]
		out.Label[i] = &pairs[i]
	}
	out.Gauge = &dto.Gauge{Value: &one}
	return nil
}

// textLine renders the series as one line of the text exposition format.
func (s *shootInfo) textLine() []byte {
	var b strings.Builder
	b.WriteString("garden_shoot_info{")
	for i, v := range [...]string{s.name, s.namespace, s.provider, s.purpose, s.region, s.seed} {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(shootInfoLabelNames[i])
		b.WriteString(`="`)
		_, _ = labelValueEscaper.WriteString(&b, v) // a strings.Builder never fails
		b.WriteByte('"')
	}
	b.WriteString("} 1\n")
	return []byte(b.String())
}

// labelValueEscaper escapes a label value as the text format wants it.
var labelValueEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)

var one = 1.0
