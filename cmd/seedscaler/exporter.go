package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/seedscaler/seedscaler/exporter"
	"github.com/seedscaler/seedscaler/internal/app"
)

func exporterCommand() *cobra.Command {
	o := &app.Options{}
	seedAutoscalers := true
	cmd := &cobra.Command{
		Use:   "exporter",
		Short: "Export seeds, shoots, ManagedSeedSets and SeedAutoscalers as Prometheus metrics",
		Long: `exporter serves the garden_* metrics of docs/metrics.md on /metrics of --metrics-bind-address,
from informer caches: a scrape makes no API call. Replicas are stateless and each serves the
same series, so --leader-elect is accepted for uniformity with the other parts but ignored.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runExporter(cmd.Context(), o, seedAutoscalers)
		},
	}
	o.AddFlags(cmd.Flags(), 8086, 8087)
	cmd.Flags().BoolVar(&seedAutoscalers, "seedautoscalers", seedAutoscalers,
		"watch SeedAutoscalers and export their series; false where the cluster serves no SeedAutoscaler kind (beside Gardener)")
	return cmd
}

func runExporter(ctx context.Context, o *app.Options, seedAutoscalers bool) error {
	log := ctrl.Log.WithName("exporter")
	ctx = logr.NewContext(ctx, log)
	if o.LeaderElect {
		log.Info("Ignoring --leader-elect: exporter replicas are stateless and all serve")
	}
	cfg, err := o.RESTConfig()
	if err != nil {
		return err
	}
	mgr, err := o.NewManager("exporter", cfg, func(opts *manager.Options) {
		opts.LeaderElection = false
		// The exporter serves /metrics itself (exporter.Collector.Handler).
		opts.Metrics.BindAddress = "0"
	})
	if err != nil {
		return err
	}
	var opts []exporter.Option
	if !seedAutoscalers {
		opts = append(opts, exporter.WithoutSeedAutoscalers())
	}
	exp, err := exporter.New(ctx, cfg, clock.RealClock{}, opts...)
	if err != nil {
		return err
	}
	// /metrics serves controller-runtime's registry (the collector, the client's and the
	// process's own metrics) and the per-shoot series from their pre-rendered lines.
	if err := ctrlmetrics.Registry.Register(exp.Collector()); err != nil {
		return fmt.Errorf("registering the exporter's collector: %w", err)
	}
	if o.MetricsBindAddress != "0" {
		mux := http.NewServeMux()
		mux.Handle("/metrics", exp.Collector().Handler(ctrlmetrics.Registry))
		srv := &http.Server{Addr: o.MetricsBindAddress, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
			errs := make(chan error, 1)
			go func() { errs <- srv.ListenAndServe() }()
			log.Info("Serving metrics", "address", o.MetricsBindAddress)
			select {
			case err := <-errs:
				return fmt.Errorf("serving metrics on %s: %w", o.MetricsBindAddress, err)
			case <-ctx.Done():
				shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				defer cancel()
				return srv.Shutdown(shutdown)
			}
		})); err != nil {
			return err
		}
	}
	if err := mgr.Add(manager.RunnableFunc(exp.Start)); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("informers-synced", func(*http.Request) error { return exp.Ready() }); err != nil {
		return err
	}
	return mgr.Start(ctx)
}
