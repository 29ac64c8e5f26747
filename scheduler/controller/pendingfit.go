package controller

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/setcapacity"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/scheduler/plugins"
)

// TemplateSeed is the Seed a new replica of a ManagedSeedSet would register: the spec and
// labels of template.spec.seedTemplate or template.spec.gardenlet.config.seedConfig, ready,
// empty, and with the allocatable shoots sizing gives a new replica (the set's capacity
// annotation, which wins as for scale from zero, else the gardenlet resources' capacity
// minus reserved, merged with the parent gardenlet's, else the default). The second result
// is false when the template names no seed.
func TemplateSeed(set *seedmanagementv1alpha1.ManagedSeedSet, sizing setcapacity.Sizing) (*gardencorev1beta1.Seed, bool) {
	spec := set.Spec.Template.Spec
	var tmpl *gardencorev1beta1.SeedTemplate
	switch {
	case spec.SeedTemplate != nil:
		tmpl = spec.SeedTemplate
	case spec.Gardenlet != nil && spec.Gardenlet.Config != nil && spec.Gardenlet.Config.SeedConfig != nil:
		tmpl = spec.Gardenlet.Config.SeedConfig
	default:
		return nil, false
	}
	seed := &gardencorev1beta1.Seed{
		ObjectMeta: metav1.ObjectMeta{Name: set.Namespace + "/" + set.Name, Labels: tmpl.Labels, Annotations: tmpl.Annotations},
		Spec:       *tmpl.Spec.DeepCopy(),
		Status: gardencorev1beta1.SeedStatus{
			LastOperation: &gardencorev1beta1.LastOperation{Type: gardencorev1beta1.LastOperationTypeCreate, State: gardencorev1beta1.LastOperationStateSucceeded},
			Conditions: []metav1.Condition{
				{Type: gardencorev1beta1.SeedGardenletReady, Status: metav1.ConditionTrue},
				{Type: gardencorev1beta1.SeedBackupBucketsReady, Status: metav1.ConditionTrue},
			},
		},
	}
	// An invalid capacity annotation is ignored here as in the autoscaler, which reports it.
	allocatable, _ := sizing.NewReplicaShoots(set)
	seed.Status.Allocatable = corev1.ResourceList{gardencorev1beta1.ResourceShoots: *resource.NewQuantity(allocatable.Shoots, resource.DecimalSI)}
	return seed, true
}

