package main

import (
	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/seedscaler/seedscaler/dev/simulator"
)

func simulateCommand() *cobra.Command {
	o := simulator.NewOptions()
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
		Example: `  seedscaler-dev simulate --kubeconfig garden.kubeconfig --config examples/config/simulator.yaml
  seedscaler-dev simulate --config examples/config/demo-day.yaml --speed 240 --duration 24h --timeline day.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Out = cmd.OutOrStdout()
			return simulator.Run(logr.NewContext(cmd.Context(), ctrl.Log), o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}
