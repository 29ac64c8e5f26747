package autoscaling

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
	"github.com/seedscaler/seedscaler/internal/disruption"
)

// LongLived is a workload of shoots with lifetimes instead of a trace's count: long-lived
// shoots that live for days and short-lived testing shoots of the working day. Shoots leave
// when their lifetime ends, wherever they run, so seeds thin out instead of emptying.
type LongLived struct {
	// Initial long-lived shoots run at the start.
	Initial int
	// LongPerHour long-lived shoots arrive per hour (more by day, fewer at night), each
	// living LongLifetime on average (exponentially distributed).
	LongPerHour  float64
	LongLifetime time.Duration
	// TestingPerHour testing shoots arrive per hour during working hours on weekdays
	// (08:00–18:00), a tenth of that otherwise, each living TestingLifetime on average.
	TestingPerHour  float64
	TestingLifetime time.Duration
	// ProtectedShare of the long-lived shoots opt out of migration.
	ProtectedShare float64
	// HighlyAvailableShare of all shoots have a highly available control plane, which
	// Gardener migrates live: its migration weighs recommend.LiveMigrationWeight instead of
	// recommend.DefaultMigrationWeight.
	HighlyAvailableShare float64
}

// DefaultLongLived is the benchmark's week of long-lived shoots: about 800 shoots that live
// three days on average, and testing shoots of two hours that add about 150 by day; 30% of
// them highly available.
func DefaultLongLived() *LongLived {
	return &LongLived{Initial: 800, LongPerHour: 11, LongLifetime: 72 * time.Hour,
		TestingPerHour: 75, TestingLifetime: 2 * time.Hour, ProtectedShare: 0.01, HighlyAvailableShare: 0.3}
}

// LongLivedConfig is the long-lived week: the benchmark's landscape and loop, a week of
// long-lived and testing shoots placed by Gardener's spreading profile, and consolidation as
// the API defaults it.
func LongLivedConfig() Config {
	cfg := DefaultConfig(Trace{Shoots: make([]int, weekMinutes)})
	cfg.LongLived = DefaultLongLived()
	cfg.Spread = true
	cfg.Consolidation = DefaultConsolidation()
	return cfg
}

// ConsolidationModel is spec.behavior.scaleDown.consolidation with the drain it starts.
type ConsolidationModel struct {
	Rules recommend.ConsolidationRules
	// MigrationDuration is how long a control plane migration takes; the shoot counts on
	// both seeds meanwhile.
	MigrationDuration time.Duration
	// MaxMigrationsPerSeed is the drain's budget of migrations in flight.
	MaxMigrationsPerSeed int
	// MigrationCost scores the seeds by their shoots' migration weights, as the autoscaler
	// reads them (recommend.MigrationWeight); without it every shoot weighs an ordinary
	// migration, so the seed of the fewest shoots is drained.
	MigrationCost bool
	// Budgets are spec.behavior.scaleDown.consolidation.budgets: consolidation starts no
	// drain while they hold it (disruption.HoldConsolidation).
	Budgets []autoscalingv1alpha1.DisruptionBudget
}

// WorkingHoursBudget lets consolidation start no drain from 08:00 to 18:00 UTC on weekdays;
// a drain under way goes on.
func WorkingHoursBudget() []autoscalingv1alpha1.DisruptionBudget {
	return weekdaysFrom8(10 * time.Hour)
}

// UntilMidnightBudget lets consolidation start no drain from 08:00 to midnight UTC on
// weekdays, the working hours of tenants in Europe and in the Americas; a drain under way
// goes on. The long-lived week's set is above its needs once the testing shoots leave in
// the evening, so this budget holds the drains consolidation would start then.
func UntilMidnightBudget() []autoscalingv1alpha1.DisruptionBudget {
	return weekdaysFrom8(16 * time.Hour)
}

// weekdaysFrom8 is a budget of no consolidation drain for d from 08:00 UTC on weekdays.
func weekdaysFrom8(d time.Duration) []autoscalingv1alpha1.DisruptionBudget {
	return []autoscalingv1alpha1.DisruptionBudget{{
		Reasons: []autoscalingv1alpha1.DisruptionReason{autoscalingv1alpha1.DisruptionConsolidation},
		Seeds:   "0", Schedule: "0 8 * * mon-fri", DurationSeconds: int32(d.Seconds()),
	}}
}

