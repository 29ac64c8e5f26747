//go:build integration

package garden

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/test/framework/schedulerdiff"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// On the project's landscape (every filter, both strategies), seedscaler's scheduler with
// Gardener's profile places at least 99% of the shoots where gardener-scheduler does, and
// every shoot it places is bound through gardener-apiserver's admission.
func TestSchedulerAgreesWithGardener(t *testing.T) {
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	landscape, err := os.ReadFile(filepath.Join(root, "examples", "gardener", "scheduler-diff.yaml"))
	require.NoError(t, err)
	for _, strategy := range []string{"SameRegion", "MinimalDistance"} {
		t.Run(strategy, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
			defer cancel()
			logDir := t.TempDir()
			res, err := schedulerdiff.Run(ctx, schedulerdiff.Options{
				Landscape: landscape, Strategy: strategy, SeedscalerBinary: seedscaler,
				ShootTimeout: time.Minute, LogDir: logDir,
			})
			if err != nil {
				printLogs(t, filepath.Join(logDir, "gardener"))
				printLogs(t, filepath.Join(logDir, "seedscaler"))
			}
			require.NoError(t, err)
			for _, p := range res.Placements {
				if !p.Agree() {
					t.Logf("differ: %s gardener=%q seedscaler=%q", p.Shoot, p.Gardener, p.Seedscaler)
				}
			}
			t.Logf("agreement: %d of %d shoots", res.Agreed(), len(res.Placements))
			assert.GreaterOrEqual(t, res.Agreement(), 0.99)
		})
	}
}
