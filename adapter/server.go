package adapter

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	promapi "github.com/prometheus/client_golang/api"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime/schema"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/discovery"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/metrics/legacyregistry"
	openapicommon "k8s.io/kube-openapi/pkg/common"
	"k8s.io/utils/clock"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/apiserver"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/cmd/options"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/dynamicmapper"
	generatedcore "sigs.k8s.io/custom-metrics-apiserver/pkg/generated/openapi/core"
	generatedcustommetrics "sigs.k8s.io/custom-metrics-apiserver/pkg/generated/openapi/custommetrics"
	generatedexternalmetrics "sigs.k8s.io/custom-metrics-apiserver/pkg/generated/openapi/externalmetrics"

	"github.com/seedscaler/seedscaler/internal/app"
)

// The adapter's RBAC markers are in adapter/rbac (see there why).

// Options are the adapter's flags.
type Options struct {
	// Kubeconfig is the path of a kubeconfig for every client of the adapter: the object
	// cache, discovery, and the delegated authentication and authorization (unless their
	// own flags are given). Empty means $KUBECONFIG, then in-cluster.
	Kubeconfig string
	// MetricsBindAddress serves the adapter's own metrics on /metrics over plain HTTP; "0"
	// disables it.
	MetricsBindAddress string
	// MetricsSecure serves them over HTTPS to authorized clients only, as the other parts
	// do with --metrics-secure (internal/app).
	MetricsSecure bool
	// HealthProbeBindAddress serves /healthz and /readyz over plain HTTP; "0" disables it.
	HealthProbeBindAddress string
	// PrometheusURL is the base URL of the Prometheus to query.
	PrometheusURL string
	// PrometheusClientConfig is a file in prometheus/common's HTTP client format: TLS,
	// credentials, headers and proxy of the queries. Empty: plain requests, a proxy from
	// the environment.
	PrometheusClientConfig string
	// PrometheusClientConfigReloadInterval is how often PrometheusClientConfig is read
	// again; defaultClientConfigReloadInterval when zero.
	PrometheusClientConfigReloadInterval time.Duration
	// PrometheusTimeout bounds every query to Prometheus.
	PrometheusTimeout time.Duration
	// PrometheusCompression asks Prometheus for gzipped answers. Off by default: a list
	// over a thousand seeds is two answers of ~100 KB, which Prometheus compressed and the
	// adapter inflated on every request, on a network where their size costs nothing.
	PrometheusCompression bool
	// ConfigPath is the adapter configuration file; empty means the built-in rules.
	ConfigPath string
	// Server holds the API server's own flags: serving, authentication, authorization.
	Server *options.CustomMetricsAdapterServerOptions
	// Clock is the adapter's clock; the real one when nil.
	Clock clock.WithTicker
}

// NewOptions returns options with the defaults of the chart: the API served on port 6443, a
// serving certificate generated in memory when no --tls-cert-file is given.
func NewOptions() *Options {
	server := options.NewCustomMetricsAdapterServerOptions()
	server.SecureServing.BindPort = 6443
	// Neither a directory nor a pair name: a certificate generated for local runs stays in
	// memory, so a read-only root file system is enough.
	server.SecureServing.ServerCert.CertDirectory = ""
	server.SecureServing.ServerCert.PairName = ""
	return &Options{PrometheusTimeout: 10 * time.Second, Server: server}
}