// migrationWeight is what moving a shoot costs consolidation, read as the autoscaler reads
// it from a Shoot with or without a highly available control plane.
func migrationWeight(highlyAvailable bool) float64 {
	shoot := &gardencorev1beta1.Shoot{}
	if highlyAvailable {
		shoot.Spec.ControlPlane = &gardencorev1beta1.ControlPlane{HighAvailability: &gardencorev1beta1.HighAvailability{}}
	}
	w, _ := recommend.MigrationWeight(shoot)
	return w
}

// DefaultConsolidation is consolidation as the API defaults it, with migrations of ten
// minutes, two at a time.
func DefaultConsolidation() *ConsolidationModel {
	return &ConsolidationModel{
		Rules: recommend.ConsolidationRules{Window: recommend.DefaultConsolidationWindow,
			MaxMigrationsPerHour: recommend.DefaultMaxMigrationsPerHour, ShootCooldown: recommend.DefaultConsolidationShootCooling,
			MinScore: recommend.DefaultMinConsolidationScore},
		MigrationDuration: 10 * time.Minute, MaxMigrationsPerSeed: 2,
	}
}

// arrival is one shoot the workload creates.
type arrival struct {
	at, lifetime time.Duration
	protected    bool
}

// arrivals draws the week's arrivals, in order.
func (l *LongLived) arrivals(rng *rand.Rand, minutes int) []arrival {
	var out []arrival
	for m := range minutes {
		day, hour := m/(24*60), float64(m%(24*60))/60
		working := day < 5 && hour >= 8 && hour < 18
		long := l.LongPerHour / 60 * 0.5
		if hour >= 7 && hour < 19 {
			long = l.LongPerHour / 60 * 1.5
		}
		testing := l.TestingPerHour / 60 / 10
		if working {
			testing = l.TestingPerHour / 60
		}
		for _, kind := range []struct {
			rate     float64
			lifetime time.Duration
			long     bool
		}{{long, l.LongLifetime, true}, {testing, l.TestingLifetime, false}} {
			for range poisson(rng, kind.rate) {
				at := time.Duration(m)*time.Minute + time.Duration(rng.Float64()*float64(time.Minute))
				out = append(out, arrival{at: at, lifetime: time.Duration(rng.ExpFloat64() * float64(kind.lifetime)),
					protected: kind.long && rng.Float64() < l.ProtectedShare})
			}
		}
	}
	sortArrivals(out)
	return out
}

func sortArrivals(a []arrival) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j].at < a[j-1].at; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// poisson draws a Poisson count of mean lambda (Knuth; lambda is small).
func poisson(rng *rand.Rand, lambda float64) int {
	limit, k, p := math.Exp(-lambda), 0, 1.0
	for {
		p *= rng.Float64()
		if p <= limit {
			return k
		}
		k++
	}
}

// lifeState is the state of a long-lived run: the drain consolidation runs. The
// arrivals to come and the expiries and migrations due are events of the run.
type lifeState struct {
	aboveSince time.Duration
	above      bool
	draining   *seed
	inFlight   int
	drains     []drainRecord
	canceled   map[int]time.Duration

	// highlyAvailable draws which shoots are highly available, from a source of its own so
	// that the share changes no other draw; weights are an ordinary and a highly available
	// shoot's migration weights.
	highlyAvailable *rand.Rand
	weights         [2]float64
}

// newShoot is a shoot created now, highly available by the workload's share.
func (r *run) newShoot(protected bool) *shoot {
	l := r.life
	ha := 0
	if l.highlyAvailable.Float64() < r.cfg.LongLived.HighlyAvailableShare {
		ha = 1
	}
	return &shoot{createdAt: r.now, protected: protected, weight: l.weights[ha]}
}

type drainRecord struct {
	at     time.Duration
	shoots int
}

