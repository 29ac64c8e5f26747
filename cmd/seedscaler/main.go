// Command seedscaler runs one part of seedscaler per subcommand; every part is its own
// Deployment of the same image, which holds this binary and nothing else. The demo, the
// simulator and the benchmarks are cmd/seedscaler-dev, a binary of their own, so that the
// test harness and plotting stay out of this one.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	// The image holds this binary and no CA bundle: Mozilla's roots, which Go uses only
	// where the system has none, let the adapter verify a Prometheus behind a public CA.
	_ "golang.org/x/crypto/x509roots/fallback"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/seedscaler/seedscaler/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root, logging := rootCommand()
	if err := root.ExecuteContext(ctx); err != nil {
		logging.Fail(os.Stderr, err)
		os.Exit(1)
	}
}

// rootCommand is seedscaler with every subcommand, and the log configuration they share:
// the flags --logging-format, -v and --vmodule, applied before a subcommand runs.
func rootCommand() (*cobra.Command, *app.Logging) {
	logging := app.NewLogging()
	root := &cobra.Command{
		Use:           "seedscaler",
		Short:         "Automated seed management for Gardener-style landscapes",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return logging.Apply(cmd.ErrOrStderr())
		},
	}
	logging.AddFlags(root.PersistentFlags())
	root.AddCommand(
		schedulerCommand(),
		versionCommand(),
		autoscalerCommand(),
		seedControllerCommand(),
		setControllerCommand(),
		exporterCommand(),
		adapterCommand(),
		prepareUninstallCommand(),
	)
	return root, logging
}

// metricsPathGC gives a part on the metrics path the garbage collector target of
// app.MetricsPathGCPercent, unless GOGC sets one, and logs the target in effect.
func metricsPathGC(part string) {
	gogc := app.SetGCPercent(app.MetricsPathGCPercent)
	ctrl.Log.WithName(part).Info("Garbage collector target", "gogc", gogc, "fromEnvironment", os.Getenv("GOGC") != "")
}

func versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of seedscaler",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			_, _ = fmt.Fprintln(cmd.OutOrStdout(), "seedscaler", version)
		},
	}
}
