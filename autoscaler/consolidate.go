package autoscaler

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	autoscalingv1alpha1 "github.com/seedscaler/seedscaler/api/autoscaling/v1alpha1"
	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/autoscaler/forecast"
	"github.com/seedscaler/seedscaler/autoscaler/recommend"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/membership"
)

// Events of consolidation.
const (
	// EventConsolidationStarted: consolidation annotated a seed's ManagedSeed for a drain.
	EventConsolidationStarted = controllerutils.Normal("ConsolidationStarted")
	// EventConsolidationCanceled: consolidation gave a drain up.
	EventConsolidationCanceled = controllerutils.Warning("ConsolidationCanceled")
	// EventConsolidationApproved: the seed of the highest score is worth its migrations.
	EventConsolidationApproved = controllerutils.Normal("ConsolidationApproved")
	// EventConsolidationRejected: no seed is worth its migrations (or none may move); the
	// seeds are scored again after the window.
	EventConsolidationRejected = controllerutils.Normal("ConsolidationRejected")
)

// canceledSkip is how long a seed whose consolidation drain was given up is not chosen again.
const canceledSkip = time.Hour

// +kubebuilder:rbac:groups=seedmanagement.gardener.cloud,resources=managedseeds,verbs=patch

// consolidate runs spec.behavior.scaleDown.consolidation after a decision: it tracks how
// long the set has been above its needs, cancels a drain of its own that is stuck or no
// longer wanted, and otherwise starts draining the seed of the highest score (choose).
// The scheduler's drain moves the shoots and the set's scale-in removes the emptied seed.
func (r *Reconciler) consolidate(ctx context.Context, sa *autoscalingv1alpha1.SeedAutoscaler, obs *observation, in recommend.Input, d recommend.Decision,
	b *budgets, now time.Time) error {
	rules, enabled := consolidationRules(sa)
	if !enabled || obs == nil || obs.set == nil {
		sa.Status.Consolidation = nil
		r.Instruments.budgets(client.ObjectKeyFromObject(sa), nil)
		r.Instruments.consolidationScore(client.ObjectKeyFromObject(sa), nil)
		return nil
	}
	st := sa.Status.Consolidation
	if st == nil {
		st = &autoscalingv1alpha1.ConsolidationStatus{}
		sa.Status.Consolidation = st
	}
	st.Budgets = b.status()
	r.Instruments.budgets(client.ObjectKeyFromObject(sa), budgetSamples(st.Budgets, b))
	defer func() { r.Instruments.consolidationScore(client.ObjectKeyFromObject(sa), scoreSamples(st)) }()
	st.Drains = recentDrains(st.Drains, rules.MaxMigrationsPerHour, now)
	aboveNeeds := d.ScalingLimited.IsTrue() && d.ScalingLimited.Reason == recommend.ReasonTooFewRemovableSeeds
	switch {
	case !aboveNeeds:
		st.AboveNeedsSince = nil
	case st.AboveNeedsSince == nil:
		st.AboveNeedsSince = &metav1.Time{Time: now}
	}

	scaleAheadHolds := scaleAheadHolds(sa, obs.current)
	scaleInPaused := readDirectionPause(sa.Annotations).paused.ScaleIn
	if ms := consolidating(obs); ms != nil {
		why := r.cancelReason(obs, ms, d, scaleAheadHolds, scaleInPaused)
		if why == "" {
			return nil
		}
		return r.cancel(ctx, sa, ms, why)
	}
	if scaleInPaused {
		// A drain only prepares a scale-in: while scale-in is paused it would move control
		// planes for nothing.
		return nil
	}
	if why := b.holdConsolidation(); why != "" {
		logf.FromContext(ctx).V(1).Info("No seed to consolidate", "why", why)
		return nil
	}

	choice, approved := r.choose(ctx, sa, obs, in, rules, scaleAheadHolds, now)
	if !approved || r.DryRun {
		return nil
	}
	if err := r.annotateDrain(ctx, sa.Namespace, choice.Seed, map[string]any{
		gardencorev1beta1.AnnotationDrain:       "true",
		gardencorev1beta1.AnnotationDrainReason: gardencorev1beta1.DrainReasonConsolidation,
	}); err != nil {
		return err
	}
	st.Drains = append(st.Drains, autoscalingv1alpha1.ConsolidationDrain{Seed: choice.Seed, Shoots: ptr.To(int32(choice.Shoots)), StartTime: &metav1.Time{Time: now}})
	r.event(sa, EventConsolidationStarted, "Consolidate", "Consolidation drains seed %s: its %d shoots move to the other seeds (score %s)",
		choice.Seed, choice.Shoots, recommend.FormatScore(choice.Score))
	return nil
}