// startLongLived places the initial shoots, with lifetimes drawn as new (memoryless).
func (r *run) startLongLived() {
	l := r.cfg.LongLived
	for _, a := range l.arrivals(r.rng, r.cfg.Trace.Minutes()) {
		r.events.Push(event{at: a.at, kind: eventArrive, arrival: a})
	}
	r.life = &lifeState{canceled: map[int]time.Duration{},
		highlyAvailable: rand.New(rand.NewPCG(r.cfg.Seed, 0x4a<<32|uint64(r.target.UtilizationPercent))),
		weights:         [2]float64{migrationWeight(false), migrationWeight(true)}}
	r.placeInitial(l.Initial, func() *shoot {
		sh := r.newShoot(r.rng.Float64() < l.ProtectedShare)
		r.events.Push(event{at: time.Duration(r.rng.ExpFloat64() * float64(l.LongLifetime)), kind: eventExpire, shoot: sh})
		return sh
	})
}

// arrive creates an arriving shoot of the workload, with the end of its lifetime.
func (r *run) arrive(a arrival) {
	sh := r.newShoot(a.protected)
	r.events.Push(event{at: r.now + a.lifetime, kind: eventExpire, shoot: sh})
	r.place(sh)
}

// migrated ends a shoot's control plane migration: it leaves the drained seed, unless it
// left the landscape meanwhile.
func (r *run) migrated(sh *shoot) {
	if sh.gone || sh.migratingTo == nil {
		return
	}
	sh.seed.shoots--
	sh.seed, sh.migratingTo, sh.movedAt = sh.migratingTo, nil, r.now
	r.life.inFlight--
	r.bindPending()
}

// leave removes a shoot whose lifetime ended, from both seeds while it migrates.
func (r *run) leave(sh *shoot) {
	sh.gone = true
	if sh.seed == nil {
		for i, p := range r.pending {
			if p == sh {
				r.pending = append(r.pending[:i], r.pending[i+1:]...)
				return
			}
		}
		return
	}
	for i, b := range r.bound {
		if b == sh {
			r.bound[i] = r.bound[len(r.bound)-1]
			r.bound = r.bound[:len(r.bound)-1]
			break
		}
	}
	sh.seed.shoots--
	if sh.migratingTo != nil {
		sh.migratingTo.shoots--
		r.life.inFlight--
	}
	r.bindPending()
}

// consolidate is spec.behavior.scaleDown.consolidation after a decision, as the autoscaler
// and the scheduler's drain do it together: above its needs for the window, the cheapest
// seed is cordoned and its shoots migrate, two at a time, first-fit onto the others; a
// drain that finds no place is given up.
func (r *run) consolidate(now time.Time, d recommend.Decision, current int32) {
	l, c := r.life, r.cfg.Consolidation
	if r.aboveNeeds && !l.above {
		l.aboveSince = r.now
	}
	l.above = r.aboveNeeds
	if l.draining != nil {
		switch {
		case l.draining.removed:
			l.draining = nil
		case d.DesiredReplicas > current:
			r.cancelDrain()
		default:
			r.migrateOff(l.draining)
		}
		return
	}
	if len(c.Budgets) > 0 {
		// Nothing is drained or deleted here: a drain under way returned above.
		if why := disruption.HoldConsolidation(c.Budgets, r.disruptions(), now); why != "" {
			return
		}
	}
	in := recommend.ConsolidationInput{Now: now, Rules: c.Rules, Current: current, Min: r.cfg.MinReplicas,
		TargetUtilization: float64(r.target.UtilizationPercent) / 100, Skip: map[string]string{}}
	if l.above {
		in.AboveNeedsSince = r.epoch.Add(l.aboveSince)
	}
	kept := l.drains[:0]
	for _, dr := range l.drains {
		past := recommend.PastDrain{Start: r.epoch.Add(dr.at), Shoots: dr.shoots}
		if now.Before(past.PaidAt(c.Rules.MaxMigrationsPerHour)) { // paid drains are forgotten, as in status
			kept = append(kept, dr)
			in.Drains = append(in.Drains, past)
		}
	}
	l.drains = kept
	for id, at := range l.canceled {
		if r.now-at < time.Hour {
			in.Skip[fmt.Sprint(id)] = "canceled"
		}
	}
	for _, sh := range r.bound {
		if sh.protected || (sh.movedAt > 0 && r.now-sh.movedAt < c.Rules.ShootCooldown) {
			in.Skip[fmt.Sprint(sh.seed.id)] = "a shoot may not move"
		}
	}
	byName := map[string]*seed{}
	for _, s := range r.seeds {
		if s.ready {
			byName[fmt.Sprint(s.id)] = s
			in.Seeds = append(in.Seeds, recommend.ConsolidationSeed{Name: fmt.Sprint(s.id), Shoots: s.shoots,
				Allocatable: r.cfg.AllocatablePerSeed, Ready: true})
		}
	}
	// Those that may not move are skipped above.
	candidates := recommend.ChooseConsolidationCandidates(in)
	choice := recommend.ScoreConsolidation(r.seedCosts(candidates.Seeds, byName), c.Rules.MinScore)
	if !choice.Approved {
		return
	}
	l.draining = byName[choice.Seed]
	l.draining.cordoned = true
	l.drains = append(l.drains, drainRecord{at: r.now, shoots: choice.Shoots})
	r.res.Drains++
	r.res.DrainStarts = append(r.res.DrainStarts, r.now)
	r.migrateOff(l.draining)
}

