// Package app holds what every seedscaler subcommand that talks to Kubernetes shares: the
// common flags, the rest config, and a controller-runtime manager built from them.
package app

import (
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/seedscaler/seedscaler/internal/scheme"
)

// Options are the flags every part that talks to Kubernetes takes.
type Options struct {
	// Kubeconfig is the path of a kubeconfig; empty means $KUBECONFIG, then in-cluster.
	Kubeconfig string
	// MetricsBindAddress serves /metrics; "0" disables it.
	MetricsBindAddress string
	// MetricsSecure serves /metrics over HTTPS to authorized clients only (metrics.go).
	MetricsSecure bool
	// HealthProbeBindAddress serves /healthz and /readyz; "0" disables it.
	HealthProbeBindAddress string
	// LeaderElect makes replicas elect one leader that does the work.
	LeaderElect bool
	// LeaderElectionNamespace holds the leader election Lease; the pod's namespace when empty.
	LeaderElectionNamespace string
	// QPS and Burst bound the client's request rate to the kube-apiserver.
	QPS   float32
	Burst int
	// Profiling serves Go's profiles (net/http/pprof) under /debug/pprof/ on the metrics
	// address, behind the same authentication and authorization as /metrics.
	Profiling bool
}

// AddFlags registers the common flags with defaults for the given metrics and health ports.
func (o *Options) AddFlags(fs *pflag.FlagSet, metricsPort, healthPort int) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "Path of a kubeconfig. Empty: $KUBECONFIG, then the in-cluster configuration.")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", fmt.Sprintf(":%d", metricsPort), "Address /metrics is served on; \"0\" disables it.")
	AddMetricsSecureFlag(fs, &o.MetricsSecure)
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", fmt.Sprintf(":%d", healthPort), "Address /healthz and /readyz are served on; \"0\" disables them.")
	fs.BoolVar(&o.LeaderElect, "leader-elect", false, "Elect a leader among replicas; only the leader works.")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", "", "Namespace of the leader election Lease; the pod's namespace when empty.")
	fs.Float32Var(&o.QPS, "kube-api-qps", 50, "Requests per second to the kube-apiserver.")
	fs.IntVar(&o.Burst, "kube-api-burst", 100, "Burst of requests to the kube-apiserver.")
	fs.BoolVar(&o.Profiling, "profiling", false, "Serve Go's profiles (pprof) under /debug/pprof/ on the metrics address, authorized like /metrics with --metrics-secure.")
}

// Validate checks the common flags: the addresses must be host:port or "0".
func (o *Options) Validate() error {
	var errs []error
	for _, a := range []struct{ flag, value string }{
		{"--metrics-bind-address", o.MetricsBindAddress},
		{"--health-probe-bind-address", o.HealthProbeBindAddress},
	} {
		if a.value == "0" {
			continue
		}
		if _, _, err := net.SplitHostPort(a.value); err != nil {
			errs = append(errs, fmt.Errorf("%s=%s: want host:port such as :8080 or 127.0.0.1:8080, or 0 to switch it off", a.flag, a.value))
		}
	}
	return errors.Join(errs...)
}

// RESTConfig loads the rest config: --kubeconfig, then $KUBECONFIG, then in-cluster.
func (o *Options) RESTConfig() (*rest.Config, error) {
	path := o.Kubeconfig
	if path == "" {
		path = os.Getenv("KUBECONFIG")
	}
	var (
		cfg *rest.Config
		err error
	)
	if path != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			return nil, fmt.Errorf("loading kubeconfig %s: %w", path, err)
		}
	} else {
		cfg, err = rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("no --kubeconfig given, $KUBECONFIG unset, and not in a cluster: %w", err)
		}
	}
	cfg.QPS, cfg.Burst = o.QPS, o.Burst
	return cfg, nil
}

// NewManager builds a controller-runtime manager for the part named name, with the common
// options, health and readiness checks, and seedscaler's scheme.
func (o *Options) NewManager(name string, cfg *rest.Config, customize func(*manager.Options)) (manager.Manager, error) {
	opts := manager.Options{
		Scheme: scheme.New(),
		// No part reads managedFields, and at 100,000 shoots they are the larger half of
		// what a cached shoot holds. Writes are patches or updates without them, which the
		// kube-apiserver takes as leaving them as they are.
		Cache:                   cache.Options{DefaultTransform: cache.TransformStripManagedFields()},
		Metrics:                 o.metricsServerOptions(),
		HealthProbeBindAddress:  o.HealthProbeBindAddress,
		LeaderElection:          o.LeaderElect,
		LeaderElectionID:        "seedscaler-" + name,
		LeaderElectionNamespace: o.LeaderElectionNamespace,
		// Let a successor take over at once instead of waiting out the lease.
		LeaderElectionReleaseOnCancel: true,
	}
	if customize != nil {
		customize(&opts)
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return nil, fmt.Errorf("creating the %s manager: %w", name, err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	return mgr, nil
}
