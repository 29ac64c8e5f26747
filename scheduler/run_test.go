//go:build integration

package scheduler

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// Run, given the flags `seedscaler scheduler` takes, turns ready on
// --health-probe-bind-address, serves its metrics on --metrics-bind-address, and stops
// without error when its context ends; a configuration file it cannot read stops it first.
func TestRunServesUntilStopped(t *testing.T) {
	testenv.QuietLogs()
	env, err := testenv.Start(testenv.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = env.Stop() })
	kubeconfig, err := env.KubeconfigBytes()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, kubeconfig, 0o600))

	metrics, health := testenv.FreeLoopbackAddr(t), testenv.FreeLoopbackAddr(t)
	parse := func(args ...string) *Options {
		o := NewOptions()
		fs := pflag.NewFlagSet("scheduler", pflag.ContinueOnError)
		o.AddFlags(fs)
		require.NoError(t, fs.Parse(append([]string{"--kubeconfig=" + path, "--metrics-bind-address=" + metrics,
			"--health-probe-bind-address=" + health}, args...)))
		return o
	}

	err = Run(context.Background(), parse("--config="+filepath.Join(t.TempDir(), "missing.yaml")))
	require.ErrorContains(t, err, "reading the scheduler configuration")

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, parse("--leader-elect", "--leader-election-namespace=default")) }()
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		for _, url := range []string{"http://" + health + "/readyz", "http://" + metrics + "/metrics"} {
			resp, err := http.Get(url)
			if assert.NoError(c, err) {
				resp.Body.Close()
				assert.Equal(c, http.StatusOK, resp.StatusCode, url)
			}
		}
	}, 30*time.Second, 100*time.Millisecond)
	stop()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}