// disruptions counts the set as its budgets do while no seed is drained: its ready seeds
// and their shoots.
func (r *run) disruptions() disruption.Set {
	set := disruption.Set{Shoots: len(r.bound)}
	for _, s := range r.seeds {
		if s.ready {
			set.Seeds++
		}
	}
	return set
}

// seedCosts is what draining each candidate costs, as the autoscaler's seedCost reads it:
// with ConsolidationModel.MigrationCost the sum of the migration weights of the shoots
// whose spec names the seed, and an ordinary migration for each other shoot counted on it
// (one migrating in); otherwise an ordinary migration per shoot.
func (r *run) seedCosts(candidates []recommend.ConsolidationSeed, byName map[string]*seed) []recommend.SeedCost {
	costs := make([]recommend.SeedCost, 0, len(candidates))
	var weights map[*seed]float64
	var listed map[*seed]int
	if r.cfg.Consolidation.MigrationCost && len(candidates) > 0 {
		weights, listed = map[*seed]float64{}, map[*seed]int{}
		for _, sh := range r.bound {
			weights[sh.seed] += sh.weight
			listed[sh.seed]++
		}
	}
	for _, cand := range candidates {
		weight := float64(cand.Shoots) * recommend.DefaultMigrationWeight
		if weights != nil {
			s := byName[cand.Name]
			weight = weights[s] + float64(max(0, cand.Shoots-listed[s]))*recommend.DefaultMigrationWeight
		}
		costs = append(costs, recommend.SeedCost{Seed: cand.Name, Shoots: cand.Shoots, Weight: weight})
	}
	return costs
}

// migrateOff starts migrations off the drained seed within the budget.
func (r *run) migrateOff(s *seed) {
	l, c := r.life, r.cfg.Consolidation
	for _, sh := range r.bound {
		if l.inFlight >= c.MaxMigrationsPerSeed {
			return
		}
		if sh.seed != s || sh.migratingTo != nil {
			continue
		}
		if sh.protected {
			r.res.ProtectedMoved++ // never: a seed with a protected shoot is not chosen
		}
		to := r.firstFit()
		if to == nil {
			r.cancelDrain()
			return
		}
		to.shoots++
		if to.shoots > r.cfg.AllocatablePerSeed || s.shoots > r.cfg.AllocatablePerSeed {
			r.res.Overcommits++
		}
		sh.migratingTo = to
		l.inFlight++
		r.res.Migrations++
		r.res.MigrationStarts = append(r.res.MigrationStarts, r.now)
		r.res.MigratedWeight += sh.weight
		r.events.Push(event{at: r.now + c.MigrationDuration, kind: eventMigrated, shoot: sh})
	}
}

// cancelDrain uncordons the drained seed; migrations in flight finish.
func (r *run) cancelDrain() {
	l := r.life
	l.draining.cordoned = false
	l.canceled[l.draining.id] = r.now
	l.draining = nil
	r.res.CanceledDrains++
}