// AddFlags registers the adapter's flags, the API server's included.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "Path of a kubeconfig for the object cache and the delegated authentication and authorization. Empty: $KUBECONFIG, then the in-cluster configuration.")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", ":8092", "Address the adapter's own metrics are served on (/metrics, plain HTTP unless --metrics-secure); \"0\" disables it.")
	app.AddMetricsSecureFlag(fs, &o.MetricsSecure)
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", ":8093", "Address /healthz and /readyz are served on (plain HTTP); \"0\" disables them.")
	fs.StringVar(&o.PrometheusURL, "prometheus-url", "", "Base URL of the Prometheus that scrapes the exporter and the scheduler, e.g. http://prometheus-operated.monitoring.svc:9090. Give credentials in --prometheus-client-config, not as user:password@ here, where a pod's arguments show them.")
	fs.StringVar(&o.PrometheusClientConfig, "prometheus-client-config", "", "HTTP client configuration file of the queries to Prometheus, in the format of a Prometheus scrape configuration's client settings (tls_config, basic_auth, authorization, oauth2, http_headers, proxy_url; docs/adapter.md). Read again when it changes. Empty: plain requests.")
	fs.DurationVar(&o.PrometheusTimeout, "prometheus-timeout", o.PrometheusTimeout, "Time limit of one query to Prometheus.")
	fs.BoolVar(&o.PrometheusCompression, "prometheus-compression", false, "Ask Prometheus for gzipped answers: less traffic, more CPU on both sides. For a Prometheus across a slow or metered link.")
	fs.StringVar(&o.ConfigPath, "config", "", "Adapter configuration file (rules, discovery, staleness; docs/adapter.md). Empty: the built-in rules.")
	o.Server.AddFlags(fs)
}

// Validate checks the options.
func (o *Options) Validate() error {
	var errs []error
	if o.PrometheusURL == "" {
		errs = append(errs, errors.New("--prometheus-url is required: the base URL of the Prometheus that scrapes the exporter, e.g. http://prometheus-operated.monitoring.svc:9090"))
	} else if err := checkPrometheusURL(o.PrometheusURL); err != nil {
		errs = append(errs, err)
	}
	if o.PrometheusTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--prometheus-timeout must be positive, got %s", o.PrometheusTimeout))
	}
	errs = append(errs, o.Server.Validate()...)
	return errors.Join(errs...)
}

// checkPrometheusURL refuses a --prometheus-url that is not an absolute http or https
// URL, never showing a password it holds.
func checkPrometheusURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		// url's errors quote the URL, and may quote a part of an unescaped password.
		return fmt.Errorf("--prometheus-url %s is not a URL (escape special characters of a password, or better give it in --prometheus-client-config)", redactURL(raw))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--prometheus-url %s: want an http:// or https:// URL with a host, e.g. https://thanos-query.monitoring.svc:9091", redactURL(raw))
	}
	return nil
}

// prometheusClient builds the HTTP client of every query to Prometheus from
// --prometheus-client-config, and the transport to watch for changes of it.
func (o *Options) prometheusClient() (*http.Client, *prometheusTransport, error) {
	transport, cfg, err := newPrometheusTransport(o.PrometheusClientConfig, o.PrometheusCompression)
	if err != nil {
		return nil, nil, err
	}
	if u, err := url.Parse(o.PrometheusURL); err == nil && u.User != nil && hasCredentials(cfg) {
		return nil, nil, fmt.Errorf("--prometheus-url %s holds credentials, and --prometheus-client-config %s has its own: keep them in the file only", redactURL(o.PrometheusURL), o.PrometheusClientConfig)
	}
	return &http.Client{Timeout: o.PrometheusTimeout, Transport: transport, CheckRedirect: transport.checkRedirect}, transport, nil
}

