package drain

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/internal/controllerutils"
	"github.com/seedscaler/seedscaler/internal/membership"
	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/controller"
	"github.com/seedscaler/seedscaler/scheduler/framework"
	"github.com/seedscaler/seedscaler/scheduler/placement"
)

// Events of drains and migrations.
const (
	// EventMigrationStarted: a drain moves a shoot's control plane to another seed.
	EventMigrationStarted = controllerutils.Normal("MigrationStarted")
	// EventMigrationRolledBack: a failed migration was undone; the shoot stays on its old seed.
	EventMigrationRolledBack = controllerutils.Warning("MigrationRolledBack")
	// EventDraining, EventDrainStuck, EventDrainComplete report a drain on its Seed when its
	// Drained condition changes reason; EventDrainWaiting too.
	EventDraining      = controllerutils.Normal(ReasonDraining)
	EventDrainStuck    = controllerutils.Warning(ReasonDrainStuck)
	EventDrainComplete = controllerutils.Normal(ReasonDrainComplete)
	// EventDrainWaiting reports a drain the disruption budget of its set holds back.
	EventDrainWaiting = controllerutils.Normal(ReasonDrainWaiting)
)

// recheck is how often a drain in progress is looked at without events: the backstop for
// a migration budget freed by a shoot of another seed of the set.
const recheck = 30 * time.Second

// Indexes of the scheduler's Shoot cache (controllerutils.ClusterIndex).
const (
	// indexSeedNames indexes shoots by every seed they count on (usage.SeedNames).
	indexSeedNames = "drain.seedNames"
	// indexMigratingFrom indexes shoots whose control plane is leaving a seed by that seed.
	indexMigratingFrom = "drain.migratingFrom"
)

// Placer places the shoots a drain moves as the scheduler places shoots
// (*placement.Placer): decided, reserved and bound under the scheduler's lock and ledger.
type Placer interface {
	// Place decides a seed for the shoot, reserves it and binds the shoot to it.
	Place(ctx context.Context, shoot *gardencorev1beta1.Shoot, opts placement.Options) (placement.Decision, error)
	// Trial places every shoot at once without binding, and gives every place back.
	Trial(ctx context.Context, shoots []*gardencorev1beta1.Shoot, opts placement.Options) []placement.Decision
}

// Ledger reads the scheduler's usage of a seed (*capacity.Ledger).
type Ledger interface {
	// Usage is the shoots on a seed, the binds reserved and not yet seen included.
	Usage(seed string) int
}

// Scheduler is what else a drain uses of the scheduler beside which it runs
// (*controller.Reconciler).
type Scheduler interface {
	// Seeds are the seeds as the scheduler's decisions see them, sorted by name.
	Seeds() []*framework.SeedInfo
	// Rebind sets spec.seedName of a bound shoot back to the seed it still counts on.
	Rebind(ctx context.Context, shoot *gardencorev1beta1.Shoot, seed string) error
	// CountMigration counts a migration started or rolled back.
	CountMigration(result string)
	// ObserveDrain serves a drained seed's shoots by state; nil removes its series.
	ObserveDrain(seed string, shoots *controller.DrainShoots)
}

