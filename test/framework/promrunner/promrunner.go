// Package promrunner runs a real Prometheus server as a child process on loopback, with a
// generated scrape configuration and, optionally, TLS and basic auth on its own HTTP
// server: for integration tests of the metrics path, the e2e suite and `seedscaler-dev local`.
package promrunner

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/bcrypt"
	"sigs.k8s.io/yaml"
)

// Target is one scrape job.
type Target struct {
	// Job is the job label.
	Job string
	// Addresses are host:port pairs serving /metrics over plain HTTP.
	Addresses []string
}

// Options configure a Prometheus server.
type Options struct {
	// Binary is the path of the prometheus binary.
	Binary string
	// Dir holds the configuration and the TSDB; a temporary directory when empty (removed by Stop).
	Dir string
	// ListenAddress is host:port to serve on; a free loopback port when empty.
	ListenAddress string
	// ScrapeInterval of every job; 1s when zero.
	ScrapeInterval time.Duration
	// Targets to scrape.
	Targets []Target
	// RuleFiles are alerting or recording rule files to load.
	RuleFiles []string
	// Output receives Prometheus' log; discarded when nil.
	Output io.Writer
	// Web secures Prometheus' own HTTP server; plain HTTP without authentication when nil.
	Web *Web
}

// Web is the security of Prometheus' HTTP server, written as its web configuration file
// (--web.config.file), which Prometheus reads again on every request and TLS handshake:
// SetWeb changes it without a restart.
type Web struct {
	// CertPEM and KeyPEM are the serving certificate and its key: Prometheus serves HTTPS
	// when they are set.
	CertPEM, KeyPEM []byte
	// Users are the basic auth users and their passwords; Prometheus is given bcrypt
	// hashes. Empty: no authentication.
	Users map[string]string
}

func (w *Web) tls() bool { return w != nil && len(w.CertPEM) > 0 }

// Prometheus is a running Prometheus server.
type Prometheus struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:41234 (https with Options.Web's
	// certificate).
	URL string

	opts    Options
	http    *http.Client
	cmd     *exec.Cmd
	done    chan struct{}
	tempDir bool
}

// Start writes the configuration, starts Prometheus and waits until it is ready.
func Start(ctx context.Context, opts Options) (*Prometheus, error) {
	if opts.Binary == "" {
		return nil, errors.New("promrunner: no prometheus binary given")
	}
	if opts.ScrapeInterval == 0 {
		opts.ScrapeInterval = time.Second
	}
	p := &Prometheus{opts: opts, done: make(chan struct{})}
	p.http = p.newClient()
	if p.opts.Dir == "" {
		dir, err := os.MkdirTemp("", "seedscaler-prometheus-")
		if err != nil {
			return nil, err
		}
		p.opts.Dir, p.tempDir = dir, true
	} else if err := os.MkdirAll(p.opts.Dir, 0o755); err != nil {
		return nil, err
	}
	if p.opts.ListenAddress == "" {
		addr, err := FreeLoopbackAddress()
		if err != nil {
			return nil, err
		}
		p.opts.ListenAddress = addr
	}
	p.URL = "http://" + p.opts.ListenAddress
	if p.opts.Web.tls() {
		p.URL = "https://" + p.opts.ListenAddress
	}
	if err := p.writeConfig(); err != nil {
		return nil, err
	}
	if err := p.writeWebConfig(); err != nil {
		return nil, err
	}
	if err := p.start(); err != nil {
		return nil, err
	}
	if err := p.waitReady(ctx, time.Minute); err != nil {
		_ = p.Stop()
		return nil, err
	}
	return p, nil
}

// Config renders the Prometheus configuration for the options.
func Config(opts Options) ([]byte, error) {
	interval := opts.ScrapeInterval.String()
	cfg := map[string]any{
		"global": map[string]any{"scrape_interval": interval, "evaluation_interval": interval},
	}
	var jobs []any
	for _, t := range opts.Targets {
		jobs = append(jobs, map[string]any{
			"job_name":       t.Job,
			"static_configs": []any{map[string]any{"targets": t.Addresses}},
		})
	}
	cfg["scrape_configs"] = jobs
	if len(opts.RuleFiles) > 0 {
		cfg["rule_files"] = opts.RuleFiles
	}
	return yaml.Marshal(cfg)
}

func (p *Prometheus) writeConfig() error {
	data, err := Config(p.opts)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(p.opts.Dir, "prometheus.yml"), data, 0o600)
}

// WebConfig renders Prometheus' web configuration for web, with the serving certificate
// and key read from web-tls.crt and web-tls.key beside it.
func WebConfig(web Web) ([]byte, error) {
	cfg := map[string]any{}
	if web.tls() {
		cfg["tls_server_config"] = map[string]any{"cert_file": "web-tls.crt", "key_file": "web-tls.key"}
	}
	if len(web.Users) > 0 {
		users := map[string]string{}
		for name, password := range web.Users {
			// The lowest cost: Prometheus checks a password at every request it has not
			// cached, and these are test passwords.
			hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
			if err != nil {
				return nil, fmt.Errorf("hashing the password of %s: %w", name, err)
			}
			users[name] = string(hash)
		}
		cfg["basic_auth_users"] = users
	}
	return yaml.Marshal(cfg)
}

