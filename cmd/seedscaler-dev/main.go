// Command seedscaler-dev holds the development commands: the demo (`local`), the landscape
// simulator (`simulate`) and the autoscaling benchmark (`bench-autoscaling`). They link the
// test harness (envtest, a one-node cluster) and plotting, which the shipped binary, the
// parts the chart deploys, must not carry: envtest writes to /tmp when it initializes, which
// the chart's read-only root file system refuses.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/seedscaler/seedscaler/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logging := app.NewLogging()
	root := &cobra.Command{
		Use:           "seedscaler-dev",
		Short:         "seedscaler's development commands: the demo, the simulator, the benchmarks",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return logging.Apply(cmd.ErrOrStderr())
		},
	}
	logging.AddFlags(root.PersistentFlags())
	root.AddCommand(localCommand(), simulateCommand(), benchAutoscalingCommand())
	if err := root.ExecuteContext(ctx); err != nil {
		logging.Fail(os.Stderr, err)
		os.Exit(1)
	}
}
