//go:build integration

package seedcontroller

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

// Run, given the flags `seedscaler seed-controller` takes, turns ready on
// --health-probe-bind-address, serves its metrics on --metrics-bind-address, and stops
// without error when its context ends; a bad --default-seed-capacity stops it first.
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
		fs := pflag.NewFlagSet("seed-controller", pflag.ContinueOnError)
		o.AddFlags(fs)
		require.NoError(t, fs.Parse(append([]string{"--kubeconfig=" + path, "--metrics-bind-address=" + metrics,
			"--health-probe-bind-address=" + health}, args...)))
		return o
	}

	err = Run(context.Background(), parse("--default-seed-capacity=shoots=lots"))
	require.ErrorContains(t, err, "--default-seed-capacity")

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, parse("--replicas-mode=object-locks", "--lock-namespace=default", "--lock-holder=seed-controller-0"))
	}()
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
