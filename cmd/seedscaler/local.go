//go:build dev

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/seedscaler/seedscaler/local"
)

func localCommand() *cobra.Command {
	opts := local.Options{}
	cmd := &cobra.Command{
		Use:   "local",
		Short: "Run the whole stack on this machine against a simulated landscape",
		Long: `local starts etcd, kube-apiserver (with the aggregation layer) and Prometheus on
loopback, installs the CRDs and a demo landscape (examples/demo), runs every part as the
subcommand the Helm chart deploys, and the simulator with a demand profile. It shows a live
view and, at the end or on Ctrl-C, writes a report: timeline.csv, plot.png, summary.md.
Run it from a checkout of the repository; ` + "`make demo`" + ` builds what it needs and runs it.

With --cluster (as root; ` + "`make demo-cluster`" + `), the parts run as the Helm chart's pods instead: it
starts a one-node Kubernetes cluster on this machine (kubelet, containerd, kube-proxy, CoreDNS),
imports the image --image, runs prometheus-operator and its Prometheus in pods, installs the
chart into a namespace enforcing restricted Pod Security, and tears the cluster down at the end.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Duration <= 0 {
				return fmt.Errorf("--duration must be positive, e.g. --duration=6m")
			}
			if opts.Speed <= 0 {
				return fmt.Errorf("--speed must be positive, e.g. --speed=240 (a simulated day in 6 minutes)")
			}
			if opts.ReportDir == "" {
				opts.ReportDir = filepath.Join("report", time.Now().Format("20060102-150405"))
			}
			opts.Out = cmd.OutOrStdout()
			if fi, err := os.Stdout.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
				opts.Interactive = true
			}
			return local.Run(cmd.Context(), ctrl.Log.WithName("local"), opts)
		},
	}
	f := cmd.Flags()
	f.DurationVar(&opts.Duration, "duration", 6*time.Minute, "How long the simulated demand runs, in wall time.")
	f.Float64Var(&opts.Speed, "speed", 240, "Simulated seconds per wall second: 240 plays a day in 6 minutes.")
	f.StringVar(&opts.Profile, "profile", "examples/config/demo-day.yaml", "Simulator configuration with the demand profile.")
	f.BoolVar(&opts.Keep, "keep", false, "Leave the landscape running after the run, until Ctrl-C.")
	f.StringVar(&opts.ReportDir, "report", "", "Report folder; report/<timestamp> when empty.")
	f.DurationVar(&opts.Interval, "interval", 2*time.Second, "Interval of the live view's samples.")
	f.BoolVar(&opts.Cluster, "cluster", false, "Run the parts as the Helm chart's pods on a one-node cluster started on this machine (needs root).")
	f.StringVar(&opts.Image, "image", "bin/seedscaler-image.tar", "With --cluster: the image tarball to install the chart from (`make image`).")
	return cmd
}
