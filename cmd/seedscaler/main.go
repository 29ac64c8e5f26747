// Command seedscaler runs one part of seedscaler per subcommand; every part is its own
// Deployment of the same image.
//
// The image holds the shipped build: the parts and nothing else. Built with the tag `dev`
// (`make build`), the binary also has `local` and `simulate`, the demo and the simulator,
// which link the test harness (envtest) and plotting; dev.go registers them.
package main

import (
	"context"
	goflag "flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	// The image holds this binary and no CA bundle: Mozilla's roots, which Go uses only
	// where the system has none, let the adapter verify a Prometheus behind a public CA.
	_ "golang.org/x/crypto/x509roots/fallback"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/internal/version"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctrl.SetLogger(klog.NewKlogr())

	root := &cobra.Command{
		Use:           "seedscaler",
		Short:         "Automated seed management for Gardener-style landscapes",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// Every part logs through klog; the chart passes --v to each of them.
	klogFlags := goflag.NewFlagSet("klog", goflag.ContinueOnError)
	klog.InitFlags(klogFlags)
	for _, name := range []string{"v", "vmodule"} {
		root.PersistentFlags().AddGoFlag(klogFlags.Lookup(name))
	}
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
	root.AddCommand(devCommands()...)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "seedscaler:", err)
		os.Exit(1)
	}
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
			fmt.Fprintln(cmd.OutOrStdout(), "seedscaler", version.Version)
		},
	}
}
