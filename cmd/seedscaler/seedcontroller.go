package main

import (
	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/seedscaler/seedscaler/seedmanagement/seedcontroller"
)

func seedControllerCommand() *cobra.Command {
	o := seedcontroller.NewOptions()
	cmd := &cobra.Command{
		Use:   "seed-controller",
		Short: "Register the Seeds of ManagedSeeds with their capacity, and keep every seed's GardenletReady and usage",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return seedcontroller.Run(logr.NewContext(cmd.Context(), ctrl.Log), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}