// Reconciler drains one seed per call.
type Reconciler struct {
	// Config is the scheduler's configuration: whose shoots a drain moves, and its budget.
	Config *config.SchedulerConfiguration
	// Placer places the shoots a drain moves.
	Placer Placer
	// Ledger reads the usage of the seeds of a drained seed's set, for its disruption budget.
	Ledger Ledger
	// Scheduler lends its seeds, its binding for roll-backs and its metrics.
	Scheduler Scheduler
	// Recorder emits events on shoots and seeds.
	Recorder events.EventRecorder
	// Synced reports whether the scheduler has seen every shoot and seed of the initial
	// lists; a drain decides nothing before.
	Synced func() bool
	// Client reads from the manager's cache and writes to the API server; the scheduler's
	// when nil.
	Client client.Client
	// Reader reads shoots whole from the API server (the scheduler caches bound shoots
	// slim); the manager's API reader when nil.
	Reader client.Reader
	// Clock is the time of conditions and cool-downs.
	Clock clock.PassiveClock

	// bySeed and byMigratingFrom find the cached shoots of a seed (indexSeedNames,
	// indexMigratingFrom).
	bySeed, byMigratingFrom *controllerutils.ClusterIndex[*gardencorev1beta1.Shoot]

	mu sync.Mutex
	// failedAt remembers when a shoot's migration failed and was rolled back, by shoot key.
	failedAt map[string]time.Time
	// draining are the seeds found draining, so that shoot events wake only their drains.
	draining map[string]bool
	// started are the migrations this drain started, by shoot key, kept until the cache
	// shows them: the budget must count a migration the cache does not show yet.
	started map[string]startedMigration
}

// startedMigration is a migration a drain started: the seed the shoot leaves, and the one
// it goes to.
type startedMigration struct{ from, to string }

// +kubebuilder:rbac:groups=core.gardener.cloud,resources=seeds/status,verbs=patch
// +kubebuilder:rbac:groups=core.gardener.cloud,resources=shoots,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=seedmanagement.gardener.cloud,resources=managedseeds,verbs=get;list;watch