// ArmBudget is the disruption budget an arm of the long-lived week holds consolidation to,
// by the hours of weekdays it holds it.
type ArmBudget string

const (
	// NoBudget lets consolidation start a drain at any time.
	NoBudget ArmBudget = ""
	// BudgetWorkingHours is WorkingHoursBudget: no drain from 08:00 to 18:00 on weekdays.
	BudgetWorkingHours ArmBudget = "08-18"
	// BudgetUntilMidnight is UntilMidnightBudget: no drain from 08:00 to midnight on weekdays.
	BudgetUntilMidnight ArmBudget = "08-24"
)

// Budgets are the arm's spec.behavior.scaleDown.consolidation.budgets.
func (b ArmBudget) Budgets() []autoscalingv1alpha1.DisruptionBudget {
	switch b {
	case BudgetWorkingHours:
		return WorkingHoursBudget()
	case BudgetUntilMidnight:
		return UntilMidnightBudget()
	}
	return nil
}

// hours names the budget's window in a report, e.g. "08–18".
func (b ArmBudget) hours() string { return strings.ReplaceAll(string(b), "-", "–") }

// LongLivedArm is one way to run the long-lived week: how the scheduler places shoots,
// whether consolidation drains seeds, how it chooses them and which budget holds it in
// the hours of weekdays. Results holds its runs, every policy at every target.
type LongLivedArm struct {
	Spread, Consolidation bool
	// MigrationCost: see ConsolidationModel.MigrationCost.
	MigrationCost bool
	Budget        ArmBudget
	Results       []Result
}

// config is cfg run as the arm: its placement, and cfg's consolidation model with the
// arm's choice and budget, or none when the arm removes empty seeds only.
func (a LongLivedArm) config(cfg Config) Config {
	cfg.Spread = a.Spread
	if !a.Consolidation || cfg.Consolidation == nil {
		cfg.Consolidation = nil
		return cfg
	}
	model := *cfg.Consolidation
	model.MigrationCost, model.Budgets = a.MigrationCost, a.Budget.Budgets()
	cfg.Consolidation = &model
	return cfg
}

// Placement names the arm's placement: Gardener's default profile spreads, first-fit packs.
func (a LongLivedArm) Placement() string {
	if a.Spread {
		return "spread"
	}
	return "packing"
}

// ScaleIn names the arm's scale-in.
func (a LongLivedArm) ScaleIn() string {
	switch {
	case !a.Consolidation:
		return "empty-only"
	case a.Budget != NoBudget:
		return "consolidation, not " + a.Budget.hours() + " weekdays"
	}
	return "consolidation"
}

// Choice names how consolidation chooses the seed to drain.
func (a LongLivedArm) Choice() string {
	switch {
	case !a.Consolidation:
		return "—"
	case a.MigrationCost:
		return "migration cost"
	}
	return "fewest shoots"
}

// name is the arm in a file name.
func (a LongLivedArm) name() string {
	parts := []string{a.Placement(), "empty-only"}
	if a.Consolidation {
		parts[1] = "consolidation"
	}
	if a.MigrationCost {
		parts = append(parts, "cost")
	}
	if a.Budget != NoBudget {
		parts = append(parts, "budget-"+string(a.Budget))
	}
	return strings.Join(parts, "-")
}

// LongLivedPolicies are the policies the long-lived week runs: the reactive autoscaler, and
// scale-ahead, which keeps consolidation from draining what the morning needs back.
var LongLivedPolicies = []Policy{PolicyReactive, PolicyAhead}

// longLivedArms are the arms of the long-lived week for each placement: empty-only
// scale-in, consolidation of the fewest shoots, of the least migration cost, and of the
// least migration cost outside working hours, and outside 08:00 to midnight.
var longLivedArms = []LongLivedArm{
	{},
	{Consolidation: true},
	{Consolidation: true, MigrationCost: true},
	{Consolidation: true, MigrationCost: true, Budget: BudgetWorkingHours},
	{Consolidation: true, MigrationCost: true, Budget: BudgetUntilMidnight},
}

