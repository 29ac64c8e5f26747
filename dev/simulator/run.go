package simulator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/test/framework/aggregation"
)

// Run plays the landscape against the garden cluster until the configuration's duration
// has passed or ctx ends, printing a progress line per progress interval, then writes the
// timeline.
func Run(ctx context.Context, o *Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	cfg, err := o.Configuration()
	if err != nil {
		return err
	}
	out := o.Out
	if out == nil {
		out = os.Stdout
	}
	restCfg, err := o.RESTConfig()
	if err != nil {
		return err
	}
	mgr, err := o.NewManager("simulator", restCfg, func(mo *manager.Options) {
		// Only the heartbeat Leases, not every Lease of the cluster.
		mo.Cache.ByObject = map[client.Object]cache.ByObject{
			&coordinationv1.Lease{}: {Namespaces: map[string]cache.Config{LeaseNamespace: {}}},
		}
	})
	if err != nil {
		return err
	}
	// Reads come from the manager's cache (informers on shoots, seeds, managed seeds and
	// leases), so a step costs the apiserver only the writes; the simulator expects its own
	// writes to show up late. Writes go to the apiserver.
	sim := New(cfg, mgr.GetClient(), clock.RealClock{}, nil)
	sim.Progress = out
	// In a Gardener garden gardener-apiserver serves the Seed kind through the aggregation
	// layer, and no seed controller of seedscaler runs: the gardenlets play there on
	// Gardener's own API.
	if sim.Garden, err = aggregation.ServedByAPIServer(ctx, mgr.GetAPIReader(), gardencorev1beta1.GroupVersion); err != nil {
		return fmt.Errorf("finding out whether gardener-apiserver serves %s: %w", gardencorev1beta1.GroupVersion, err)
	}
	if sim.Garden {
		mgr.GetLogger().Info("Playing the gardenlets on Gardener's API: gardener-apiserver serves the Seed kind", "groupVersion", gardencorev1beta1.GroupVersion.String())
	}

	// The manager (and its caches) outlives ctx until the run has taken its final sample.
	mgrCtx, stopMgr := context.WithCancel(context.WithoutCancel(ctx))
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Start(mgrCtx) }()

	var runErr error
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		if ctx.Err() == nil {
			runErr = errors.New("the simulator's cache did not start")
		}
	} else {
		runErr = sim.Run(log.IntoContext(ctx, mgr.GetLogger()))
	}
	stopMgr()
	if err := <-mgrDone; err != nil && runErr == nil {
		runErr = fmt.Errorf("serving metrics and health probes: %w", err)
	}
	if o.Timeline != "" {
		if err := writeTimeline(o.Timeline, out, sim.Timeline()); err != nil && runErr == nil {
			runErr = err
		}
	}
	return runErr
}

// writeTimeline writes the samples as CSV to the file path, or after an empty line to out
// when path is -.
func writeTimeline(path string, out io.Writer, samples []Sample) error {
	if path == "-" {
		_, _ = fmt.Fprintln(out)
		return WriteTimelineCSV(out, samples)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing the timeline: %w", err)
	}
	if err := WriteTimelineCSV(f, samples); err != nil {
		_ = f.Close() // the write failed already: that is the error to report
		return fmt.Errorf("writing the timeline %s: %w", path, err)
	}
	return f.Close()
}
