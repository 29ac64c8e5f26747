// Command schedulerdiff runs a landscape under gardener-scheduler and under seedscaler's
// scheduler, each in a fresh real garden, writes report/<timestamp>/scheduler-diff.csv
// (shoot,gardener,seedscaler: the seed each bound the shoot to, empty when unschedulable) and
// prints the share of shoots on which both agree as its last line. `make scheduler-diff` runs
// it.
//
//	go run ./hack/schedulerdiff --landscape FILE [--strategy SameRegion|MinimalDistance] [--report DIR]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/seedscaler/seedscaler/test/framework/schedulerdiff"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

func main() {
	landscape := flag.String("landscape", "", "multi-document YAML of the garden's objects and its unbound Shoots")
	strategy := flag.String("strategy", "SameRegion", "candidate determination strategy of both schedulers: SameRegion or MinimalDistance")
	report := flag.String("report", "report", "folder under which report/<timestamp>/ is written")
	timeout := flag.Duration("shoot-timeout", time.Minute, "how long one shoot may take to be bound or reported unschedulable")
	flag.Parse()
	ctrl.SetLogger(logr.Discard()) // the report is the output; Gardener's and the parts' logs go to files
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *landscape, *strategy, *report, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "schedulerdiff:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, landscapePath, strategy, reportRoot string, timeout time.Duration) error {
	if landscapePath == "" {
		return fmt.Errorf("--landscape is required: a multi-document YAML such as examples/gardener/scheduler-diff.yaml")
	}
	if strategy != "SameRegion" && strategy != "MinimalDistance" {
		return fmt.Errorf("--strategy %q: use SameRegion or MinimalDistance", strategy)
	}
	landscape, err := os.ReadFile(landscapePath)
	if err != nil {
		return err
	}
	dir := filepath.Join(reportRoot, time.Now().Format("20060102-150405"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	bin, err := testenv.BuildSeedscaler(dir, testenv.Shipped)
	if err != nil {
		return err
	}
	res, err := schedulerdiff.Run(ctx, schedulerdiff.Options{
		Landscape: landscape, Strategy: strategy, SeedscalerBinary: bin,
		ShootTimeout: timeout, LogDir: filepath.Join(dir, "logs"), Progress: os.Stdout,
	})
	if err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "scheduler-diff.csv"))
	if err != nil {
		return err
	}
	if err := res.WriteCSV(f); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	for _, p := range res.Placements {
		if !p.Agree() {
			fmt.Printf("differ: %s gardener=%q seedscaler=%q\n", p.Shoot, p.Gardener, p.Seedscaler)
		}
	}
	fmt.Printf("ties: %d (different seeds equally near the shoot with as many shoots: gardener-scheduler's pick among them is in no fixed order)\n", res.Ties())
	fmt.Printf("report: %s\n", filepath.Join(dir, "scheduler-diff.csv"))
	fmt.Printf("agreement: %.1f%% (%d of %d shoots, %s)\n", 100*res.Agreement(), res.Agreed(), len(res.Placements), strategy)
	return nil
}