// LongLivedArms are the long-lived week's arms, longLivedArms with spread and with packing
// placement. The first, spread with empty-only scale-in, is Gardener's default and the
// baseline.
func LongLivedArms() []LongLivedArm {
	var arms []LongLivedArm
	for _, spread := range []bool{true, false} {
		for _, arm := range longLivedArms {
			arm.Spread = spread
			arms = append(arms, arm)
		}
	}
	return arms
}

// RunLongLived runs the long-lived week's arms (LongLivedArms) for LongLivedPolicies at
// every target: only those named in only (as their CSV files are, e.g.
// spread-consolidation-cost-budget-08-24), or every arm when only is empty.
func RunLongLived(cfg Config, only []string, workers int) ([]LongLivedArm, error) {
	all := LongLivedArms()
	names := make([]string, 0, len(all))
	for _, arm := range all {
		names = append(names, arm.name())
	}
	for _, name := range only {
		if !slices.Contains(names, name) {
			return nil, fmt.Errorf("arm %q is unknown; choose of %s", name, strings.Join(names, ", "))
		}
	}
	var arms []LongLivedArm
	for _, arm := range all {
		if len(only) > 0 && !slices.Contains(only, arm.name()) {
			continue
		}
		results, err := RunAll(arm.config(cfg), LongLivedPolicies, Targets(), workers)
		if err != nil {
			return nil, fmt.Errorf("arm %s: %w", arm.name(), err)
		}
		arm.Results = results
		arms = append(arms, arm)
	}
	return arms, nil
}

// MigrationsPerDay is the run's migrations per simulated day.
func (r Result) MigrationsPerDay() float64 {
	if r.Duration <= 0 {
		return 0
	}
	return float64(r.Migrations) / (r.Duration.Hours() / 24)
}

// WeightedMigrationsPerDay is the run's disruption per simulated day: the migration weights
// of the shoots moved.
func (r Result) WeightedMigrationsPerDay() float64 {
	if r.Duration <= 0 {
		return 0
	}
	return r.MigratedWeight / (r.Duration.Hours() / 24)
}

// DrainsInWorkingHours counts the drains started from 08:00 to 18:00 on a weekday.
func (r Result) DrainsInWorkingHours() int {
	return during(r.DrainStarts, WorkingHoursBudget())
}

// MigrationsDuring counts the migrations started while a budget of consolidation is
// active: in the window of budgets, whether the run held consolidation to them or not.
func (r Result) MigrationsDuring(budgets []autoscalingv1alpha1.DisruptionBudget) int {
	return during(r.MigrationStarts, budgets)
}

// during counts the times of a run at which a budget of consolidation is active, as
// disruption.Evaluate reads its schedule.
func during(times []time.Duration, budgets []autoscalingv1alpha1.DisruptionBudget) int {
	n := 0
	for _, at := range times {
		now := weekStart.Add(at)
		for _, unit := range []disruption.Unit{disruption.Seeds, disruption.Shoots} {
			if disruption.Evaluate(budgets, autoscalingv1alpha1.DisruptionConsolidation, unit, 1, now).Bounded {
				n++
				break
			}
		}
	}
	return n
}

// headlineOf is the headline of policy among results.
func headlineOf(results []Result, policy Policy) (Headline, bool) {
	for _, h := range Headlines(results) {
		if h.Policy == policy {
			return h, true
		}
	}
	return Headline{}, false
}

