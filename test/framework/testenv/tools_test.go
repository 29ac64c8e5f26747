//go:build integration

package testenv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A development build returns cmd/seedscaler-dev with cmd/seedscaler beside it, whose
// parts its demo runs; a shipped build returns cmd/seedscaler alone.
func TestBuildSeedscaler(t *testing.T) {
	for _, tc := range []struct {
		build Build
		want  string
		built []string
	}{
		{Development, "seedscaler-dev", []string{"seedscaler", "seedscaler-dev"}},
		{Shipped, "seedscaler", []string{"seedscaler"}},
	} {
		t.Run(string(tc.build), func(t *testing.T) {
			dir := t.TempDir()
			bin, err := BuildSeedscaler(dir, tc.build)
			require.NoError(t, err)
			assert.Equal(t, filepath.Join(dir, tc.want), bin)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			var names []string
			for _, e := range entries {
				info, err := e.Info()
				require.NoError(t, err)
				assert.NotZero(t, info.Mode()&0o111, "%s is not executable", e.Name())
				names = append(names, e.Name())
			}
			assert.ElementsMatch(t, tc.built, names)
		})
	}
}
