// Package simulator plays what a landscape has besides seedscaler: the infrastructure that
// creates and deletes shoots, the gardenlets that heartbeat for their seeds, and tenants whose
// demand for shoots follows a profile. It acts only through the Kubernetes API, like
// everyone else, and writes only the fields it owns.
package simulator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

const (
	// FieldOwner is the field manager of every write of the simulator.
	FieldOwner = "seedscaler-simulator"
	// Finalizer keeps a deleted shoot until the simulated infrastructure is gone.
	Finalizer = "simulator.seedscaler.io/infrastructure"
	// LabelTenant marks the shoots the simulated tenants created (and may delete).
	LabelTenant = "simulator.seedscaler.io/tenant"
	// AnnotationExpiresAt on a tenant shoot is when (RFC 3339, the simulator's clock) its
	// tenant deletes it.
	AnnotationExpiresAt = "simulator.seedscaler.io/expires-at"
	// AnnotationFaults on a Seed injects faults by hand while it is set: a comma-separated
	// list of heartbeat and backup.
	AnnotationFaults = "simulator.seedscaler.io/faults"
	// LeaseNamespace holds the seeds' heartbeat Leases, one per seed, named like it.
	LeaseNamespace = gardencorev1beta1.SeedLeaseNamespace
	// ProjectNamespacePrefix prefixes a project's name to make its namespace.
	ProjectNamespacePrefix = "garden-"
)

// Simulator plays gardenlets, infrastructure and tenants. Drive it with Run, or step by step
// with Step (tests do, with a fake clock).
type Simulator struct {
	cfg    *Configuration
	client client.Client
	clock  clock.WithTicker
	rand   *rand.Rand

	// Progress receives a progress line per progress interval; nil prints none.
	Progress io.Writer
	// Garden plays the gardenlets on Gardener's own API, for a garden whose
	// gardener-apiserver serves Seeds, Shoots and ManagedSeeds, where no seed controller of
	// seedscaler runs: the gardenlets register the Seeds of ManagedSeeds and report the
	// seeds' and ManagedSeeds' status, shoots carry Gardener's finalizer and health label,
	// and tenants confirm a deletion before they delete. Run sets it when an aggregated
	// API server serves the Seed kind.
	Garden bool

	// State below is touched only by Step, which runs in one goroutine at a time.
	start         time.Time
	started       bool
	nextSample    time.Duration
	operationDue  map[types.UID]time.Time // when the operation in flight of a shoot ends
	deletionDue   map[types.UID]time.Time // when a deleted shoot's infrastructure is gone
	lastHeartbeat map[string]time.Time    // per seed
	namespaces    map[string]bool         // known to exist
	// Tenant shoots created or deleted that the reads may not show yet (a cache lags the
	// writes), so a tenant neither creates them again nor deletes others in their place.
	expectCreated map[string]expectedShoot // by namespace/name
	expectDeleted map[types.UID]time.Time  // when the delete was sent

	// stateMu guards the maps above, rand, and start and started while a step writes with
	// several writers and the gardenlets run apart.
	stateMu sync.Mutex
	// gardenletsApart: Run plays the gardenlets on their own ticker, not in Step.
	gardenletsApart bool

	mu       sync.Mutex
	timeline []Sample
}

// New returns a simulator for a defaulted and validated configuration. All time comes from
// clk; every random draw from rnd, or, when it is nil, from a source seeded with
// cfg.RandomSeed. Writes go through c with FieldOwner as field manager. Reads may come from
// a cache: the simulator expects its own writes to show up late.
func New(cfg *Configuration, c client.Client, clk clock.WithTicker, rnd *rand.Rand) *Simulator {
	if rnd == nil {
		seed := uint64(1)
		if cfg.RandomSeed != nil {
			seed = *cfg.RandomSeed
		}
		rnd = rand.New(rand.NewPCG(seed, seed))
	}
	return &Simulator{
		cfg:           cfg,
		client:        client.WithFieldOwner(c, FieldOwner),
		clock:         clk,
		rand:          rnd,
		operationDue:  map[types.UID]time.Time{},
		deletionDue:   map[types.UID]time.Time{},
		lastHeartbeat: map[string]time.Time{},
		namespaces:    map[string]bool{},
		expectCreated: map[string]expectedShoot{},
		expectDeleted: map[types.UID]time.Time{},
	}
}

// Run steps the simulation every tick until the configured duration of simulated time has
// passed (or forever when it is 0) or ctx ends. A failed step is logged and the next one
// tries again, as a controller would.
func (s *Simulator) Run(ctx context.Context) error {
	logger := log.FromContext(ctx).WithName("simulator")
	ctx = log.IntoContext(ctx, logger)
	ticker := s.clock.NewTicker(s.cfg.Tick.Duration)
	defer ticker.Stop()
	logger.Info("Starting the simulation", "speed", s.cfg.Speed, "duration", s.cfg.Duration.Duration, "profile", s.cfg.Demand.Profile)
	if s.cfg.Writers > 1 {
		// Gardenlets are processes of their own: their heartbeats must not wait for a step
		// that creates thousands of shoots, or a busy landscape's seeds go NotReady.
		s.gardenletsApart = true
		gardenletsDone := make(chan struct{})
		gardenletsCtx, stopGardenlets := context.WithCancel(ctx)
		go func() {
			defer close(gardenletsDone)
			s.runGardenlets(gardenletsCtx)
		}()
		defer func() { stopGardenlets(); <-gardenletsDone }()
	}
	for {
		if err := s.Step(ctx); err != nil {
			if ctx.Err() != nil {
				s.finalSample(context.WithoutCancel(ctx))
				return nil
			}
			logger.Error(err, "Simulation step failed; trying again next tick")
		}
		if d := s.cfg.Duration.Duration; d > 0 && s.Elapsed() >= d {
			s.finalSample(ctx)
			logger.Info("Simulation finished", "simulatedTime", s.Elapsed())
			return nil
		}
		select {
		case <-ctx.Done():
			s.finalSample(context.WithoutCancel(ctx))
			return nil
		case <-ticker.C():
		}
	}
}