// maxRememberedScores is the most scorings status.consolidation.scores holds (its MaxItems).
const maxRememberedScores = 8

// lastScore is the newest scoring in status; nil before the first.
func lastScore(st *autoscalingv1alpha1.ConsolidationStatus) *autoscalingv1alpha1.ConsolidationScore {
	if st == nil || len(st.Scores) == 0 || st.Scores[len(st.Scores)-1].Time == nil {
		return nil
	}
	return &st.Scores[len(st.Scores)-1]
}

// scoreSamples are the series of seedscaler_autoscaler_consolidation_score of the newest
// scoring in status: the score of its seed.
func scoreSamples(st *autoscalingv1alpha1.ConsolidationStatus) []objectSample {
	last := lastScore(st)
	if last == nil || last.Seed == "" {
		return nil
	}
	v, err := strconv.ParseFloat(last.Score, 64)
	if err != nil {
		return nil
	}
	return []objectSample{{labels: []string{last.Seed}, value: v}}
}

// consolidationRules are the consolidation rules of the spec with defaults; false when the
// autoscaler does not consolidate.
func consolidationRules(sa *autoscalingv1alpha1.SeedAutoscaler) (recommend.ConsolidationRules, bool) {
	b := sa.Spec.Behavior
	if b == nil || b.ScaleDown == nil || b.ScaleDown.Consolidation == nil {
		return recommend.ConsolidationRules{}, false
	}
	c := b.ScaleDown.Consolidation
	rules := recommend.ConsolidationRules{
		Window:               time.Duration(c.WindowSeconds) * time.Second,
		MaxMigrationsPerHour: int(c.MaxMigrationsPerHour),
		ShootCooldown:        recommend.DefaultConsolidationShootCooling,
		MinScore:             recommend.DefaultMinConsolidationScore,
	}
	if c.MinScore != nil {
		rules.MinScore = c.MinScore.AsApproximateFloat64()
	}
	if rules.Window == 0 {
		rules.Window = recommend.DefaultConsolidationWindow
	}
	if rules.MaxMigrationsPerHour == 0 {
		rules.MaxMigrationsPerHour = recommend.DefaultMaxMigrationsPerHour
	}
	if c.ShootCooldownSeconds != nil {
		rules.ShootCooldown = time.Duration(*c.ShootCooldownSeconds) * time.Second
	}
	return rules, true
}

// recentDrains keeps the drains status must remember: those the budget of perHour
// migrations per hour has not paid for yet, and those canceled less than canceledSkip ago.
func recentDrains(drains []autoscalingv1alpha1.ConsolidationDrain, perHour int, now time.Time) []autoscalingv1alpha1.ConsolidationDrain {
	var out []autoscalingv1alpha1.ConsolidationDrain
	for _, dr := range drains {
		if dr.StartTime == nil {
			continue
		}
		paid := pastDrain(dr).PaidAt(perHour)
		if now.Before(paid) || now.Sub(dr.StartTime.Time) < canceledSkip {
			out = append(out, dr)
		}
	}
	// The newest that fit status; drains go one after another, so a few are ever kept.
	return out[max(0, len(out)-maxRememberedDrains):]
}

// maxRememberedDrains is the most drains status.consolidation.drains holds (its MaxItems).
const maxRememberedDrains = 64

