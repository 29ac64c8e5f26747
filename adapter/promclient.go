package adapter

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/go-logr/logr"
	promapi "github.com/prometheus/client_golang/api"
	"github.com/prometheus/common/config"
	"go.yaml.in/yaml/v2"
	"k8s.io/utils/clock"

	"github.com/seedscaler/seedscaler/internal/yamltext"
)

// defaultClientConfigReloadInterval is how often --prometheus-client-config is read again.
// A Secret's new content reaches a pod's volume a minute or so after the change (the
// kubelet's sync period and cache), so looking more often gains little.
const defaultClientConfigReloadInterval = 10 * time.Second

// loadClientConfig reads a client configuration file in prometheus/common's HTTP client
// format (the one of a scrape configuration's authentication and TLS): strictly, with
// relative paths taken from the file's directory. Every file it names is read once, so
// that a missing password or CA file stops the adapter at start, naming its field, rather
// than failing every query: prometheus/common reads those files only when it sends a
// request.
func loadClientConfig(path string, content []byte) (*config.HTTPClientConfig, error) {
	cfg, err := parseClientConfig(content, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("--prometheus-client-config %s: %w", path, err)
	}
	return cfg, nil
}

func parseClientConfig(content []byte, dir string) (*config.HTTPClientConfig, error) {
	// An empty file is the defaults, as an empty scrape configuration section would be.
	cfg := config.DefaultHTTPClientConfig
	if err := yamltext.Check(content); err != nil {
		return nil, err
	}
	if err := yaml.UnmarshalStrict(content, &cfg); err != nil {
		// One line per field, e.g. "line 3: field passwrd_file not found in type
		// config.plain", joined into one.
		var fields *yaml.TypeError
		if errors.As(err, &fields) {
			return nil, errors.New(strings.Join(fields.Errors, "; "))
		}
		// A value a field's own decoder refuses ("unknown TLS version: TLS99") says no line.
		return nil, yamltext.Locate(content, err, func(part []byte) error {
			c := config.DefaultHTTPClientConfig
			return yaml.UnmarshalStrict(part, &c)
		})
	}
	cfg.SetDirectory(dir)
	// Validate moves bearer_token_file into authorization; an error about it names the
	// field the file has.
	var given struct {
		BearerTokenFile string `yaml:"bearer_token_file"`
	}
	_ = yaml.Unmarshal(content, &given)
	if err := checkClientConfigFiles(&cfg, given.BearerTokenFile != ""); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// checkClientConfigFiles reads every file the configuration names and refuses secret
// references (`*_ref`), which need a secret manager the adapter does not have; each
// error names its field.
func checkClientConfigFiles(cfg *config.HTTPClientConfig, bearerTokenFile bool) error {
	var errs []error
	file := func(field, path string) {
		if path == "" {
			return
		}
		if _, err := os.ReadFile(path); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", field, err))
		}
	}
	ref := func(field, name, instead string) {
		if name != "" {
			errs = append(errs, fmt.Errorf("%s: secret references are not supported, use %s", field, instead))
		}
	}
	tlsFiles := func(prefix string, t *config.TLSConfig) {
		file(prefix+"ca_file", t.CAFile)
		file(prefix+"cert_file", t.CertFile)
		file(prefix+"key_file", t.KeyFile)
		ref(prefix+"ca_ref", t.CARef, prefix+"ca_file")
		ref(prefix+"cert_ref", t.CertRef, prefix+"cert_file")
		ref(prefix+"key_ref", t.KeyRef, prefix+"key_file")
	}
	tlsFiles("tls_config.", &cfg.TLSConfig)
	if b := cfg.BasicAuth; b != nil {
		file("basic_auth.username_file", b.UsernameFile)
		file("basic_auth.password_file", b.PasswordFile)
		ref("basic_auth.username_ref", b.UsernameRef, "basic_auth.username_file")
		ref("basic_auth.password_ref", b.PasswordRef, "basic_auth.password_file")
	}
	if a := cfg.Authorization; a != nil {
		field := "authorization.credentials_file"
		if bearerTokenFile {
			field = "bearer_token_file"
		}
		file(field, a.CredentialsFile)
		ref("authorization.credentials_ref", a.CredentialsRef, "authorization.credentials_file")
	}
	if o := cfg.OAuth2; o != nil {
		file("oauth2.client_secret_file", o.ClientSecretFile)
		file("oauth2.client_certificate_key_file", o.ClientCertificateKeyFile)
		ref("oauth2.client_secret_ref", o.ClientSecretRef, "oauth2.client_secret_file")
		ref("oauth2.client_certificate_key_ref", o.ClientCertificateKeyRef, "oauth2.client_certificate_key_file")
		tlsFiles("oauth2.tls_config.", &o.TLSConfig)
	}
	if h := cfg.HTTPHeaders; h != nil {
		for name, header := range h.Headers {
			for i, path := range header.Files {
				file(fmt.Sprintf("http_headers.%s.files[%d]", name, i), path)
			}
		}
	}
	return errors.Join(errs...)
}