// Run serves the metrics APIs until ctx ends. Configuration errors, unknown resources and
// a series query Prometheus refuses fail it before anything is served.
func Run(ctx context.Context, o *Options) error {
	log := logr.FromContextOrDiscard(ctx).WithName("adapter")
	ctx = logr.NewContext(ctx, log)
	if err := o.Validate(); err != nil {
		return err
	}
	clk := o.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	cfg, err := LoadConfig(o.ConfigPath)
	if err != nil {
		return err
	}
	promHTTP, promTransport, err := o.prometheusClient()
	if err != nil {
		return err
	}
	prometheusURL := redactURL(o.PrometheusURL)
	if u, _ := url.Parse(o.PrometheusURL); u != nil && u.User != nil {
		log.Info("The Prometheus URL holds credentials, which the pod's arguments show to anyone who may read it: give them in --prometheus-client-config instead", "prometheus", prometheusURL)
	}
	restConfig, err := o.restConfig()
	if err != nil {
		return err
	}
	cl, err := resolveCluster(ctx, restConfig, cfg)
	if err != nil {
		return err
	}
	promClient, err := promapi.NewClient(promapi.Config{Address: o.PrometheusURL, Client: promHTTP})
	if err != nil {
		return fmt.Errorf("--prometheus-url %s: %w", prometheusURL, err)
	}
	interval := o.PrometheusClientConfigReloadInterval
	if interval <= 0 {
		interval = defaultClientConfigReloadInterval
	}
	go promTransport.watch(ctx, clk, interval)
	reg := prometheus.NewRegistry()
	metrics, err := NewMetrics(reg)
	if err != nil {
		return err
	}
	p := NewProvider(cfg, promClient, promHTTP, clk, metrics, cl.kinds, cl.mapper, cl.objects)
	if err := startDiscovery(ctx, p, prometheusURL); err != nil {
		return err
	}
	return o.serve(ctx, restConfig, p, reg, func() {
		log.Info("Serving custom and external metrics", "prometheus", prometheusURL, "clientConfig", o.PrometheusClientConfig, "rules", len(cfg.Rules), "externalRules", len(cfg.ExternalRules))
	})
}

// cluster is what the adapter learned of the cluster its rules describe.
type cluster struct {
	mapper  *dynamicmapper.RegeneratingDiscoveryRESTMapper
	kinds   map[schema.GroupResource]schema.GroupVersionKind
	objects *metadataObjects
}

// resolveCluster maps the rules' resources to the cluster's API resources and kinds, and
// starts the cache of their objects' metadata.
func resolveCluster(ctx context.Context, restConfig *rest.Config, cfg *Config) (*cluster, error) {
	discoveryClient, err := discovery.NewDiscoveryClientForConfig(restConfig)
	if err != nil {
		return nil, err
	}
	mapper, err := dynamicmapper.NewRESTMapper(discoveryClient, 5*time.Minute)
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's API resources: %w", err)
	}
	mapper.RunUntil(ctx.Done())
	resources, err := cfg.ResolveResources(mapper)
	if err != nil {
		return nil, fmt.Errorf("adapter rules do not fit the cluster: %w", err)
	}
	kinds := map[schema.GroupResource]schema.GroupVersionKind{}
	for gr, gvr := range resources {
		if kinds[gr], err = mapper.KindFor(gvr); err != nil {
			return nil, err
		}
	}
	objects, err := startObjectCache(ctx, restConfig, resources)
	if err != nil {
		return nil, err
	}
	return &cluster{mapper: mapper, kinds: kinds, objects: objects}, nil
}

// startDiscovery checks the rules' queries and discovers the available series once, then
// keeps discovering them in the background. A series query Prometheus refuses fails it; a
// Prometheus that does not answer yet is retried every interval.
func startDiscovery(ctx context.Context, p *Provider, prometheusURL string) error {
	disc := p.discoverer()
	if err := disc.checkQueries(ctx); err != nil {
		return err
	}
	if err := disc.refresh(ctx); err != nil {
		if badSelector(err) {
			return fmt.Errorf("a series query of the adapter rules is refused by Prometheus: %w", err)
		}
		logr.FromContextOrDiscard(ctx).Error(err, "First discovery of available metrics failed; retrying every interval", "prometheus", prometheusURL)
	}
	go disc.run(ctx)
	return nil
}

// serve serves the metrics APIs, the adapter's own metrics and its probes until ctx ends,
// calling started once they are up.
func (o *Options) serve(ctx context.Context, restConfig *rest.Config, p *Provider, reg *prometheus.Registry, started func()) error {
	server, err := o.newServer(restConfig, p)
	if err != nil {
		return fmt.Errorf("building the metrics API server: %w", err)
	}
	var serving atomic.Bool
	if _, err := app.StartMetrics(ctx, restConfig, o.MetricsBindAddress, o.MetricsSecure, false, metricsHandler(reg)); err != nil {
		return fmt.Errorf("--metrics-bind-address: %w", err)
	}
	if err := serveHTTP(ctx, o.HealthProbeBindAddress, healthHandler(&serving)); err != nil {
		return fmt.Errorf("--health-probe-bind-address: %w", err)
	}
	prepared := server.GenericAPIServer.PrepareRun()
	serving.Store(true)
	started()
	return prepared.RunWithContext(ctx)
}

