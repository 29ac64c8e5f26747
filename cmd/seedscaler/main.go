// Command seedscaler runs one part of seedscaler per subcommand; every part is its own
// Deployment of the same image, which holds this binary and nothing else. The demo, the
// simulator and the benchmarks are cmd/seedscaler-dev, a binary of their own, so that the
// test harness and plotting stay out of this one.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	// The image holds this binary and no CA bundle: Mozilla's roots, which Go uses only
	// where the system has none, let the adapter verify a Prometheus behind a public CA.
	_ "golang.org/x/crypto/x509roots/fallback"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/seedscaler/seedscaler/internal/app"
)

func main() {
	app.Execute(rootCommand())
}

// rootCommand is seedscaler with every subcommand, and the log flags they share.
func rootCommand() (*cobra.Command, *app.Logging) {
	return app.RootCommand("seedscaler", "Automated seed management for Gardener-style landscapes",
		schedulerCommand(),
		versionCommand(),
		autoscalerCommand(),
		seedControllerCommand(),
		setControllerCommand(),
		exporterCommand(),
		adapterCommand(),
		prepareUninstallCommand(),
	)
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