// pastDrain is a drain of status as recommend.ChooseConsolidationCandidates reads it.
func pastDrain(dr autoscalingv1alpha1.ConsolidationDrain) recommend.PastDrain {
	return recommend.PastDrain{Start: dr.StartTime.Time, Shoots: int(ptr.Deref(dr.Shoots, 0))}
}

// scaleAheadHolds says whether the forecast expects the set's capacity back within its
// lead time: it held a scale-in, scaled out ahead, or asks for at least the current seeds.
func scaleAheadHolds(sa *autoscalingv1alpha1.SeedAutoscaler, current int32) bool {
	s := sa.Status.ScaleAhead
	if s == nil {
		return false
	}
	switch string(s.Reason) {
	case string(forecast.ReasonHeldScaleIn), "ScaledOutAhead":
		return true
	}
	return s.ForecastReplicas != nil && *s.ForecastReplicas >= current
}

// consolidating returns the ManagedSeed a consolidation drains, nil when none.
func consolidating(obs *observation) *seedmanagementv1alpha1.ManagedSeed {
	for i := range obs.managedSeeds {
		ms := &obs.managedSeeds[i]
		if ms.DeletionTimestamp == nil && gardencorev1beta1.Draining(ms.Annotations) &&
			ms.Annotations[gardencorev1beta1.AnnotationDrainReason] == gardencorev1beta1.DrainReasonConsolidation {
			return ms
		}
	}
	return nil
}

// cancelReason says why a consolidation drain in progress is given up: the scheduler's drain
// is stuck (a shoot has no place, or is protected), demand came back (the set scales out), or
// the forecast expects the capacity back, or scale-in is paused. Empty while it goes on.
func (r *Reconciler) cancelReason(obs *observation, ms *seedmanagementv1alpha1.ManagedSeed, d recommend.Decision, scaleAheadHolds, scaleInPaused bool) string {
	if seed, ok := obs.seeds[ms.Name]; ok {
		if c := meta.FindStatusCondition(seed.Status.Conditions, gardencorev1beta1.SeedDrained); c != nil && c.Reason == "DrainStuck" {
			return "the scheduler cannot empty the seed: " + c.Message
		}
	}
	switch {
	case d.DesiredReplicas > obs.current:
		return fmt.Sprintf("demand came back: the set scales out from %d to %d seeds", obs.current, d.DesiredReplicas)
	case scaleAheadHolds:
		return "scale-ahead expects the capacity back within its lead time"
	case scaleInPaused:
		return "scale-in is paused by the annotation " + autoscalingv1alpha1.AnnotationPausedScaleIn + ", so the emptied seed would not be removed"
	}
	return ""
}

// cancel removes the drain annotations from the ManagedSeed (migrations in flight finish)
// and records why.
func (r *Reconciler) cancel(ctx context.Context, sa *autoscalingv1alpha1.SeedAutoscaler, ms *seedmanagementv1alpha1.ManagedSeed, why string) error {
	if r.DryRun {
		return nil
	}
	if err := r.annotateDrain(ctx, ms.Namespace, ms.Name, map[string]any{
		gardencorev1beta1.AnnotationDrain: nil, gardencorev1beta1.AnnotationDrainReason: nil,
	}); err != nil {
		return err
	}
	st := sa.Status.Consolidation
	found := false
	for i := range st.Drains {
		if st.Drains[i].Seed == ms.Name && st.Drains[i].Canceled == "" {
			st.Drains[i].Canceled, found = controllerutils.Truncate(why, 1024), true
		}
	}
	if !found {
		// No longer remembered: remembered again, so it is not chosen at once.
		st.Drains = append(st.Drains, autoscalingv1alpha1.ConsolidationDrain{Seed: ms.Name, StartTime: &metav1.Time{Time: r.Clock.Now()}, Canceled: controllerutils.Truncate(why, 1024)})
	}
	logf.FromContext(ctx).Info("Consolidation canceled", "managedSeed", klog.KObj(ms), "why", why)
	r.event(sa, EventConsolidationCanceled, "Consolidate", "%s", controllerutils.Truncate(fmt.Sprintf("Consolidation gave up draining seed %s: %s", ms.Name, why), 1024))
	return nil
}