// hasCredentials says whether the configuration authenticates the adapter.
func hasCredentials(cfg *config.HTTPClientConfig) bool {
	return cfg.BasicAuth != nil || cfg.Authorization != nil || cfg.OAuth2 != nil
}

// clientTransport is the transport of one client configuration.
type clientTransport struct {
	http.RoundTripper
	followRedirects bool
}

// newClientTransport builds prometheus/common's transport for a configuration: it sends
// the credentials and headers, verifies and presents certificates, and reads the files
// of all of them again at every request (a CA or client certificate that changed gets new
// connections). It keeps up to 1,000 idle connections per host for five minutes, more
// than a burst of lists needs. It never asks for compression itself: with compression,
// gzipTransport does.
func newClientTransport(cfg *config.HTTPClientConfig, compression bool) (*clientTransport, error) {
	rt, err := config.NewRoundTripperFromConfig(*cfg, "prometheus")
	if err != nil {
		// Files are read and secret references refused before; what is left is the TLS
		// material that does not parse.
		return nil, fmt.Errorf("tls_config: %w", err)
	}
	if compression {
		rt = gzipTransport{next: rt}
	}
	return &clientTransport{RoundTripper: rt, followRedirects: cfg.FollowRedirects}, nil
}

// prometheusTransport sends the adapter's requests to Prometheus through the transport of
// the current client configuration; watch replaces it when the file changes. A request
// costs one atomic load more than the transport itself.
type prometheusTransport struct {
	// path of --prometheus-client-config; empty: the defaults.
	path        string
	compression bool

	current atomic.Pointer[clientTransport]
	// loaded is the content of the file the current transport was built from.
	loaded []byte
}

// newPrometheusTransport loads the client configuration at path (the defaults when
// empty, which take a proxy from the environment as Go's default transport does).
func newPrometheusTransport(path string, compression bool) (*prometheusTransport, *config.HTTPClientConfig, error) {
	t := &prometheusTransport{path: path, compression: compression}
	cfg := config.DefaultHTTPClientConfig
	cfg.ProxyFromEnvironment = true
	if path != "" {
		content, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("--prometheus-client-config: %w", err)
		}
		loaded, err := loadClientConfig(path, content)
		if err != nil {
			return nil, nil, err
		}
		t.loaded, cfg = content, *loaded
	}
	rt, err := newClientTransport(&cfg, compression)
	if err != nil {
		return nil, nil, fmt.Errorf("--prometheus-client-config %s: %w", path, err)
	}
	t.current.Store(rt)
	return t, &cfg, nil
}

// RoundTrip implements http.RoundTripper.
func (t *prometheusTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.current.Load().RoundTrip(req)
}