// Reconcile moves shoots off a drained seed within the budget and reports the progress.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if r.Synced != nil && !r.Synced() {
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	seed := &gardencorev1beta1.Seed{}
	if err := r.Client.Get(ctx, req.NamespacedName, seed); err != nil {
		r.setDraining(req.Name, false)
		r.Scheduler.ObserveDrain(req.Name, nil)
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	by, draining, err := r.drainedBy(ctx, seed)
	if err != nil {
		return ctrl.Result{}, err
	}
	r.setDraining(seed.Name, draining)
	if !draining {
		r.Scheduler.ObserveDrain(seed.Name, nil)
		return ctrl.Result{}, r.clearCondition(ctx, seed)
	}

	shoots, err := r.bySeed.List(seed.Name)
	if err != nil {
		return ctrl.Result{}, err
	}
	inFlight, err := r.startedNotSeen(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	progress := Progress{Shoots: len(shoots), Started: map[string]string{}, Waiting: map[string]string{}, Blocked: map[string]string{}}
	var movable []*gardencorev1beta1.Shoot
	for _, shoot := range shoots {
		key := usage.Key(shoot)
		if m, ok := inFlight[key]; ok && m.from == seed.Name {
			progress.Leaving = append(progress.Leaving, key)
			continue
		}
		v := Classify(shoot, seed.Name, r.Config.SchedulerName, r.lastFailure(key), r.cooldown(), r.Clock.Now())
		switch v.Class {
		case Movable:
			movable = append(movable, shoot)
		case Leaving:
			progress.Leaving = append(progress.Leaving, key)
		case Waiting:
			progress.Waiting[key] = v.Reason
		case Protected:
			progress.Blocked[key] = v.Reason
		}
	}
	set, err := r.seedsOfSet(ctx, seed)
	if err != nil {
		return ctrl.Result{}, err
	}
	outOfSet, outOfMember, err := r.migrationsOutOfSet(ctx, set, inFlight)
	if err != nil {
		return ctrl.Result{}, err
	}
	verdict, err := r.judgeBudgets(ctx, seed, by, set, outOfMember, outOfSet)
	if err != nil {
		return ctrl.Result{}, err
	}
	if verdict.Waiting != "" {
		// Cordoned, but not yet emptied: the set's budget admits other drains first.
		progress.Held, progress.OverBudget = verdict.Waiting, len(movable)
		movable = nil
	}
	if why := Unleavable(seed); why != "" {
		// gardener-apiserver refuses every move away from the seed: trying one would only
		// fail each target the same way.
		for _, shoot := range movable {
			progress.Blocked[usage.Key(shoot)] = why
		}
		movable = nil
	}
	room := r.budget().Room(len(progress.Leaving), outOfSet)
	if verdict.Bounded && verdict.Room < room {
		room, progress.ShootsBudget = verdict.Room, verdict.ShootsBudget
	}
	if by.reason == gardencorev1beta1.DrainReasonConsolidation && room > 0 && len(movable) > 0 {
		// A consolidation moves nothing unless every shoot can leave.
		nowhere := r.unplaceable(ctx, seed, movable)
		if len(nowhere)+len(progress.Blocked) > 0 {
			maps.Copy(progress.Blocked, nowhere)
			for _, shoot := range movable {
				if _, ok := nowhere[usage.Key(shoot)]; !ok {
					progress.Blocked[usage.Key(shoot)] = "waits: a consolidation moves no shoot until every shoot can leave"
				}
			}
			movable = nil
		}
	}
	for _, shoot := range movable {
		if room == 0 {
			progress.OverBudget++
			continue
		}
		started, err := r.migrate(ctx, seed, by.holder, shoot, &progress)
		if err != nil {
			return ctrl.Result{}, err
		}
		if started {
			room--
		}
	}
	r.Scheduler.ObserveDrain(seed.Name, &controller.DrainShoots{Remaining: progress.Shoots, Migrating: len(progress.Leaving) + len(progress.Started),
		Waiting: len(progress.Waiting) + progress.OverBudget, Blocked: len(progress.Blocked)})
	if err := r.report(ctx, seed, progress); err != nil {
		return ctrl.Result{}, err
	}
	if progress.Shoots == 0 {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{RequeueAfter: r.nextLook(shoots)}, nil
}

// nextLook is when a drain in progress looks again without events: at the end of the
// earliest cool-down of its shoots, at the latest after recheck.
func (r *Reconciler) nextLook(shoots []*gardencorev1beta1.Shoot) time.Duration {
	next := recheck
	now := r.Clock.Now()
	for _, shoot := range shoots {
		if at := r.lastFailure(usage.Key(shoot)); !at.IsZero() {
			if wait := at.Add(r.cooldown()).Sub(now); wait > 0 {
				next = min(next, wait)
			}
		}
	}
	return next
}

// drainer is what carries a seed's drain annotation.
type drainer struct {
	// holder names it, e.g. "ManagedSeed garden/demo-3".
	holder string
	// reason is its seedscaler.io/drain-reason.
	reason string
}

// drainedBy says whether the seed is drained, and what carries the annotation.
func (r *Reconciler) drainedBy(ctx context.Context, seed *gardencorev1beta1.Seed) (drainer, bool, error) {
	if gardencorev1beta1.Draining(seed.Annotations) {
		return drainer{"Seed " + seed.Name, seed.Annotations[gardencorev1beta1.AnnotationDrainReason]}, true, nil
	}
	ms := &seedmanagementv1alpha1.ManagedSeed{}
	if err := r.Client.Get(ctx, membership.ManagedSeedOf(seed), ms); err != nil {
		return drainer{}, false, client.IgnoreNotFound(err)
	}
	d := drainer{fmt.Sprintf("ManagedSeed %s/%s", ms.Namespace, ms.Name), ms.Annotations[gardencorev1beta1.AnnotationDrainReason]}
	return d, gardencorev1beta1.Draining(ms.Annotations), nil
}

// unplaceable tries every shoot of a consolidation on the other seeds at once
// (placement.Placer's Trial: each takes its place before the next is decided, and every
// place is given back), and returns those that find none, with the scheduler's reasons. A
// consolidation starts only when all its shoots fit, so that it never moves some and gets
// stuck on the rest.
func (r *Reconciler) unplaceable(ctx context.Context, drained *gardencorev1beta1.Seed, movable []*gardencorev1beta1.Shoot) map[string]string {
	out := map[string]string{}
	wholes := make([]*gardencorev1beta1.Shoot, 0, len(movable))
	for _, shoot := range movable {
		whole, err := r.whole(ctx, shoot)
		if err != nil {
			out[usage.Key(shoot)] = err.Error()
			continue
		}
		wholes = append(wholes, whole)
	}
	for i, d := range r.Placer.Trial(ctx, wholes, migrationFrom(drained)) {
		switch key := usage.Key(wholes[i]); {
		case d.Unjudged != nil:
			out[key] = d.Why()
		case d.Seed() == "":
			out[key] = "no other seed takes it: " + d.Why()
		}
	}
	return out
}

// migrationFrom places a shoot leaving a drained seed: never on that seed (its cordon
// reaches the scheduler's seeds through their own informer handlers, which may not have run
// yet when the drain is woken), only where gardener-apiserver lets the control plane move
// from it (the Migration filter), and near enough (MigrationDistance).
func migrationFrom(drained *gardencorev1beta1.Seed) placement.Options {
	return placement.Options{MigratingFrom: drained, LimitMigrationDistance: true}
}

// whole reads a shoot the cache holds slim whole and live from the API server: a drain
// decides where the shoot goes with the scheduler's filters, which read its spec.
func (r *Reconciler) whole(ctx context.Context, slim *gardencorev1beta1.Shoot) (*gardencorev1beta1.Shoot, error) {
	shoot := &gardencorev1beta1.Shoot{}
	if err := r.Reader.Get(ctx, client.ObjectKeyFromObject(slim), shoot); err != nil {
		return nil, fmt.Errorf("reading shoot %s: %w", usage.Key(slim), err)
	}
	return shoot, nil
}

// startedNotSeen returns the migrations this drain started that the cache does not show
// yet, by shoot key, and forgets those it shows (the index counts them from then on).
func (r *Reconciler) startedNotSeen(ctx context.Context) (map[string]startedMigration, error) {
	r.mu.Lock()
	started := maps.Clone(r.started)
	r.mu.Unlock()
	for key, m := range started {
		namespace, name, _ := strings.Cut(key, "/")
		shoot := &gardencorev1beta1.Shoot{}
		err := r.Client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, shoot)
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("reading shoot %s from the cache: %w", key, err)
		}
		if err == nil && ptr.Deref(shoot.Spec.SeedName, "") == m.from {
			continue
		}
		delete(started, key)
		r.mu.Lock()
		delete(r.started, key)
		r.mu.Unlock()
	}
	return started, nil
}

