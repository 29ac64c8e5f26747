//go:build dev

package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/simulator"
)

func simulateCommand() *cobra.Command {
	var (
		opts       app.Options
		configPath string
		speed      float64
		duration   time.Duration
		seed       uint64
		timeline   string
	)
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Play gardenlets, infrastructure and tenant demand against a garden cluster",
		Long: `Plays what a landscape has besides seedscaler, through the Kubernetes API of a garden cluster:
bound shoots are created (and deleted) after simulated delays, some fail; gardenlets renew the
heartbeat Leases of registered seeds; tenants create and delete shoots following a demand profile
(constant, ramp, step, sine or a replayed CSV). docs/simulator.md describes the configuration file.

Every duration in the file is simulated time: --speed compresses it (240 plays a day in 6
minutes), and --duration is simulated time too (24h at --speed 240 runs 6 wall-clock minutes).

Output: a progress line per progress interval (simulated time, tenant shoots wanted, shoots bound
and pending, seeds ready, utilization of the ready seeds' allocatable shoots), then the timeline
of those samples as CSV (--timeline).`,
		Example: `  seedscaler simulate --kubeconfig garden.kubeconfig --config examples/config/simulator.yaml
  seedscaler simulate --config examples/config/demo-day.yaml --speed 240 --duration 24h --timeline day.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg := &simulator.Configuration{}
			if configPath != "" {
				var err error
				if cfg, err = simulator.LoadConfiguration(configPath); err != nil {
					return err
				}
			} else {
				cfg.Demand.Constant = &simulator.ConstantProfile{}
				simulator.SetDefaults(cfg)
			}
			flags := cmd.Flags()
			if flags.Changed("speed") {
				cfg.Speed = speed
			}
			if flags.Changed("duration") {
				cfg.Duration.Duration = duration
			}
			if flags.Changed("seed") {
				cfg.RandomSeed = &seed
			}
			if err := simulator.Validate(cfg); err != nil {
				return fmt.Errorf("simulator configuration: %w", err)
			}
			return runSimulate(cmd.Context(), &opts, cfg, timeline)
		},
	}
	fs := cmd.Flags()
	opts.AddFlags(fs, 8088, 8089)
	fs.StringVar(&configPath, "config", "", "SimulatorConfiguration file (examples/config/simulator.yaml). Empty: the defaults, no tenant demand (shoots and gardenlets are still played).")
	fs.Float64Var(&speed, "speed", 0, "Simulated seconds per wall-clock second; overrides the file's speed (default: the file's, else 1).")
	fs.DurationVar(&duration, "duration", 0, "Simulated time to run, 0 until stopped; overrides the file's duration.")
	fs.Uint64Var(&seed, "seed", 0, "Seed of every random draw; overrides the file's randomSeed (default: the file's, else 1).")
	fs.StringVar(&timeline, "timeline", "-", "Where the timeline CSV goes at the end: a file, - for standard output after the progress lines, empty for nowhere.")
	return cmd
}

func runSimulate(ctx context.Context, opts *app.Options, cfg *simulator.Configuration, timelinePath string) error {
	restCfg, err := opts.RESTConfig()
	if err != nil {
		return err
	}
	mgr, err := opts.NewManager("simulator", restCfg, func(o *manager.Options) {
		// Only the heartbeat Leases, not every Lease of the cluster.
		o.Cache.ByObject = map[client.Object]cache.ByObject{
			&coordinationv1.Lease{}: {Namespaces: map[string]cache.Config{simulator.LeaseNamespace: {}}},
		}
	})
	if err != nil {
		return err
	}
	// Reads come from the manager's cache (informers on shoots, seeds, managed seeds and
	// leases), so a step costs the apiserver only the writes; the simulator expects its own
	// writes to show up late. Writes go to the apiserver.
	sim := simulator.New(cfg, mgr.GetClient(), clock.RealClock{}, nil)
	sim.Progress = os.Stdout

	// The manager (and its caches) outlives ctx until the run has taken its final sample.
	mgrCtx, stopMgr := context.WithCancel(context.WithoutCancel(ctx))
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Start(mgrCtx) }()

	var runErr error
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		if ctx.Err() == nil {
			runErr = fmt.Errorf("the simulator's cache did not start")
		}
	} else {
		runErr = sim.Run(log.IntoContext(ctx, mgr.GetLogger()))
	}
	stopMgr()
	if err := <-mgrDone; err != nil && runErr == nil {
		runErr = fmt.Errorf("serving metrics and health probes: %w", err)
	}
	if timelinePath != "" {
		if err := writeTimeline(timelinePath, sim.Timeline()); err != nil && runErr == nil {
			runErr = err
		}
	}
	return runErr
}

func writeTimeline(path string, samples []simulator.Sample) error {
	if path == "-" {
		fmt.Println()
		return simulator.WriteTimelineCSV(os.Stdout, samples)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing the timeline: %w", err)
	}
	if err := simulator.WriteTimelineCSV(f, samples); err != nil {
		f.Close()
		return fmt.Errorf("writing the timeline %s: %w", path, err)
	}
	return f.Close()
}