// LongLivedMarkdown renders each arm's headline per policy (the run with the fewest
// seed-hours that meets the service level) against the baseline: the reactive policy with
// spread placement and empty-only scale-in; "—" when the baseline's arm is not among arms.
func LongLivedMarkdown(arms []LongLivedArm) string {
	base := math.NaN() // without the baseline's arm, no arm is compared with it
	for _, arm := range arms {
		if arm.Spread && !arm.Consolidation {
			if h, ok := headlineOf(arm.Results, PolicyReactive); ok {
				base = h.Run.SeedHours
			}
		}
	}
	if len(arms) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| policy | placement | scale-in | choice | target | seed-hours | vs baseline | at the target | p99 wait | migrations per day | of the shoots per day | weighted migrations per day | drains (canceled; 08–18 weekdays) | overcommits | protected shoots moved |\n")
	b.WriteString("|" + strings.Repeat(" --- |", 15) + "\n")
	for _, policy := range LongLivedPolicies {
		for _, arm := range arms {
			h, ok := headlineOf(arm.Results, policy)
			if !ok {
				continue
			}
			r := h.Run
			target := fmt.Sprintf("%d%%", r.TargetPercent)
			if !h.Met {
				target += " (none meets the service level)"
			}
			share := 0.0
			if r.MeanShoots > 0 {
				share = 100 * r.MigrationsPerDay() / r.MeanShoots
			}
			vs := "—"
			if !math.IsNaN(base) {
				vs = fmt.Sprintf("%+.1f%%", 100*(r.SeedHours/base-1))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.1f | %s | %.1f | %s | %.1f | %.2f%% | %.1f | %d (%d; %d) | %d | %d |\n",
				policy, arm.Placement(), arm.ScaleIn(), arm.Choice(), target, r.SeedHours, vs, r.AtTargetSeedHours,
				seconds(r.P99Bind), r.MigrationsPerDay(), share, r.WeightedMigrationsPerDay(), r.Drains, r.CanceledDrains, r.DrainsInWorkingHours(),
				r.Overcommits, r.ProtectedMoved)
		}
	}
	return b.String()
}

