package main

import (
	"fmt"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/scheduler/admission"
	"github.com/seedscaler/seedscaler/scheduler/config"
	"github.com/seedscaler/seedscaler/scheduler/controller"
)

// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete

func schedulerCommand() *cobra.Command {
	opts := &app.Options{}
	webhookOpts := &admission.Options{}
	var configPath string
	cmd := &cobra.Command{
		Use:   "scheduler",
		Short: "Bind unscheduled shoots to seeds (docs/scheduler.md)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := webhookOpts.Validate(); err != nil {
				return err
			}
			cfg, err := config.Load(configPath)
			if err != nil {
				return err
			}
			restConfig, err := opts.RESTConfig()
			if err != nil {
				return err
			}
			mgr, err := opts.NewManager("scheduler", restConfig, func(o *manager.Options) {
				controller.CacheOptions(cfg)(o)
				webhookOpts.ManagerOptions(o)
			})
			if err != nil {
				return err
			}
			ctx := ctrl.LoggerInto(cmd.Context(), mgr.GetLogger().WithName(controller.Name))
			scheduler := &controller.Reconciler{Config: cfg}
			if err := scheduler.AddToManager(ctx, mgr, ctrlmetrics.Registry); err != nil {
				return fmt.Errorf("adding the scheduler: %w", err)
			}
			if err := webhookOpts.AddToManager(mgr, scheduler); err != nil {
				return fmt.Errorf("adding the binding webhook: %w", err)
			}
			return mgr.Start(ctx)
		},
	}
	opts.AddFlags(cmd.Flags(), 8080, 8081)
	webhookOpts.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&configPath, "config", "", "Path of the scheduler configuration file (docs/scheduler.md); defaults when empty.")
	return cmd
}
