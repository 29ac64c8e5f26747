package main

import (
	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/seedscaler/seedscaler/seedmanagement/managedseedset"
)

func setControllerCommand() *cobra.Command {
	o := managedseedset.NewOptions()
	cmd := &cobra.Command{
		Use:   "set-controller",
		Short: "Keep ManagedSeedSets at their replicas: create, update and scale in their Shoots and ManagedSeeds",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return managedseedset.Run(logr.NewContext(cmd.Context(), ctrl.Log), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}