// choose lists the seeds consolidation may drain (recommend.ChooseConsolidationCandidates),
// reads what draining each one costs from its shoots on the kube-apiserver (one list by
// spec.seedName per candidate, only when a drain may start), and scores them
// (recommend.ScoreConsolidation): the seed of the highest savings per disruption is drained
// when its score reaches minScore. Each scoring goes into status and an event; after a
// rejected one the seeds are scored again once the window has passed, so that a set whose
// seeds are not worth draining is not listed on every evaluation.
func (r *Reconciler) choose(ctx context.Context, sa *autoscalingv1alpha1.SeedAutoscaler, obs *observation, in recommend.Input,
	rules recommend.ConsolidationRules, scaleAheadHolds bool, now time.Time) (recommend.ConsolidationScore, bool) {
	log := logf.FromContext(ctx)
	st := sa.Status.Consolidation
	cin := recommend.ConsolidationInput{
		Now: now, Rules: rules, Current: obs.current, Min: in.MinReplicas, ScaleAheadHolds: scaleAheadHolds,
		TargetUtilization: float64(in.Demand.Target.UtilizationPercent) / 100, Skip: map[string]string{},
	}
	if st.AboveNeedsSince != nil {
		cin.AboveNeedsSince = st.AboveNeedsSince.Time
	}
	for _, dr := range st.Drains {
		cin.Drains = append(cin.Drains, pastDrain(dr))
		if dr.Canceled != "" && now.Sub(dr.StartTime.Time) < canceledSkip {
			cin.Skip[dr.Seed] = "consolidation gave it up less than an hour ago"
		}
	}
	cin.Seeds = consolidationSeeds(obs, now, r.MetricMaxAge)
	candidates := recommend.ChooseConsolidationCandidates(cin)
	if len(candidates.Seeds) == 0 {
		log.V(1).Info("No seed to consolidate", "why", candidates.Message)
		return recommend.ConsolidationScore{}, false
	}
	if last := lastScore(st); last != nil && last.Decision == autoscalingv1alpha1.ConsolidationRejected && now.Before(last.Time.Add(rules.Window)) {
		log.V(1).Info("No seed to consolidate", "why", "the last scoring was rejected", "scoresAgainAt", last.Time.Add(rules.Window))
		return recommend.ConsolidationScore{}, false
	}

	costs := make([]recommend.SeedCost, 0, len(candidates.Seeds))
	var problems []string
	for _, c := range candidates.Seeds {
		cost, notes, err := r.seedCost(ctx, c, rules.ShootCooldown, now)
		if err != nil {
			log.Error(err, "Reading the shoots of a seed to consolidate failed", "seed", c.Name)
			return recommend.ConsolidationScore{}, false
		}
		costs = append(costs, cost)
		problems = append(problems, notes...)
	}
	score := recommend.ScoreConsolidation(costs, rules.MinScore)
	message := score.Message
	if !score.Approved {
		message += fmt.Sprintf("; consolidation moves nothing and scores the seeds again after the window of %s", rules.Window)
	}
	if len(problems) > 0 {
		message += "; " + strings.Join(problems, "; ")
	}
	message = controllerutils.Truncate(message, 1024)
	decision := autoscalingv1alpha1.ConsolidationRejected
	if score.Approved {
		decision = autoscalingv1alpha1.ConsolidationApproved
	}
	scoring := autoscalingv1alpha1.ConsolidationScore{Time: &metav1.Time{Time: now}, Decision: decision, Seed: score.Seed, Message: message}
	if score.Seed != "" {
		scoring.Score, scoring.Weight = recommend.FormatScore(score.Score), recommend.FormatScore(score.Weight)
	}
	st.Scores = append(st.Scores, scoring)
	st.Scores = st.Scores[max(0, len(st.Scores)-maxRememberedScores):]
	if score.Approved {
		r.event(sa, EventConsolidationApproved, "Consolidate", "Consolidation approved: %s", message)
	} else {
		r.event(sa, EventConsolidationRejected, "Consolidate", "Consolidation rejected: %s", message)
	}
	return score, score.Approved
}

