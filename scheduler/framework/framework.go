// Package framework is the shape of a scheduling decision, after kube-scheduler's
// framework: filter plugins that say why they reject a seed, a strategy that narrows the
// survivors to candidates, weighted score plugins, and a deterministic winner. It holds no
// client and no clock: a decision is a plain function of its inputs.
package framework

import (
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/scheduler/region"
)

// Reason is the class of a rejection; the failure message groups seeds by it.
type Reason string

// Status is a plugin's verdict on a seed: nil means the seed passes.
type Status struct {
	// Reason is the class of the rejection.
	Reason Reason
	// Message says why, as a sentence fragment about the seed.
	Message string
}

// Reject returns a status that rejects a seed.
func Reject(reason Reason, format string, args ...any) *Status {
	return &Status{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// SeedInfo is a seed as a decision reads it: the object, and the facts the filters derive
// from the seed alone, worked out once per version of the seed (plugins.NewSeedInfo) rather
// than for every seed in every decision. At 1,000 seeds, re-deriving them from maps,
// conditions and CIDR strings was most of what a decision cost in the running scheduler.
type SeedInfo struct {
	*gardencorev1beta1.Seed
	// NotUsable says why the seed takes no shoots at all; empty when it takes them.
	NotUsable string
	// Allocatable is status.allocatable[shoots]; HasAllocatable is false when the seed has
	// none (no limit).
	Allocatable    int64
	HasAllocatable bool
	// Networks are the seed's node, pod and service networks, as written and parsed.
	Networks [3]CIDR
	// ShootDefaults are the pod and service networks the seed gives a shoot that sets none
	// (spec.networks.shootDefaults).
	ShootDefaults [2]CIDR
	// Occupancy is where the scheduler keeps the seed's usage (its capacity.Seat), for
	// Input.Usage to read without a lookup by name; nil outside the scheduler.
	Occupancy Occupancy
}

// Occupancy is a seed's usage as the scheduler keeps it.
type Occupancy interface {
	// Shoots is the shoots on the seed, including binds not yet seen by the informer.
	Shoots() int
}

// Occupied is the Input.Usage of the scheduler: the seed's Occupancy.
func Occupied(seed *SeedInfo) int { return seed.Occupancy.Shoots() }

// Input is everything a decision reads besides the seeds.
type Input struct {
	// Shoot is the shoot to place.
	Shoot *gardencorev1beta1.Shoot
	// CloudProfile is the shoot's cloud profile; nil when the shoot names none. For a
	// NamespacedCloudProfile it carries that profile's name and namespace and the merged
	// spec (status.cloudProfileSpec), as Gardener's scheduler reads it.
	CloudProfile *gardencorev1beta1.CloudProfile
	// RegionConfig is the region config of the shoot's cloud profile; nil when there is none.
	RegionConfig *region.Config
	// UsesDefaultDomain says that the shoot's spec.dns.domain is below a default domain some
	// seed of the landscape serves (a Seed's spec.dns.defaults): the shoot then goes only to
	// seeds that serve it under that domain.
	UsesDefaultDomain bool
	// MigratingFrom is the seed the shoot's control plane leaves when the decision moves it
	// (a drain, or a binding that changes spec.seedName); nil for a first placement.
	MigratingFrom *gardencorev1beta1.Seed
	// LimitMigrationDistance keeps a control plane that moves from MigratingFrom within the
	// distance threshold of the region config (set by the drain, whose moves nobody asked
	// for seed by seed).
	LimitMigrationDistance bool
	// Usage returns the shoots a seed hosts, including binds not yet seen by the informer
	// (Occupied in the scheduler). A decision calls it for every seed.
	Usage func(seed *SeedInfo) int

	// selectors are the label selectors converted so far (see Selector).
	selectors []convertedSelector
	// shootNetworks and statusNetworks are the shoot's networks, parsed on the first call of
	// ShootNetworks.
	shootNetworks       [3]CIDR
	statusNetworks      *[3][]CIDR
	shootNetworksParsed bool
}

// CIDR is a network as the API object writes it and as parsed: Prefix is the invalid zero
// Prefix, which overlaps nothing, when Text is empty or not a CIDR.
type CIDR struct {
	Text   string
	Prefix netip.Prefix
}

// ParseCIDR parses a network of a shoot or seed.
func ParseCIDR(text string) CIDR {
	prefix, err := netip.ParsePrefix(text)
	if err != nil {
		prefix = netip.Prefix{}
	}
	return CIDR{Text: text, Prefix: prefix}
}

// IPv6 says whether the network is an IPv6 one; an IPv4-mapped IPv6 network counts as IPv4,
// as Gardener's CIDR checks count it.
func (c CIDR) IPv6() bool {
	return c.Prefix.IsValid() && c.Prefix.Addr().Is6() && !c.Prefix.Masked().Addr().Is4In6()
}

// IPv4 says whether the network is an IPv4 one.
func (c CIDR) IPv4() bool { return c.Prefix.IsValid() && !c.IPv6() }

type convertedSelector struct {
	from     *metav1.LabelSelector
	selector labels.Selector
	err      error
}

// Selector converts a label selector of the shoot or its cloud profile once per Input:
// filters run per seed, and converting the same selector for every seed made up most of a
// decision's time and allocations. An Input is not safe for concurrent use.
func (in *Input) Selector(ls *metav1.LabelSelector) (labels.Selector, error) {
	for _, c := range in.selectors {
		if c.from == ls {
			return c.selector, c.err
		}
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	in.selectors = append(in.selectors, convertedSelector{from: ls, selector: sel, err: err})
	return sel, err
}

// ShootNetworks are the shoot's nodes, pods and services networks, parsed once per Input:
// the networks filter checks them against every seed of a decision. Parsing them per seed,
// and then looking them up by string in a memo, was a tenth of the running scheduler's CPU.
func (in *Input) ShootNetworks() [3]CIDR {
	in.parseShootNetworks()
	return in.shootNetworks
}

// StatusNetworks are the nodes, pods and services networks of the shoot's
// status.networking, parsed once per Input; nil when the shoot has no status.networking.
func (in *Input) StatusNetworks() *[3][]CIDR {
	in.parseShootNetworks()
	return in.statusNetworks
}

func (in *Input) parseShootNetworks() {
	if in.shootNetworksParsed {
		return
	}
	in.shootNetworksParsed = true
	if n := in.Shoot.Spec.Networking; n != nil {
		in.shootNetworks = [3]CIDR{ParseCIDR(ptr.Deref(n.Nodes, "")), ParseCIDR(ptr.Deref(n.Pods, "")), ParseCIDR(ptr.Deref(n.Services, ""))}
	}
	if n := in.Shoot.Status.Networking; n != nil {
		in.statusNetworks = &[3][]CIDR{}
		for i, list := range [3][]string{n.Nodes, n.Pods, n.Services} {
			for _, text := range list {
				in.statusNetworks[i] = append(in.statusNetworks[i], ParseCIDR(text))
			}
		}
	}
}

// FilterPlugin rejects seeds a shoot must not be placed on.
type FilterPlugin interface {
	Name() string
	Filter(in *Input, seed *SeedInfo) *Status
}

// StrategyPlugin narrows the seeds that passed every filter to the candidates, by region.
type StrategyPlugin interface {
	Name() string
	// Select returns one status per seed: nil for a candidate.
	Select(in *Input, seeds []*SeedInfo) ([]*Status, error)
}

// PreferencePlugin narrows the seeds that passed every filter to those it prefers, before
// the strategy. Unlike a filter it judges a seed against the others: a seed it does not
// prefer loses only to a seed it does, so it never leaves a shoot without a seed.
type PreferencePlugin interface {
	Name() string
	// Prefer returns one status per seed (nil for a seed that stays), or nil when every seed
	// stays.
	Prefer(in *Input, seeds []*SeedInfo) []*Status
}

// ScorePlugin scores candidates from 0 (worst) to MaxScore (best).
type ScorePlugin interface {
	Name() string
	// Score returns one score per seed.
	Score(in *Input, seeds []*SeedInfo) []int64
}

// MaxScore is the highest score a score plugin gives.
const MaxScore = 100

// WeightedScorer is a score plugin with its weight.
type WeightedScorer struct {
	Plugin ScorePlugin
	Weight int64
}

// Profile is one way of deciding: filters in order, preferences, an optional strategy, and
// scorers. Without scorers the winner is the candidate with the fewest shoots (Gardener).
type Profile struct {
	Filters     []FilterPlugin
	Preferences []PreferencePlugin
	Strategy    StrategyPlugin
	Scorers     []WeightedScorer
}

// Rejection is why one seed is not the winner.
type Rejection struct {
	// Seed is the seed's name.
	Seed string
	// Plugin is the plugin that rejected it.
	Plugin string
	// Stage orders rejections for messages: the position of the plugin in the profile.
	Stage int
	Status
}

// Result is the outcome of a decision.
type Result struct {
	// Seed is the winner; nil when no seed fits.
	Seed *SeedInfo
	// Seeds is the number of seeds considered.
	Seeds int
	// Rejections says why each other seed was not chosen (filters and strategy).
	Rejections []Rejection
	// Err is a failure of the decision itself, such as an unreadable region config.
	Err error
}

// Schedule places a shoot: every filter on every seed (the first rejection per seed
// counts), the preferences and then the strategy on the survivors, then the scorers; the highest total wins, ties go
// to the seed with the fewest shoots and then to the first name. Cost is linear in the
// number of seeds; usage lookups are O(1). The result explains every seed not chosen.
func (p *Profile) Schedule(in *Input, seeds []*SeedInfo) Result {
	return p.schedule(in, seeds, true)
}

// Decide is Schedule for the hot path: it explains the rejections only when no seed fits
// (deciding a second time to do so), so a successful decision builds no per-seed record
// and its cost does not grow with the garbage the rejections would leave.
func (p *Profile) Decide(in *Input, seeds []*SeedInfo) Result {
	res := p.schedule(in, seeds, false)
	if res.Seed == nil && res.Err == nil {
		return p.schedule(in, seeds, true)
	}
	return res
}

func (p *Profile) schedule(in *Input, seeds []*SeedInfo, explain bool) Result {
	res := Result{Seeds: len(seeds)}
	if explain {
		// Most seeds of a landscape reject most shoots: room for every seed's rejection.
		res.Rejections = make([]Rejection, 0, len(seeds))
	}
	feasible := make([]*SeedInfo, 0, len(seeds))
	for _, seed := range seeds {
		if rej, ok := p.filter(in, seed, explain); !ok {
			if explain {
				res.Rejections = append(res.Rejections, rej)
			}
			continue
		}
		feasible = append(feasible, seed)
	}
	candidates := p.prefer(in, feasible, &res, explain)
	if p.Strategy != nil && len(candidates) > 0 {
		statuses, err := p.Strategy.Select(in, candidates)
		if err != nil {
			res.Err = err
			return res
		}
		candidates = keep(candidates, statuses, p.Strategy.Name(), len(p.Filters)+len(p.Preferences), &res, explain)
	}
	if len(candidates) == 0 {
		return res
	}
	res.Seed = p.winner(in, candidates)
	return res
}

// Prefer narrows seeds that passed the filters by the profile's preferences, in order.
func (p *Profile) Prefer(in *Input, seeds []*SeedInfo) []*SeedInfo {
	return p.prefer(in, seeds, nil, false)
}

func (p *Profile) prefer(in *Input, seeds []*SeedInfo, res *Result, explain bool) []*SeedInfo {
	for i, pref := range p.Preferences {
		if len(seeds) == 0 {
			break
		}
		seeds = keep(seeds, pref.Prefer(in, seeds), pref.Name(), len(p.Filters)+i, res, explain)
	}
	return seeds
}

// keep returns the seeds whose status is nil (all of them, unchanged and without a copy,
// when statuses holds no rejection); with explain, the others' rejections go to res.
func keep(seeds []*SeedInfo, statuses []*Status, plugin string, stage int, res *Result, explain bool) []*SeedInfo {
	if !slices.ContainsFunc(statuses, func(st *Status) bool { return st != nil }) {
		return seeds
	}
	kept := seeds[:0:0] // grown as needed: most seeds of a landscape are rejected
	for i, st := range statuses {
		if st == nil {
			kept = append(kept, seeds[i])
			continue
		}
		if explain {
			res.Rejections = append(res.Rejections, Rejection{Seed: seeds[i].Name, Plugin: plugin, Stage: stage, Status: *st})
		}
	}
	return kept
}

// Feasible runs only the filters on one seed: nil when the seed passes them all.
func (p *Profile) Feasible(in *Input, seed *SeedInfo) *Rejection {
	if rej, ok := p.filter(in, seed, true); !ok {
		return &rej
	}
	return nil
}

// filter runs the filters on a seed until one rejects it; with explain the rejection says
// which and why.
func (p *Profile) filter(in *Input, seed *SeedInfo, explain bool) (Rejection, bool) {
	for i, f := range p.Filters {
		if st := f.Filter(in, seed); st != nil {
			if !explain {
				return Rejection{}, false
			}
			return Rejection{Seed: seed.Name, Plugin: f.Name(), Stage: i, Status: *st}, false
		}
	}
	return Rejection{}, true
}

func (p *Profile) winner(in *Input, candidates []*SeedInfo) *SeedInfo {
	totals := make([]int64, len(candidates))
	for _, s := range p.Scorers {
		for i, score := range s.Plugin.Score(in, candidates) {
			totals[i] += s.Weight * score
		}
	}
	best := 0
	bestUsage := in.Usage(candidates[0])
	for i := 1; i < len(candidates); i++ {
		u := in.Usage(candidates[i])
		switch {
		case totals[i] > totals[best]:
		case totals[i] < totals[best]:
			continue
		case u < bestUsage:
		case u > bestUsage:
			continue
		case candidates[i].Name < candidates[best].Name:
		default:
			continue
		}
		best, bestUsage = i, u
	}
	return candidates[best]
}

// maxSeedsPerLine bounds the seeds named per message so that a failure over a thousand
// seeds still fits an event and lastOperation.
const maxSeedsPerLine = 10

// Message explains a failed decision: one line per reason class, in the order of the
// stages that rejected, each naming the seeds it hit (sorted) grouped by message.
func (r Result) Message() string {
	if r.Err != nil {
		return r.Err.Error()
	}
	if r.Seeds == 0 {
		return "0 seeds exist"
	}
	type group struct {
		stage   int
		reason  Reason
		byMsg   map[string][]string
		total   int
		message []string
	}
	groups := map[Reason]*group{}
	for _, rej := range r.Rejections {
		g := groups[rej.Reason]
		if g == nil {
			g = &group{stage: rej.Stage, reason: rej.Reason, byMsg: map[string][]string{}}
			groups[rej.Reason] = g
		}
		if _, ok := g.byMsg[rej.Message]; !ok {
			g.message = append(g.message, rej.Message)
		}
		g.byMsg[rej.Message] = append(g.byMsg[rej.Message], rej.Seed)
		g.total++
	}
	ordered := make([]*group, 0, len(groups))
	for _, g := range groups {
		ordered = append(ordered, g)
	}
	sort.Slice(ordered, func(i, j int) bool {
		if ordered[i].stage != ordered[j].stage {
			return ordered[i].stage < ordered[j].stage
		}
		return ordered[i].reason < ordered[j].reason
	})
	var b strings.Builder
	fmt.Fprintf(&b, "0/%d seeds are available:", r.Seeds)
	for _, g := range ordered {
		sort.Strings(g.message)
		parts := make([]string, 0, len(g.message))
		for _, msg := range g.message {
			names := g.byMsg[msg]
			sort.Strings(names)
			listed := names
			more := ""
			if len(listed) > maxSeedsPerLine {
				listed = listed[:maxSeedsPerLine]
				more = fmt.Sprintf(" and %d more", len(names)-maxSeedsPerLine)
			}
			parts = append(parts, fmt.Sprintf("%s (%s%s)", msg, strings.Join(listed, ", "), more))
		}
		fmt.Fprintf(&b, "\n%s: %d seed(s): %s", g.reason, g.total, strings.Join(parts, "; "))
	}
	return b.String()
}