// checkRedirect follows redirects as the current configuration's follow_redirects says
// (at most 10, as Go's default).
func (t *prometheusTransport) checkRedirect(_ *http.Request, via []*http.Request) error {
	if !t.current.Load().followRedirects {
		return http.ErrUseLastResponse
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// reload reads the file again and, when it changed and is valid, switches to its
// transport. It reports whether it switched; an error keeps the transport in use. A
// changed file that is not valid is tried again at the next reload: a file it names may
// come later.
func (t *prometheusTransport) reload() (bool, error) {
	content, err := os.ReadFile(t.path)
	if err != nil {
		return false, fmt.Errorf("--prometheus-client-config: %w", err)
	}
	if bytes.Equal(content, t.loaded) {
		return false, nil
	}
	cfg, err := loadClientConfig(t.path, content)
	if err != nil {
		return false, err
	}
	rt, err := newClientTransport(cfg, t.compression)
	if err != nil {
		return false, fmt.Errorf("--prometheus-client-config %s: %w", t.path, err)
	}
	t.loaded = content
	old := t.current.Swap(rt)
	// Requests under way finish on their connections; idle ones would keep the old
	// credentials and certificates.
	if closer, ok := old.RoundTripper.(interface{ CloseIdleConnections() }); ok {
		closer.CloseIdleConnections()
	}
	return true, nil
}

// watch reads the file again every interval until ctx ends. The files the configuration
// names (certificates, password and token files) need no watching: prometheus/common
// reads them at every request. The configuration file itself, and what it holds inline,
// it reads only once.
func (t *prometheusTransport) watch(ctx context.Context, clk clock.WithTicker, interval time.Duration) {
	if t.path == "" {
		return
	}
	log := logr.FromContextOrDiscard(ctx)
	ticker := clk.NewTicker(interval)
	defer ticker.Stop()
	// reported is the error last logged: a file that stays bad is logged once.
	var reported string
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C():
		}
		switched, err := t.reload()
		switch {
		case err != nil:
			if err.Error() != reported {
				log.Error(err, "Keeping the Prometheus client configuration in use")
			}
			reported = err.Error()
			continue
		case switched:
			log.Info("Reloaded the Prometheus client configuration", "file", t.path)
		}
		reported = ""
	}
}

// gzipTransport asks Prometheus for gzipped answers and inflates them, as Go's transport
// does when it is let: prometheus/common's turns that off.
type gzipTransport struct {
	next http.RoundTripper
}

func (t gzipTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Accept-Encoding") != "" {
		return t.next.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Header.Get("Content-Encoding") != "gzip" {
		return resp, err
	}
	inflated, err := gzip.NewReader(resp.Body)
	if err != nil {
		_ = resp.Body.Close()
		return nil, fmt.Errorf("inflating the answer of Prometheus (%s): %w", resp.Status, err)
	}
	resp.Body = gzipBody{Reader: inflated, compressed: resp.Body}
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	resp.Uncompressed = true
	return resp, nil
}

func (t gzipTransport) CloseIdleConnections() {
	if closer, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		closer.CloseIdleConnections()
	}
}

type gzipBody struct {
	*gzip.Reader
	compressed io.ReadCloser
}

func (b gzipBody) Close() error { return b.compressed.Close() }

// credentialsRefusedError is Prometheus, or a proxy in front of it, refusing the adapter's
// credentials: not missing data, but a configuration to fix.
type credentialsRefusedError struct {
	// status is the HTTP status line, e.g. "401 Unauthorized".
	status string
	// said is the first line of the answer when it says more than the status.
	said string
}

func (e *credentialsRefusedError) Error() string {
	status := e.status
	if e.said != "" {
		status += ": " + e.said
	}
	return fmt.Sprintf("Prometheus refused the adapter's credentials (HTTP %s): check --prometheus-client-config", status)
}

// refusedCredentials returns a credentialsRefusedError for an answer 401 or 403 with its
// body, nil for any other.
func refusedCredentials(resp *http.Response, body []byte) error {
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return nil
	}
	said, _, _ := strings.Cut(strings.TrimSpace(string(body)), "\n")
	said = strings.TrimSpace(said)
	// Mimir says "no org id" for a missing X-Scope-OrgID; a page of HTML says nothing.
	if len(said) > 200 || strings.HasPrefix(said, "<") || strings.EqualFold(said, http.StatusText(resp.StatusCode)) ||
		strings.ContainsFunc(said, func(r rune) bool { return !unicode.IsPrint(r) }) {
		said = ""
	}
	return &credentialsRefusedError{status: resp.Status, said: said}
}

// refusalReportingClient is client_golang's API client with a 401 or 403 reported as a
// credentialsRefusedError, for discovery and the start-up checks.
type refusalReportingClient struct {
	promapi.Client
}

func (c refusalReportingClient) Do(ctx context.Context, req *http.Request) (*http.Response, []byte, error) {
	resp, body, err := c.Client.Do(ctx, req)
	if err == nil {
		if refused := refusedCredentials(resp, body); refused != nil {
			return resp, body, refused
		}
	}
	return resp, body, err
}

// redactURL is a URL as logs and errors may show it: with its password replaced by
// xxxxx, or, when it does not parse as scheme://host, everything before its last @.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Opaque == "" {
		return u.Redacted()
	}
	scheme, rest, found := strings.Cut(raw, "://")
	if !found {
		scheme, rest = "", raw
	} else {
		scheme += "://"
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		return scheme + "xxxxx" + rest[at:]
	}
	return raw
}
