//go:build integration

package exporter

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

func get(url string) (int, string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// Run, given the flags `seedscaler exporter` takes, serves the seeds' series on
// --metrics-bind-address and turns ready on --health-probe-bind-address once its informers
// have synced; when its context ends it stops, without error, and frees both addresses.
func TestRunServesMetricsFromTheFlagsUntilStopped(t *testing.T) {
	ctx := context.Background()
	createSeed(ctx, t, builders.MakeSeed("run-a").Allocatable(10).Ready().Obj())
	kubeconfig, err := env.KubeconfigBytes()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, kubeconfig, 0o600))

	metrics, health := testenv.FreeLoopbackAddr(t), testenv.FreeLoopbackAddr(t)
	o := NewOptions()
	fs := pflag.NewFlagSet("exporter", pflag.ContinueOnError)
	o.AddFlags(fs)
	require.NoError(t, fs.Parse([]string{"--kubeconfig=" + path, "--metrics-bind-address=" + metrics,
		"--health-probe-bind-address=" + health, "--leader-elect"}))

	runCtx, stop := context.WithCancel(logr.NewContext(ctx, testr.New(t)))
	defer stop()
	done := make(chan error, 1)
	go func() { done <- Run(runCtx, o) }()

	require.EventuallyWithT(t, func(c *assert.CollectT) {
		code, _, err := get("http://" + health + "/readyz")
		if assert.NoError(c, err) {
			assert.Equal(c, http.StatusOK, code)
		}
		code, body, err := get("http://" + metrics + "/metrics")
		if assert.NoError(c, err) {
			assert.Equal(c, http.StatusOK, code)
			assert.Regexp(c, `garden_seed_usage\{[^}]*name="run-a"`, body)
			assert.Contains(c, body, "go_goroutines", "the process's own metrics, from controller-runtime's registry")
		}
	}, 30*time.Second, 100*time.Millisecond)

	stop()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	for _, addr := range []string{metrics, health} {
		l, err := net.Listen("tcp", addr)
		require.NoError(t, err, "%s is still taken after Run returned", addr)
		require.NoError(t, l.Close())
	}
}