// PendingFit returns the ManagedSeedSets (sorted namespace/name keys) a new replica of
// which would take the shoot: the seed of each set's template, empty, must pass every
// filter, and then the preferences and the strategy among those template seeds, so a shoot
// counts only for the sets in its region (SameRegion) or nearest to it (MinimalDistance).
func PendingFit(profile *framework.Profile, strategy framework.StrategyPlugin, in *framework.Input, sets []*seedmanagementv1alpha1.ManagedSeedSet, sizing setcapacity.Sizing) ([]types.NamespacedName, error) {
	empty := *in
	empty.Usage = func(*framework.SeedInfo) int { return 0 }
	var keys []types.NamespacedName
	var seeds []*framework.SeedInfo
	for _, set := range sets {
		template, ok := TemplateSeed(set, sizing)
		if !ok {
			continue
		}
		seed := plugins.NewSeedInfo(template)
		if profile.Feasible(&empty, seed) != nil {
			continue
		}
		keys = append(keys, types.NamespacedName{Namespace: set.Namespace, Name: set.Name})
		seeds = append(seeds, seed)
	}
	if preferred := profile.Prefer(&empty, seeds); len(preferred) < len(seeds) {
		kept := keys[:0]
		for i, seed := range seeds {
			if slices.Contains(preferred, seed) {
				kept = append(kept, keys[i])
			}
		}
		keys, seeds = kept, preferred
	}
	if len(seeds) > 0 && strategy != nil {
		statuses, err := strategy.Select(&empty, seeds)
		if err != nil {
			return nil, err
		}
		kept := keys[:0]
		for i, st := range statuses {
			if st == nil {
				kept = append(kept, keys[i])
			}
		}
		keys = kept
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	return keys, nil
}

// Chosen is the one set a pending shoot asks a new seed of, and why that one.
type Chosen struct {
	Set types.NamespacedName
	Why string
	// Ignored says which sets' price annotations are invalid and were left out of the
	// choice, one message each, naming the annotation and the fix.
	Ignored []string
}

// candidate is a set a pending shoot fits, with what ChooseSet ranks it by.
type candidate struct {
	set         *seedmanagementv1alpha1.ManagedSeedSet
	priority    int64
	hasPriority bool
	// price is the set's price per seed-hour as written, and perShoot that price divided
	// by places; nil when the set has no valid price or its new seed takes no shoot.
	price    string
	perShoot *big.Rat
	places   int64
}

// The steps of the choice, in order: the first in which two sets differ decides.
type chooseStep int

const (
	stepPriority chooseStep = iota
	stepPrice
	stepWaste
	stepName
)

// decidingStep is the first step in which a and b differ.
func decidingStep(a, b *candidate) chooseStep {
	switch {
	case a.hasPriority != b.hasPriority || a.priority != b.priority:
		return stepPriority
	case (a.perShoot == nil) != (b.perShoot == nil) || (a.perShoot != nil && a.perShoot.Cmp(b.perShoot) != 0):
		return stepPrice
	case a.places != b.places:
		return stepWaste
	}
	return stepName
}

// compareCandidates orders the better candidate first: a set with a valid priority before
// one without, the higher priority; then a set with a price before one without (an unknown
// price is not taken for cheap), the lower price per shoot place; then the fewest places
// (least waste); then the name. Sets without a price compare with each other from the
// waste on, so the order is total and the choice does not depend on the order of the list.
func compareCandidates(a, b *candidate) int {
	switch decidingStep(a, b) {
	case stepPriority:
		if a.hasPriority != b.hasPriority {
			return boolFirst(a.hasPriority)
		}
		return cmp.Compare(b.priority, a.priority)
	case stepPrice:
		if (a.perShoot == nil) != (b.perShoot == nil) {
			return boolFirst(a.perShoot != nil)
		}
		return a.perShoot.Cmp(b.perShoot)
	case stepWaste:
		return cmp.Compare(a.places, b.places)
	}
	return cmp.Compare(a.set.Namespace+"/"+a.set.Name, b.set.Namespace+"/"+b.set.Name)
}

func boolFirst(first bool) int {
	if first {
		return -1
	}
	return 1
}

// ChooseSet picks, among the sets a pending shoot fits, the one it asks a new seed of, as
// cluster-autoscaler's expanders pick a node group (priority, then price, then least
// waste): the highest scale-out priority annotation first (a set without a valid one ranks
// below every set with one), then the lowest price per shoot place of a new seed (the
// seed-hour price annotation divided by the new seed's allocatable shoots; a set without a
// valid price ranks after every set with one), then least waste, the set whose new seed has
// the fewest places (it leaves the fewest empty after the shoot), then the name. Only that
// set's autoscaler counts the shoot, so one shoot does not grow every set it fits. Why
// names the steps up to the one that decided against the runner-up.
func ChooseSet(fits []*seedmanagementv1alpha1.ManagedSeedSet, sizing setcapacity.Sizing) (Chosen, bool) {
	if len(fits) == 0 {
		return Chosen{}, false
	}
	var ignored []string
	candidates := make([]*candidate, 0, len(fits))
	for _, set := range fits {
		c := &candidate{set: set}
		if v, ok := set.Annotations[seedmanagementv1alpha1.AnnotationScaleOutPriority]; ok {
			if p, err := strconv.ParseInt(v, 10, 64); err == nil {
				c.priority, c.hasPriority = p, true
			}
		}
		// An invalid capacity annotation is ignored here as in the autoscaler, which reports it.
		shoots, _ := sizing.NewReplicaShoots(set)
		c.places = shoots.Shoots
		price, err := setcapacity.SeedHourPrice(set)
		if err != nil {
			ignored = append(ignored, err.Error())
		}
		// A new seed that takes no shoot has no price per shoot; the filters keep such a
		// template from fitting anyway.
		if price != nil && c.places > 0 {
			c.price = set.Annotations[setcapacity.PriceAnnotation]
			c.perShoot = new(big.Rat).Quo(price, new(big.Rat).SetInt64(c.places))
		}
		candidates = append(candidates, c)
	}
	slices.SortFunc(candidates, compareCandidates)
	best := candidates[0]
	chosen := Chosen{Set: types.NamespacedName{Namespace: best.set.Namespace, Name: best.set.Name}, Ignored: ignored}
	if len(candidates) == 1 {
		chosen.Why = "the only set that fits"
		return chosen, true
	}
	chosen.Why = why(best, decidingStep(best, candidates[1]))
	return chosen, true
}

// why says what the chosen set holds in each step up to the one that decided: its priority,
// its price per shoot, its size.
func why(best *candidate, decided chooseStep) string {
	var steps []string
	if best.hasPriority {
		steps = append(steps, fmt.Sprintf("scale-out priority %d", best.priority))
	}
	if decided >= stepPrice && best.perShoot != nil {
		steps = append(steps, fmt.Sprintf("cheapest per shoot: %s/shoot-hour (%s/seed-hour for %d shoots)", formatPrice(best.perShoot), best.price, best.places))
	}
	if decided >= stepWaste {
		steps = append(steps, fmt.Sprintf("least waste: %d shoots per new seed", best.places))
	}
	return strings.Join(steps, ", then ")
}

// formatPrice renders a price with three significant digits and no trailing zeros
// (0.0308, 0.035, 12.5, 1234): enough to tell sets apart in a message. The choice compares
// the exact values.
func formatPrice(r *big.Rat) string {
	if r.Sign() == 0 {
		return "0"
	}
	f, _ := r.Float64()
	s := r.FloatString(max(0, 2-int(math.Floor(math.Log10(f)))))
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// pendingFits remembers, per unschedulable shoot, the sets it would fit, and serves
// seedscaler_scheduler_pending_shoots from that memory and the sets in the cache (no API
// calls at scrape time): a series for every ManagedSeedSet, 0 included, from the moment the
// scheduler can answer for all of them. A set created later, or a scheduler that restarted
// or took over, reports 0 for sets nothing waits for, so that the autoscaler can scale in.
type pendingFits struct {
	mu      sync.Mutex
	byShoot map[string][]types.NamespacedName
	// sets lists the ManagedSeedSets that exist, and false while the scheduler cannot
	// answer for them: it does not lead, or its caches have not synced. Then no series is
	// served, rather than a 0 the scheduler has not checked.
	sets func() ([]types.NamespacedName, bool)
	desc *prometheus.Desc
}

func newPendingFits(sets func() ([]types.NamespacedName, bool)) *pendingFits {
	return &pendingFits{
		byShoot: map[string][]types.NamespacedName{},
		sets:    sets,
		desc: prometheus.NewDesc("seedscaler_scheduler_pending_shoots",
			"Unschedulable shoots that would fit a new replica of the ManagedSeedSet.",
			[]string{"namespace", "managedseedset"}, nil),
	}
}

// set records the set a pending shoot asks a new seed of (none: nil).
func (p *pendingFits) set(shootKey string, fits []types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byShoot[shootKey] = fits
}

func (p *pendingFits) forget(shootKey string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.byShoot, shootKey)
}

// counts returns the pending shoots of every existing set, and false while the scheduler
// cannot answer.
func (p *pendingFits) counts() (map[types.NamespacedName]int, bool) {
	sets, ok := p.sets()
	if !ok {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[types.NamespacedName]int, len(sets))
	for _, s := range sets {
		out[s] = 0
	}
	for _, fits := range p.byShoot {
		for _, s := range fits {
			if _, ok := out[s]; ok {
				out[s]++
			}
		}
	}
	return out, true
}

func (p *pendingFits) Describe(ch chan<- *prometheus.Desc) { ch <- p.desc }

func (p *pendingFits) Collect(ch chan<- prometheus.Metric) {
	counts, _ := p.counts()
	for set, n := range counts {
		ch <- prometheus.MustNewConstMetric(p.desc, prometheus.GaugeValue, float64(n), set.Namespace, set.Name)
	}
}

// metrics of the scheduler, registered with the registerer given to the controller.
type metrics struct {
	attempts *prometheus.CounterVec
	latency  prometheus.Histogram
	binds    *prometheus.CounterVec
	// events are the recorder's: every bind records an event, and how many wait shows
	// when they lag behind the binds.
	events *app.EventMetrics
	// migrations and drainShoots are the drain's (DrainMetrics).
	migrations  *prometheus.CounterVec
	drainShoots *prometheus.GaugeVec
}

// Results of scheduling attempts.
const (
	resultScheduled     = "scheduled"
	resultUnschedulable = "unschedulable"
	resultError         = "error"
)

func newMetrics(reg prometheus.Registerer, pending *pendingFits) (*metrics, error) {
	m := &metrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seedscaler_scheduler_schedule_attempts_total",
			Help: "Attempts to schedule a shoot, by result: scheduled, unschedulable or error.",
		}, []string{"result"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "seedscaler_scheduler_scheduling_duration_seconds",
			Help:    "Time from picking up a shoot to binding it or reporting that it fits no seed.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 15),
		}),
		binds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seedscaler_scheduler_binds_total",
			Help: "Shoots the scheduler bound to the seed.",
		}, []string{"seed"}),
		migrations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seedscaler_scheduler_migrations_total",
			Help: "Control plane migrations of drained seeds' shoots, by result: started, or rolled_back after it failed.",
		}, []string{"result"}),
		drainShoots: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "seedscaler_scheduler_drain_shoots",
			Help: "Shoots of a seed being drained, by state: remaining (all), migrating, waiting (to move later), blocked (cannot move).",
		}, []string{"seed", "state"}),
	}
	for _, r := range []string{resultScheduled, resultUnschedulable, resultError} {
		m.attempts.WithLabelValues(r)
	}
	for _, r := range []string{MigrationStarted, MigrationRolledBack} {
		m.migrations.WithLabelValues(r)
	}
	for _, c := range []prometheus.Collector{m.attempts, m.latency, m.binds, m.migrations, m.drainShoots, pending} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	events, err := app.NewEventMetrics(reg, "seedscaler_scheduler")
	if err != nil {
		return nil, err
	}
	m.events = events
	return m, nil
}
