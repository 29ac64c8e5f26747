// Package promrunner runs a real Prometheus server as a child process on loopback, with a
// generated scrape configuration: for integration tests of the metrics path, the e2e
// suite and `seedscaler local`.
package promrunner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

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
}

// Prometheus is a running Prometheus server.
type Prometheus struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:41234.
	URL string

	opts    Options
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
	if err := p.writeConfig(); err != nil {
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

func (p *Prometheus) start() error {
	p.cmd = exec.Command(p.opts.Binary,
		"--config.file="+filepath.Join(p.opts.Dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(p.opts.Dir, "data"),
		"--web.listen-address="+p.opts.ListenAddress,
		"--web.enable-lifecycle",
		"--log.level=warn",
	)
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
		resp, err := http.Get(p.URL + "/-/ready")
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
	resp, err := http.Post(p.URL+"/-/reload", "text/plain", strings.NewReader(""))
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
	defer l.Close()
	return l.Addr().String(), nil
}
