package scheduler

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/controller"
)

// Run loads the configuration file and schedules shoots until ctx ends.
func Run(ctx context.Context, o *Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	cfg, err := config.Load(o.ConfigPath)
	if err != nil {
		return err
	}
	restConfig, err := o.RESTConfig()
	if err != nil {
		return err
	}
	mgr, err := o.NewManager("scheduler", restConfig, controller.CacheOptions(cfg))
	if err != nil {
		return err
	}
	ctx = logr.NewContext(ctx, mgr.GetLogger().WithName(controller.Name))
	if err := (&controller.Reconciler{Config: cfg}).AddToManager(ctx, mgr, ctrlmetrics.Registry); err != nil {
		return fmt.Errorf("adding the scheduler: %w", err)
	}
	return mgr.Start(ctx)
}