// finalSample records the landscape at the end of a run, so the timeline ends where the run
// did, unless the last step just took a sample.
func (s *Simulator) finalSample(ctx context.Context) {
	if !s.started {
		return
	}
	elapsed := s.Elapsed()
	if tl := s.Timeline(); len(tl) > 0 && tl[len(tl)-1].Elapsed >= elapsed {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	smp, err := s.Sample(ctx)
	if err != nil {
		log.FromContext(ctx).Error(err, "Taking the final sample")
		return
	}
	s.record(smp)
}

// Sample counts the landscape now, without changing anything.
func (s *Simulator) Sample(ctx context.Context) (Sample, error) {
	// At a hundred thousand shoots, a copy of each every tick was most of a step's work:
	// the step only reads what it lists, and copies a shoot before it changes one.
	shoots := &gardencorev1beta1.ShootList{}
	if err := s.client.List(ctx, shoots, client.UnsafeDisableDeepCopy); err != nil {
		return Sample{}, fmt.Errorf("listing shoots: %w", err)
	}
	seeds := &gardencorev1beta1.SeedList{}
	if err := s.client.List(ctx, seeds); err != nil {
		return Sample{}, fmt.Errorf("listing seeds: %w", err)
	}
	elapsed := s.Elapsed()
	return TakeSample(elapsed, Desired(&s.cfg.Demand, elapsed), shoots.Items, seeds.Items), nil
}

// Elapsed is the simulated time since the first step.
func (s *Simulator) Elapsed() time.Duration {
	if !s.started {
		return 0
	}
	return s.simulated(s.clock.Since(s.start))
}

// simulated turns wall-clock time into simulated time.
func (s *Simulator) simulated(d time.Duration) time.Duration {
	return time.Duration(float64(d) * s.cfg.Speed)
}

// real turns simulated time into wall-clock time.
func (s *Simulator) real(d time.Duration) time.Duration {
	return time.Duration(float64(d) / s.cfg.Speed)
}

// Step does one round of everything: shoot lifecycles, gardenlets, tenants, and a timeline
// sample when one is due.
func (s *Simulator) Step(ctx context.Context) error {
	// At a hundred thousand shoots, a copy of each every tick was most of a step's work:
	// the step only reads what it lists, and copies a shoot before it changes one.
	shoots := &gardencorev1beta1.ShootList{}
	if err := s.client.List(ctx, shoots, client.UnsafeDisableDeepCopy); err != nil {
		return fmt.Errorf("listing shoots: %w", err)
	}
	seeds := &gardencorev1beta1.SeedList{}
	if err := s.client.List(ctx, seeds); err != nil {
		return fmt.Errorf("listing seeds: %w", err)
	}
	managedSeeds := &seedmanagementv1alpha1.ManagedSeedList{}
	if err := s.client.List(ctx, managedSeeds); err != nil {
		return fmt.Errorf("listing managed seeds: %w", err)
	}

	// The time is taken after listing: the first lists of a client discover the API first,
	// which takes a moment that must not count as simulated time.
	now := s.clock.Now()
	s.stateMu.Lock()
	if !s.started {
		s.start, s.started = now, true
	}
	s.stateMu.Unlock()
	elapsed := s.simulated(now.Sub(s.start))
	desired := Desired(&s.cfg.Demand, elapsed)
	if elapsed >= s.nextSample {
		s.record(TakeSample(elapsed, desired, shoots.Items, seeds.Items))
		for s.nextSample <= elapsed {
			s.nextSample += s.cfg.ProgressInterval.Duration
		}
	}

	var errs []error
	errs = append(errs, s.reconcileShoots(ctx, shoots.Items, now)...)
	if !s.gardenletsApart {
		errs = append(errs, s.reconcileGardenlets(ctx, seeds.Items, managedSeeds.Items, listedShoots(managedSeeds.Items, shoots.Items), now, elapsed)...)
	}
	errs = append(errs, s.reconcileTenants(ctx, shoots.Items, desired, now)...)
	return errors.Join(errs...)
}

func (s *Simulator) ensureNamespace(ctx context.Context, name string) error {
	s.stateMu.Lock()
	known := s.namespaces[name]
	s.stateMu.Unlock()
	if known {
		return nil
	}
	if err := createNamespace(ctx, s.client, name); err != nil {
		return err
	}
	s.stateMu.Lock()
	s.namespaces[name] = true
	s.stateMu.Unlock()
	return nil
}