// newServer builds the generic API server of both metrics APIs around the provider:
// secure serving, delegated authentication (TokenReview, requestheader) and authorization
// (SubjectAccessReview) from the options, and OpenAPI v2 and v3.
func (o *Options) newServer(restConfig *rest.Config, p *Provider) (*apiserver.CustomMetricsAdapterServer, error) {
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return nil, err
	}
	informers := kubeinformers.NewSharedInformerFactory(client, 0)
	serverConfig := genericapiserver.NewRecommendedConfig(apiserver.Codecs)
	serverConfig.ClientConfig = restConfig
	serverConfig.SharedInformerFactory = informers
	if err := o.Server.ApplyTo(serverConfig); err != nil {
		return nil, err
	}
	// The kube-apiserver's aggregator downloads every APIService's OpenAPI, and logs a
	// failure every minute or two while there is none; kubectl explain reads what it
	// merged. The specs are built once, in PrepareRun (some 15 ms), and serialized on their
	// first download; the metrics endpoints never read them.
	namer := openapinamer.NewDefinitionNamer(apiserver.Scheme)
	serverConfig.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(openAPIDefinitions, namer)
	serverConfig.OpenAPIConfig.Info.Title = "seedscaler-adapter"
	serverConfig.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(openAPIDefinitions, namer)
	serverConfig.OpenAPIV3Config.Info.Title = "seedscaler-adapter"
	config := &apiserver.Config{GenericConfig: &serverConfig.Config}
	return config.Complete(informers).New("seedscaler-adapter", p, p)
}

// openAPIDefinitions are the schemas of what the adapter serves, as custom-metrics-apiserver
// generates them: meta and version types, the custom metrics types of v1beta1 and v1beta2,
// and the external metrics types of v1beta1.
func openAPIDefinitions(ref openapicommon.ReferenceCallback) map[string]openapicommon.OpenAPIDefinition {
	definitions := generatedcore.GetOpenAPIDefinitions(ref)
	for _, generated := range []openapicommon.GetOpenAPIDefinitions{generatedcustommetrics.GetOpenAPIDefinitions, generatedexternalmetrics.GetOpenAPIDefinitions} {
		maps.Copy(definitions, generated(ref))
	}
	return definitions
}

// restConfig loads --kubeconfig (or $KUBECONFIG, then in-cluster), and points the delegated
// authentication and authorization at the same file unless their own flags name another.
func (o *Options) restConfig() (*rest.Config, error) {
	path := o.Kubeconfig
	if path == "" {
		path = os.Getenv("KUBECONFIG")
	}
	if path != "" {
		if o.Server.Authentication.RemoteKubeConfigFile == "" {
			o.Server.Authentication.RemoteKubeConfigFile = path
		}
		if o.Server.Authorization.RemoteKubeConfigFile == "" {
			o.Server.Authorization.RemoteKubeConfigFile = path
		}
	}
	return (&app.Options{Kubeconfig: path}).RESTConfig()
}

func metricsHandler(reg *prometheus.Registry) http.Handler {
	// The API server's own metrics (apiserver_request_*, process, Go) live in the legacy
	// registry; serve both on one endpoint.
	gatherers := prometheus.Gatherers{reg, legacyregistry.DefaultGatherer}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(gatherers, promhttp.HandlerOpts{}))
	return mux
}

func healthHandler(serving *atomic.Bool) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !serving.Load() {
			http.Error(w, "the metrics API server is not serving yet", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	return mux
}

// serveHTTP serves handler on addr until ctx ends; "0" or empty serves nothing.
func serveHTTP(ctx context.Context, addr string, handler http.Handler) error {
	if addr == "" || addr == "0" {
		return nil
	}
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	server := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = server.Serve(listener) }()
	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = server.Shutdown(shutdownCtx)
	}()
	return nil
}
