package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/seedscaler/seedscaler/dev/benchmark/autoscaling"
)

func benchAutoscalingCommand() *cobra.Command {
	var (
		tracePath, reportDir, week string
		seed                       uint64
		workers                    int
		headrooms                  []int
		arms                       []string
	)
	cfg := autoscaling.DefaultConfig(autoscaling.Trace{})
	deletion := string(cfg.Deletion)
	cmd := &cobra.Command{
		Use:   "bench-autoscaling",
		Short: "Measure the autoscaler's policies on a week of demand, in simulated time",
		Long: `bench-autoscaling replays a demand trace through the SeedAutoscaler's decision code and a
first-fit model of the scheduler on one simulated clock, for each policy (reactive, event,
trend, seasonal, ahead) at target utilizations 50% to 95%, and the reactive policy with
each --headroom, and writes report/<timestamp>/: autoscaling.csv, headroom-<shoots>.csv,
summary.md, frontier.png and timeline.png.
docs/autoscaler.md ("Scale ahead") describes the model.`,
		Example: `  seedscaler-dev bench-autoscaling
  seedscaler-dev bench-autoscaling --trace demand.csv --provisioning 20m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg.Trace = autoscaling.BuiltinTrace(seed)
			if tracePath != "" {
				f, err := os.Open(tracePath)
				if err != nil {
					return fmt.Errorf("--trace: %w", err)
				}
				cfg.Trace, err = autoscaling.ReadTrace(f)
				_ = f.Close() // read only: nothing is lost
				if err != nil {
					return fmt.Errorf("--trace %s: %w", tracePath, err)
				}
			}
			cfg.Deletion, cfg.Seed = autoscaling.Deletion(deletion), seed
			if err := cfg.Validate(); err != nil {
				return err
			}
			if reportDir == "" {
				reportDir = filepath.Join("report", time.Now().Format("20060102-150405"))
			}
			start := time.Now()
			switch week {
			case "working-day":
			case "holiday-launch":
				if tracePath != "" {
					return fmt.Errorf("--week holiday-launch is a built-in trace; leave out --trace %s", tracePath)
				}
				cfg.Trace = autoscaling.HolidayLaunchTrace(seed)
			case "long-lived":
				ll := autoscaling.LongLivedConfig()
				ll.Provisioning, ll.AllocatablePerSeed, ll.SyncPeriod, ll.ScrapeInterval, ll.CacheTTL, ll.Seed =
					cfg.Provisioning, cfg.AllocatablePerSeed, cfg.SyncPeriod, cfg.ScrapeInterval, cfg.CacheTTL, seed
				summary, err := autoscaling.WriteLongLivedReport(reportDir, ll, arms, workers)
				if err != nil {
					return err
				}
				_, _ = fmt.Fprintf(cmd.OutOrStdout(), "%s\nin %s; report in %s\n", summary, time.Since(start).Round(time.Second), reportDir)
				return nil
			default:
				return fmt.Errorf("--week %q is unknown; choose working-day, holiday-launch or long-lived", week)
			}
			results, err := autoscaling.RunAll(cfg, autoscaling.Policies, autoscaling.Targets(), workers)
			if err != nil {
				return err
			}
			headroom, err := autoscaling.RunHeadroom(cfg, headrooms, workers)
			if err != nil {
				return err
			}
			summary, err := autoscaling.WriteReport(reportDir, cfg, results, headroom)
			if err != nil {
				return err
			}
			runs := len(results) + len(headroom)*len(autoscaling.Targets())
			_, _ = fmt.Fprintf(cmd.OutOrStdout(), "%s\n%d runs in %s; report in %s\n", summary, runs, time.Since(start).Round(time.Second), reportDir)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&week, "week", "working-day", "The built-in week: working-day (the trace, every policy), holiday-launch (the working days with Tuesday a holiday and a launch on Thursday that adds 200 shoots for good, every policy) or long-lived (shoots that live for days, with and without consolidation, by fewest shoots or migration cost, with and without a budget over working hours or from 08:00 to midnight).")
	f.StringVar(&tracePath, "trace", "", "CSV with columns minute,shoots to replay instead of the built-in week.")
	f.StringVar(&reportDir, "report", "", "Report folder; report/<timestamp> when empty.")
	f.Uint64Var(&seed, "seed", 1, "Seed of the built-in trace's noise and of random deletions.")
	f.IntVar(&workers, "workers", 2, "Runs at once.")
	f.StringSliceVar(&arms, "arms", nil, "With --week long-lived, only these arms, named as their CSV files (e.g. spread-consolidation-cost,spread-consolidation-cost-budget-08-24); every arm when empty.")
	f.IntSliceVar(&headrooms, "headroom", autoscaling.Headrooms, "Headrooms (spec.headroom.shoots) the reactive policy runs with on the working-day week, beside none; empty for none.")
	f.DurationVar(&cfg.Provisioning, "provisioning", cfg.Provisioning, "How long a new seed takes to accept shoots.")
	f.IntVar(&cfg.AllocatablePerSeed, "allocatable", cfg.AllocatablePerSeed, "Shoots a seed takes.")
	f.DurationVar(&cfg.Lead, "lead", cfg.Lead, "How far ahead the forecasts look.")
	f.DurationVar(&cfg.TrendWindow, "trend-window", cfg.TrendWindow, "The trend's window (spec.scaleAhead.trend.windowSeconds).")
	f.DurationVar(&cfg.SyncPeriod, "sync-period", cfg.SyncPeriod, "The autoscaler's sync period.")
	f.DurationVar(&cfg.ScrapeInterval, "scrape-interval", cfg.ScrapeInterval, "Prometheus' scrape interval.")
	f.DurationVar(&cfg.CacheTTL, "cache-ttl", cfg.CacheTTL, "The adapter's value cache.")
	f.StringVar(&deletion, "deletion", deletion, "Which running shoot goes when the demand falls: newest or random.")
	return cmd
}
