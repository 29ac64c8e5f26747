//go:build integration

package simulator

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Run, given the flags `seedscaler-dev simulate` takes, plays its simulated duration against
// the cluster, prints progress lines, and then the timeline as CSV after an empty line.
func TestRunPlaysTheDurationAndWritesTheTimeline(t *testing.T) {
	kubeconfig, err := env.KubeconfigBytes()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, kubeconfig, 0o600))

	o := NewOptions()
	fs := pflag.NewFlagSet("simulate", pflag.ContinueOnError)
	o.AddFlags(fs)
	// An hour at 3600: one second of wall time, a sample every 15 simulated minutes.
	require.NoError(t, fs.Parse([]string{"--kubeconfig=" + path, "--metrics-bind-address=0",
		"--health-probe-bind-address=0", "--speed=3600", "--duration=1h"}))
	var out bytes.Buffer
	o.Out = &out

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, Run(ctx, o))

	progress, timeline, found := strings.Cut(out.String(), "\n\n")
	require.True(t, found, "no empty line before the timeline:\n%s", out.String())
	assert.Contains(t, progress, "sim ")
	rows, err := csv.NewReader(strings.NewReader(timeline)).ReadAll()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(rows), 2, "a header and samples:\n%s", timeline)
	assert.Equal(t, TimelineColumns(), rows[0])
	last, err := strconv.Atoi(rows[len(rows)-1][0])
	require.NoError(t, err)
	assert.GreaterOrEqual(t, last, 3600, "the last sample is taken once the simulated hour has passed")
}