func (p *Prometheus) webConfigPath() string { return filepath.Join(p.opts.Dir, "web.yml") }

// writeWebConfig writes the web configuration and its certificate, each replaced in one
// rename: Prometheus may read them at any request.
func (p *Prometheus) writeWebConfig() error {
	if p.opts.Web == nil {
		return nil
	}
	data, err := WebConfig(*p.opts.Web)
	if err != nil {
		return err
	}
	files := []struct {
		name string
		data []byte
	}{{"web-tls.crt", p.opts.Web.CertPEM}, {"web-tls.key", p.opts.Web.KeyPEM}, {"web.yml", data}}
	for _, f := range files {
		path := filepath.Join(p.opts.Dir, f.name)
		if err := os.WriteFile(path+".new", f.data, 0o600); err != nil {
			return err
		}
		if err := os.Rename(path+".new", path); err != nil {
			return err
		}
	}
	return nil
}

// SetWeb replaces the web configuration: Prometheus reads it again at its next request
// or TLS handshake, without a restart. The scheme of URL stays as started.
func (p *Prometheus) SetWeb(web Web) error {
	if p.opts.Web == nil || web.tls() != p.opts.Web.tls() {
		return errors.New("promrunner: SetWeb cannot add or remove TLS, nor secure a Prometheus started without Options.Web")
	}
	p.opts.Web = &web
	return p.writeWebConfig()
}

// newClient is the runner's own HTTP client, for readiness and reloads: it authenticates
// as one of the current web users, and trusts whatever certificate its own child serves
// on loopback.
func (p *Prometheus) newClient() *http.Client {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // our own child process on loopback
	return &http.Client{Timeout: 10 * time.Second, Transport: roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if web := p.opts.Web; web != nil && len(web.Users) > 0 {
			user := slices.Sorted(maps.Keys(web.Users))[0]
			req = req.Clone(req.Context())
			req.SetBasicAuth(user, web.Users[user])
		}
		return transport.RoundTrip(req)
	})}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func (p *Prometheus) start() error {
	args := []string{
		"--config.file=" + filepath.Join(p.opts.Dir, "prometheus.yml"),
		"--storage.tsdb.path=" + filepath.Join(p.opts.Dir, "data"),
		"--web.listen-address=" + p.opts.ListenAddress,
		"--web.enable-lifecycle",
		"--log.level=warn",
	}
	if p.opts.Web != nil {
		args = append(args, "--web.config.file="+p.webConfigPath())
	}
	p.cmd = exec.Command(p.opts.Binary, args...)
	out := p.opts.Output
	if out == nil {
		out = io.Discard
	}
	p.cmd.Stdout, p.cmd.Stderr = out, out
	// Its own process group, so a Ctrl-C meant for the parent does not kill it first.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", p.opts.Binary, err)
	}
	done := make(chan struct{})
	p.done = done
	go func() { _ = p.cmd.Wait(); close(done) }()
	return nil
}

func (p *Prometheus) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("prometheus exited before it was ready (see its log)")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		resp, err := p.http.Get(p.URL + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("prometheus at %s not ready within %s", p.URL, timeout)
}

// SetTargets replaces the scrape targets and reloads the configuration.
func (p *Prometheus) SetTargets(targets []Target) error {
	p.opts.Targets = targets
	if err := p.writeConfig(); err != nil {
		return err
	}
	resp, err := p.http.Post(p.URL+"/-/reload", "text/plain", strings.NewReader(""))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("reloading prometheus: %s: %s", resp.Status, body)
	}
	return nil
}

// Kill stops Prometheus abruptly, keeping its data, so that Restart can bring it back:
// tests use it to take the metrics path away.
func (p *Prometheus) Kill() error {
	if p.cmd == nil || p.cmd.Process == nil {
		return nil
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	return nil
}

// Restart starts a killed Prometheus again on the same address with the same data.
func (p *Prometheus) Restart(ctx context.Context) error {
	if err := p.start(); err != nil {
		return err
	}
	return p.waitReady(ctx, time.Minute)
}

// Stop stops Prometheus gracefully and removes a temporary directory.
func (p *Prometheus) Stop() error {
	if p.cmd != nil && p.cmd.Process != nil {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.done:
			case <-time.After(10 * time.Second):
				_ = p.cmd.Process.Kill()
				<-p.done
			}
		}
	}
	if p.tempDir {
		return os.RemoveAll(p.opts.Dir)
	}
	return nil
}

// FreeLoopbackAddress returns 127.0.0.1:<port> for a port that was free a moment ago.
func FreeLoopbackAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	// The port is only free for the caller once the listener is closed.
	if err := l.Close(); err != nil {
		return "", err
	}
	return addr, nil
}