// BudgetMarkdown weighs each budget arm against consolidation by migration cost without a
// budget, per policy and placement, at one target: the one at which the arm without a
// budget meets the service level with the fewest seed-hours. For each arm it shows the
// migrations started in each budget's window, held to that budget or not, all migrations,
// the seed-hours and how long the set kept seeds it did not need.
func BudgetMarkdown(arms []LongLivedArm) string {
	var windows []ArmBudget
	for _, arm := range arms {
		if arm.Budget != NoBudget && !slices.Contains(windows, arm.Budget) {
			windows = append(windows, arm.Budget)
		}
	}
	if len(windows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| policy | placement | budget | target |")
	for _, w := range windows {
		fmt.Fprintf(&b, " migrations %s weekdays |", w.hours())
	}
	b.WriteString(" migrations | drains | seed-hours | vs no budget | above its needs | p99 wait |\n")
	b.WriteString("|" + strings.Repeat(" --- |", 10+len(windows)) + "\n")
	for _, policy := range LongLivedPolicies {
		for _, free := range arms {
			if !free.Consolidation || !free.MigrationCost || free.Budget != NoBudget {
				continue
			}
			h, ok := headlineOf(free.Results, policy)
			if !ok {
				continue
			}
			for _, arm := range arms {
				if !arm.Consolidation || !arm.MigrationCost || arm.Spread != free.Spread {
					continue
				}
				r, ok := resultAt(arm.Results, policy, h.Run.TargetPercent)
				if !ok {
					continue
				}
				budget := "none"
				if arm.Budget != NoBudget {
					budget = "not " + arm.Budget.hours() + " weekdays"
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %d%% |", policy, arm.Placement(), budget, r.TargetPercent)
				for _, w := range windows {
					fmt.Fprintf(&b, " %d |", r.MigrationsDuring(w.Budgets()))
				}
				fmt.Fprintf(&b, " %d | %d | %.1f | %+.1f%% | %.1f h | %s |\n", r.Migrations, r.Drains, r.SeedHours,
					100*(r.SeedHours/h.Run.SeedHours-1), r.AboveNeeds.Hours(), seconds(r.P99Bind))
			}
		}
	}
	return b.String()
}

// resultAt is the run of policy at target among results.
func resultAt(results []Result, policy Policy, target int32) (Result, bool) {
	for _, r := range results {
		if r.Policy == policy && r.TargetPercent == target {
			return r, true
		}
	}
	return Result{}, false
}

// longLivedPerTarget renders the reactive policy's seed-hours at every target, per arm,
// with what a set held exactly at that target costs (the same in every arm: it follows the
// demand alone).
func longLivedPerTarget(arms []LongLivedArm) string {
	var b strings.Builder
	b.WriteString("| target | at the target |")
	columns := 2
	for _, arm := range arms {
		name := arm.Placement() + ", " + arm.ScaleIn()
		if arm.Consolidation {
			name += ", " + arm.Choice()
		}
		fmt.Fprintf(&b, " %s |", name)
		columns++
		if arm.Consolidation {
			b.WriteString(" migrations (weighted) per day |")
			columns++
		}
	}
	b.WriteString("\n|" + strings.Repeat(" --- |", columns) + "\n")
	for i, t := range Targets() {
		// The reactive policy's runs come first, one per target.
		fmt.Fprintf(&b, "| %d%% | %.1f |", t, arms[0].Results[i].AtTargetSeedHours)
		for _, arm := range arms {
			r := arm.Results[i]
			fmt.Fprintf(&b, " %.1f |", r.SeedHours)
			if arm.Consolidation {
				fmt.Fprintf(&b, " %.1f (%.1f) |", r.MigrationsPerDay(), r.WeightedMigrationsPerDay())
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// WriteLongLivedReport runs the long-lived week's arms (RunLongLived, only those named in
// only when it names any) and writes one CSV per arm
// (longlived-<placement>-<scale-in>[-cost][-budget-<hours>].csv) and summary.md into dir. It
// returns the summary.
func WriteLongLivedReport(dir string, cfg Config, only []string, workers int) (string, error) {
	arms, err := RunLongLived(cfg, only, workers)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for _, arm := range arms {
		var buf bytes.Buffer
		if err := WriteCSV(&buf, arm.Results); err != nil {
			return "", err
		}
		name := fmt.Sprintf("longlived-%s.csv", arm.name())
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			return "", err
		}
	}
	var s strings.Builder
	s.WriteString("# A week of long-lived shoots\n\n")
	fmt.Fprintf(&s, "%d long-lived shoots at the start, %.0f more per hour living %s on average, %.0f testing shoots per working hour living %s, %.0f%% of the long-lived opted out of migration; seeds of %d; consolidation after %s above needs, at most %d migrations per hour, %d in flight, each %s, a shoot moved not again within %s. %.0f%% of all shoots are highly available: a migration weighs %g, %g for those. Placement: spread is Gardener's default (the seed with the fewest shoots), packing is first-fit. Choice: the seed of the fewest shoots (every migration weighs the same), or of the least migration cost (recommend.ScoreConsolidation over the shoots' weights); a budget lets consolidation start no drain from 08:00 to 18:00, or from 08:00 to midnight, UTC on weekdays. Weighted migrations: the migration weights of the shoots moved. Each row is the run with the fewest seed-hours at p99 wait ≤ %s (targets 50%%–95%%); the baseline is reactive, spread, empty-only. At the target is what a set held exactly at its target utilization costs: ceil(demand / (seed allocatable × target)) seeds at every instant.\n\n",
		cfg.LongLived.Initial, cfg.LongLived.LongPerHour, cfg.LongLived.LongLifetime, cfg.LongLived.TestingPerHour, cfg.LongLived.TestingLifetime,
		100*cfg.LongLived.ProtectedShare, cfg.AllocatablePerSeed, cfg.Consolidation.Rules.Window, cfg.Consolidation.Rules.MaxMigrationsPerHour,
		cfg.Consolidation.MaxMigrationsPerSeed, cfg.Consolidation.MigrationDuration, cfg.Consolidation.Rules.ShootCooldown,
		100*cfg.LongLived.HighlyAvailableShare, recommend.DefaultMigrationWeight, recommend.LiveMigrationWeight, ServiceLevel)
	s.WriteString(LongLivedMarkdown(arms))
	s.WriteString("\nThe budgets against none, by migration cost, at the target of the arm without a budget (migrations started in each budget's window, whether the arm holds to it or not; how long the set kept seeds it did not need):\n\n")
	s.WriteString(BudgetMarkdown(arms))
	s.WriteString("\nThe reactive policy's seed-hours per target:\n\n")
	s.WriteString(longLivedPerTarget(arms))
	summary := s.String()
	if err := os.WriteFile(filepath.Join(dir, "summary.md"), []byte(summary), 0o644); err != nil {
		return "", err
	}
	return summary, nil
}
