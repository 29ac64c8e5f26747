package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// MetricsSecureFlag is the flag that serves /metrics over HTTPS to authorized clients only.
const MetricsSecureFlag = "metrics-secure"

// metricsSecureUsage explains MetricsSecureFlag; the adapter registers the same flag.
const metricsSecureUsage = "Serve /metrics over HTTPS (a self-signed certificate made at start) to clients the kube-apiserver " +
	"authenticates (TokenReview) and authorizes to get the non-resource URL /metrics (SubjectAccessReview). " +
	"Needs RBAC to create tokenreviews and subjectaccessreviews. Off: plain HTTP to anyone who reaches the port."

// AddMetricsSecureFlag registers MetricsSecureFlag into secure, off by default: local runs
// and tests scrape plain HTTP; the chart turns it on.
func AddMetricsSecureFlag(fs *pflag.FlagSet, secure *bool) {
	fs.BoolVar(secure, MetricsSecureFlag, false, metricsSecureUsage)
}

// metricsServerOptions are the controller-runtime metrics server options of a manager:
// with MetricsSecure, HTTPS with a self-signed certificate and every request authenticated
// and authorized through the kube-apiserver, as kubebuilder sets a manager up.
func (o *Options) metricsServerOptions() metricsserver.Options {
	opts := metricsserver.Options{BindAddress: o.MetricsBindAddress}
	if o.Profiling {
		opts.ExtraHandlers = profilingHandlers()
	}
	if o.MetricsSecure {
		opts.SecureServing = true
		opts.FilterProvider = filters.WithAuthenticationAndAuthorization
		// HTTP/2 only on request: its rapid-reset and stream flaws are not worth a scrape.
		opts.TLSOpts = []func(*tls.Config){disableHTTP2}
	}
	return opts
}

func disableHTTP2(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }

// profilingHandlers are net/http/pprof's handlers by path, for --profiling.
func profilingHandlers() map[string]http.Handler {
	return map[string]http.Handler{
		"/debug/pprof/":        http.HandlerFunc(pprof.Index),
		"/debug/pprof/cmdline": http.HandlerFunc(pprof.Cmdline),
		"/debug/pprof/profile": http.HandlerFunc(pprof.Profile),
		"/debug/pprof/symbol":  http.HandlerFunc(pprof.Symbol),
		"/debug/pprof/trace":   http.HandlerFunc(pprof.Trace),
	}
}

// StartMetrics serves metrics as /metrics on addr until ctx ends, for parts that render
// /metrics themselves (the exporter, the adapter), and with profiling Go's profiles under
// /debug/pprof/: plain HTTP, or with secure the same HTTPS,
// authentication and authorization a manager's metrics server has. It returns once it
// listens, logging through the logger of ctx; the channel gets the server's error, or nil after ctx ended. An addr of "0" or
// "" serves nothing and returns a nil channel.
func StartMetrics(ctx context.Context, cfg *rest.Config, addr string, secure, profiling bool, metrics http.Handler) (<-chan error, error) {
	if addr == "" || addr == "0" {
		return nil, nil
	}
	log := logr.FromContextOrDiscard(ctx)
	mux := http.NewServeMux()
	mux.Handle("/metrics", metrics)
	if profiling {
		for path, h := range profilingHandlers() {
			mux.Handle(path, h)
		}
	}
	var handler http.Handler = mux
	if secure {
		httpClient, err := rest.HTTPClientFor(cfg)
		if err != nil {
			return nil, fmt.Errorf("creating the client of metrics authentication: %w", err)
		}
		filter, err := filters.WithAuthenticationAndAuthorization(cfg, httpClient)
		if err != nil {
			return nil, fmt.Errorf("setting up metrics authentication and authorization: %w", err)
		}
		if handler, err = filter(log, handler); err != nil {
			return nil, err
		}
	}
	listener, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("serving metrics on %s: %w", addr, err)
	}
	if secure {
		cert, key, err := certutil.GenerateSelfSignedCertKeyWithFixtures("localhost", []net.IP{{127, 0, 0, 1}}, nil, "")
		if err != nil {
			_ = listener.Close()
			return nil, fmt.Errorf("generating the metrics serving certificate: %w", err)
		}
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			_ = listener.Close()
			return nil, err
		}
		tlsConfig := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
		disableHTTP2(tlsConfig)
		listener = tls.NewListener(listener, tlsConfig)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() {
		err := srv.Serve(listener)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		done <- err
	}()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Info("Serving metrics", "address", listener.Addr().String(), "secure", secure)
	return done, nil
}
