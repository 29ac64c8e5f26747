package main

import (
	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/seedscaler/seedscaler/dev/local"
)

func localCommand() *cobra.Command {
	o := local.NewOptions()
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
			return local.Run(logr.NewContext(cmd.Context(), ctrl.Log.WithName("local")), *o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}
