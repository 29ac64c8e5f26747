package main

import (
	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/seedscaler/seedscaler/scheduler"
)

func schedulerCommand() *cobra.Command {
	o := scheduler.NewOptions()
	cmd := &cobra.Command{
		Use:   "scheduler",
		Short: "Bind unscheduled shoots to seeds (docs/scheduler.md)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return scheduler.Run(logr.NewContext(cmd.Context(), ctrl.Log), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}