// consolidationSeeds are the set's live seeds as consolidation looks at them.
func consolidationSeeds(obs *observation, now time.Time, maxAge time.Duration) []recommend.ConsolidationSeed {
	managed := map[string]*seedmanagementv1alpha1.ManagedSeed{}
	for i := range obs.managedSeeds {
		managed[obs.managedSeeds[i].Name] = &obs.managedSeeds[i]
	}
	var out []recommend.ConsolidationSeed
	for name, seed := range obs.seeds {
		ms, ok := managed[name]
		if !ok || obs.deleting(seed) {
			continue
		}
		s := recommend.ConsolidationSeed{
			Name:      name,
			Draining:  gardencorev1beta1.Draining(seed.Annotations) || gardencorev1beta1.Draining(ms.Annotations),
			Protected: ms.Annotations[seedmanagementv1alpha1.AnnotationProtectFromDeletion] == "true" || obs.shootsProtected[name],
			Ready:     seedIsReady(seed),
		}
		if a, ok := quantity(seed.Status.Allocatable, gardencorev1beta1.ResourceShoots); ok {
			s.Allocatable = int(a)
		}
		s.Shoots = seedShoots(obs, seed, now, maxAge)
		out = append(out, s)
	}
	return out
}

// +kubebuilder:rbac:groups=core.gardener.cloud,resources=shoots,verbs=list

// seedCost lists the shoots on a candidate seed and says what draining it costs: the sum
// of their migration weights (a shoot the metrics count but the list does not show, such as
// one whose control plane is leaving, weighs 1), or why the seed may not be drained (a shoot
// opted out of migration, is a replica's own shoot, or was moved within the cool-down). The
// notes name annotations of a migration weight that are ignored.
func (r *Reconciler) seedCost(ctx context.Context, seed recommend.ConsolidationSeed, cooldown time.Duration, now time.Time) (recommend.SeedCost, []string, error) {
	list := &gardencorev1beta1.ShootList{}
	if err := r.Reader.List(ctx, list, client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("spec.seedName", seed.Name)}); err != nil {
		return recommend.SeedCost{}, nil, fmt.Errorf("listing the shoots on seed %s: %w", seed.Name, err)
	}
	cost := recommend.SeedCost{Seed: seed.Name, Shoots: seed.Shoots}
	var notes []string
	for _, shoot := range list.Items {
		key := shoot.Namespace + "/" + shoot.Name
		switch {
		case shoot.Annotations[gardencorev1beta1.AnnotationMigration] == gardencorev1beta1.MigrationDisabled:
			cost.Unmovable = fmt.Sprintf("shoot %s opted out of migration", key)
		case membership.IsReplica(&shoot):
			cost.Unmovable = fmt.Sprintf("shoot %s is a ManagedSeedSet replica's", key)
		}
		if at, err := time.Parse(time.RFC3339, shoot.Annotations[gardencorev1beta1.AnnotationMigratedAt]); err == nil && now.Sub(at) < cooldown && cost.Unmovable == "" {
			cost.Unmovable = fmt.Sprintf("shoot %s moved at %s, within the cool-down of %s", key, at.Format(time.RFC3339), cooldown)
		}
		if cost.Unmovable != "" {
			return cost, nil, nil
		}
		w, problem := recommend.MigrationWeight(&shoot)
		cost.Weight += w
		if problem != "" {
			notes = append(notes, problem)
		}
	}
	cost.Weight += float64(max(0, seed.Shoots-len(list.Items))) * recommend.DefaultMigrationWeight
	return cost, notes, nil
}

// annotateDrain sets (a string) or removes (nil) annotations of a ManagedSeed.
func (r *Reconciler) annotateDrain(ctx context.Context, namespace, name string, annotations map[string]any) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return err
	}
	ms := &seedmanagementv1alpha1.ManagedSeed{}
	ms.Namespace, ms.Name = namespace, name
	if err := r.Client.Patch(ctx, ms, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("annotating ManagedSeed %s/%s for consolidation: %w", namespace, name, err)
	}
	return nil
}