// migrationsOutOfSet counts the migrations in flight out of every seed of the seed's
// ManagedSeedSet (for a seed of no set, out of the seed alone), in all and per seed: those
// the cache shows, and those started but not shown yet.
func (r *Reconciler) migrationsOutOfSet(ctx context.Context, set setOfSeed, started map[string]startedMigration) (int, map[string]int, error) {
	inFlight := map[string]bool{}
	perSeed := map[string]int{}
	for _, m := range set.members {
		out := map[string]bool{}
		leaving, err := r.byMigratingFrom.List(m.Name)
		if err != nil {
			return 0, nil, err
		}
		for _, shoot := range leaving {
			out[usage.Key(shoot)] = true
		}
		for key, s := range started {
			if s.from == m.Name {
				out[key] = true
			}
		}
		perSeed[m.Name] = len(out)
		maps.Copy(inFlight, out)
	}
	return len(inFlight), perSeed, nil
}

// setOfSeed is a drained seed's ManagedSeedSet as the drain sees it.
type setOfSeed struct {
	// key names the set; inSet is false for a seed of no set.
	key   types.NamespacedName
	inSet bool
	// members are the seed and the scheduler's other seeds of its set: the seed alone when
	// it belongs to no set.
	members []*gardencorev1beta1.Seed
	// managedSeeds register the members, by name.
	managedSeeds map[string]*seedmanagementv1alpha1.ManagedSeed
}

