package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/internal/scheme"
	"github.com/seedscaler/seedscaler/test/framework/cluster"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// Where the chart and the in-cluster Prometheus run with --cluster.
const (
	clusterRelease    = "seedscaler"
	clusterNamespace  = "seedscaler-system"
	clusterMonitoring = "monitoring"
	// clusterPrometheusRelease is the release label the operator's Prometheus selects
	// ServiceMonitors and rules by, as kube-prometheus-stack's selects its release name.
	clusterPrometheusRelease = "kube-prometheus-stack"
)

// chartValues are what the demo sets besides the chart's defaults: the release label the
// operator's Prometheus selects, as a user of kube-prometheus-stack sets it, and the timings
// the loopback demo gives the parts, so that a compressed day shows the same behavior.
var chartValues = []string{
	"monitoring.labels.release=" + clusterPrometheusRelease,
	"seedController.extraArgs={--heartbeat-grace-period=20s}",
	"autoscaler.extraArgs={--sync-period=5s}",
}

// StartOnCluster brings up a one-node cluster on this machine, runs prometheus-operator and
// a Prometheus the way kube-prometheus-stack does, installs the chart from opts.Image into a
// namespace enforcing restricted Pod Security (its ServiceMonitors and PrometheusRule
// configure that Prometheus), and applies the landscape. The simulator runs
// on this machine, outside the cluster, as gardenlets and tenants would.
func StartOnCluster(ctx context.Context, opts Options) (st *Stack, err error) {
	log := logr.FromContextOrDiscard(ctx)
	root, err := testenv.RepositoryRoot()
	if err != nil {
		return nil, fmt.Errorf("seedscaler-dev local --cluster runs from a checkout of the repository (it installs charts/seedscaler): %w", err)
	}
	if opts.Image == "" {
		return nil, fmt.Errorf("--cluster needs --image, the image tarball `make image` writes (bin/seedscaler-image.tar)")
	}
	if len(opts.ExtraArgs) > 0 {
		return nil, fmt.Errorf("extra flags of the parts apply to the parts as processes; on a cluster give them as the chart's <part>.extraArgs values")
	}
	helm, err := testenv.Tool("helm")
	if err != nil {
		return nil, err
	}
	if st, err = newStack(log, root, opts); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			st.Stop()
		}
	}()

	log.Info("Starting a one-node cluster", "dir", cluster.DefaultDir)
	if st.node, err = cluster.Up(ctx, cluster.Options{Repo: root, Images: []string{opts.Image}, Log: os.Stderr}); err != nil {
		return st, err
	}
	st.Kubeconfig = st.node.Kubeconfig
	cfg, err := st.node.RESTConfig()
	if err != nil {
		return st, err
	}
	sch := scheme.New()
	c, err := client.New(cfg, client.Options{Scheme: sch})
	if err != nil {
		return st, err
	}
	st.Env = &testenv.Environment{Config: cfg, Client: c, Scheme: sch}

	log.Info("Starting prometheus-operator and its Prometheus in pods", "namespace", clusterMonitoring)
	if st.prometheusURL, err = st.node.InstallPrometheusOperator(ctx, cluster.OperatorOptions{
		Namespace: clusterMonitoring, Name: "kube-prometheus-stack", ReleaseLabel: clusterPrometheusRelease,
		ScrapeInterval: 2 * time.Second,
	}); err != nil {
		return st, err
	}
	log.Info("Installing the chart", "namespace", clusterNamespace)
	if err := st.node.InstallChart(ctx, cluster.ChartOptions{
		Helm: helm, Chart: filepath.Join(root, "charts", "seedscaler"), Release: clusterRelease, Namespace: clusterNamespace,
		Values: chartValues,
	}); err != nil {
		return st, err
	}
	return st, ApplyLandscape(ctx, c, root)
}