// seedsOfSet finds the seed's ManagedSeedSet (membership.SetOfSeed: a seed is in the set of
// its ManagedSeed) and the scheduler's seeds of it. ManagedSeeds are one a seed: one list of
// them from the cache.
func (r *Reconciler) seedsOfSet(ctx context.Context, seed *gardencorev1beta1.Seed) (setOfSeed, error) {
	list := &seedmanagementv1alpha1.ManagedSeedList{}
	if err := r.Client.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		return setOfSeed{}, fmt.Errorf("listing the ManagedSeeds from the cache: %w", err)
	}
	managedSeeds := make(map[types.NamespacedName]*seedmanagementv1alpha1.ManagedSeed, len(list.Items))
	for i := range list.Items {
		managedSeeds[client.ObjectKeyFromObject(&list.Items[i])] = &list.Items[i]
	}
	setOf := func(s *gardencorev1beta1.Seed) (types.NamespacedName, *seedmanagementv1alpha1.ManagedSeed, bool) {
		ms, found := managedSeeds[membership.ManagedSeedOf(s)]
		if !found {
			// No typed nil in the interface SetOfSeed takes.
			set, ok := membership.SetOfSeed(s, nil)
			return set, nil, ok
		}
		set, ok := membership.SetOfSeed(s, ms)
		return set, ms, ok
	}
	key, ms, ok := setOf(seed)
	out := setOfSeed{key: key, inSet: ok, members: []*gardencorev1beta1.Seed{seed}, managedSeeds: map[string]*seedmanagementv1alpha1.ManagedSeed{}}
	if ms != nil {
		out.managedSeeds[seed.Name] = ms
	}
	if !ok {
		return out, nil
	}
	for _, s := range r.Scheduler.Seeds() {
		if other, ms, ok := setOf(s.Seed); ok && other == key && s.Name != seed.Name {
			out.members = append(out.members, s.Seed)
			if ms != nil {
				out.managedSeeds[s.Name] = ms
			}
		}
	}
	return out, nil
}

// migrate places a shoot of the drained seed as the scheduler places shoots (filters,
// strategy, scores, capacity; never the drained seed, and only where its control plane may
// move: migrationFrom), which reserves the new seed and changes spec.seedName, read whole
// and live so that the bind writes nothing else. A shoot no seed takes is recorded as
// blocked with the scheduler's reasons.
func (r *Reconciler) migrate(ctx context.Context, seed *gardencorev1beta1.Seed, holder string, shoot *gardencorev1beta1.Shoot, progress *Progress) (bool, error) {
	key := usage.Key(shoot)
	shoot, err := r.whole(ctx, shoot)
	if apierrors.IsNotFound(err) {
		return false, nil // gone; its event brings the drain back
	}
	if err != nil {
		return false, err
	}
	if v := Classify(shoot, seed.Name, r.Config.SchedulerName, r.lastFailure(key), r.cooldown(), r.Clock.Now()); v.Class != Movable {
		return false, nil // changed since the cache showed it; its event brings the drain back
	}
	d, err := r.Placer.Place(ctx, shoot, migrationFrom(seed))
	target := d.Seed()
	switch {
	case d.Pending != "":
		// Placed a moment ago; its event brings the drain back.
		return false, nil
	case err != nil:
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			// The shoot changed meanwhile; its event brings the drain back.
			return false, nil
		}
		return false, fmt.Errorf("migrating shoot %s from seed %s to seed %s: %w", key, seed.Name, target, err)
	case d.Unjudged != nil:
		progress.Blocked[key] = d.Why()
		return false, nil
	case target == "":
		progress.Blocked[key] = "no other seed takes it: " + d.Why()
		return false, nil
	}
	progress.Started[key] = target
	r.Scheduler.CountMigration(controller.MigrationStarted)
	stamp := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, gardencorev1beta1.AnnotationMigratedAt, r.Clock.Now().UTC().Format(time.RFC3339))
	if err := r.Client.Patch(ctx, shoot, client.RawPatch(types.MergePatchType, []byte(stamp))); client.IgnoreNotFound(err) != nil {
		// The migration runs; only a later consolidation's cool-down misses the stamp.
		logr.FromContextOrDiscard(ctx).Error(err, "Stamping the migration on the shoot failed", "shoot", klog.KObj(shoot))
	}
	r.mu.Lock()
	r.started[key] = startedMigration{from: seed.Name, to: target}
	r.mu.Unlock()
	logr.FromContextOrDiscard(ctx).Info("Migrating a shoot off a drained seed", "shoot", klog.KObj(shoot), "from", klog.KObj(seed), "to", klog.KRef("", target))
	controllerutils.Event(r.Recorder, shoot, nil, EventMigrationStarted, "Migrate",
		"Migrating the control plane from seed %s to seed %s: %s is annotated %s=true", seed.Name, target, holder, gardencorev1beta1.AnnotationDrain)
	return true, nil
}

// report writes the Drained condition (guarded by the Seed's resourceVersion, since the
// seed controller writes the same list of conditions) and an event when its reason changes.
func (r *Reconciler) report(ctx context.Context, seed *gardencorev1beta1.Seed, p Progress) error {
	o := p.Outcome()
	o.Message = controllerutils.Truncate(o.Message, 32768)
	changed := controllerutils.ConditionChanged(seed.Status.Conditions, gardencorev1beta1.SeedDrained, o)
	if !controllerutils.SetCondition(&seed.DeepCopy().Status.Conditions, gardencorev1beta1.SeedDrained, o, seed.Generation, r.Clock.Now()) {
		return nil
	}
	// The gardenlet (or the seed controller) writes the Seed's other conditions: only ours
	// changes, the rest stays as written, lastUpdateTime and codes included.
	if _, err := controllerutils.PatchCondition(ctx, r.Client, seed, gardencorev1beta1.SeedDrained, &o, seed.Generation, r.Clock.Now()); err != nil {
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return nil // the Seed's event brings the drain back
		}
		return err
	}
	if changed {
		reason := map[controllerutils.Reason]controllerutils.EventReason{
			ReasonDraining: EventDraining, ReasonDrainStuck: EventDrainStuck, ReasonDrainComplete: EventDrainComplete, ReasonDrainWaiting: EventDrainWaiting,
		}[o.Reason]
		controllerutils.Event(r.Recorder, seed, nil, reason, "Drain", "%s", controllerutils.Truncate(o.Message, 1024))
	}
	return nil
}

// clearCondition removes the Drained condition of a seed that is no longer drained.
func (r *Reconciler) clearCondition(ctx context.Context, seed *gardencorev1beta1.Seed) error {
	if meta.FindStatusCondition(seed.Status.Conditions, gardencorev1beta1.SeedDrained) == nil {
		return nil
	}
	if _, err := controllerutils.PatchCondition(ctx, r.Client, seed, gardencorev1beta1.SeedDrained, nil, seed.Generation, r.Clock.Now()); err != nil &&
		!apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

func (r *Reconciler) budget() Budget {
	d := r.Config.Drain
	return Budget{PerSeed: int(d.MaxMigrationsPerSeed), PerSet: int(d.MaxMigrationsPerSet)}
}

func (r *Reconciler) cooldown() time.Duration {
	return time.Duration(r.Config.Drain.FailedMigrationCooldownSeconds) * time.Second
}

func (r *Reconciler) lastFailure(key string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failedAt[key]
}

func (r *Reconciler) recordFailure(key string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failedAt[key] = at
}

func (r *Reconciler) setDraining(seed string, draining bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if draining {
		r.draining[seed] = true
	} else {
		delete(r.draining, seed)
	}
}

func (r *Reconciler) isDraining(seed string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.draining[seed]
}
