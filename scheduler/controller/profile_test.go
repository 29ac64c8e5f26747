//go:build integration

package controller

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/seedscaler/seedscaler/test/framework/testenv"
	"k8s.io/client-go/rest"
)

// profileRound writes CPU profiles of the kube-apiserver and of this process (the
// scheduler) for the first 8 seconds of a round's binds, as apiserver-<round>.pprof and
// scheduler-<round>.pprof, when SEEDSCALER_BENCH_PROFILE names a directory: where a bind's
// CPU goes, for `go tool pprof`. The suite then starts the apiserver with --profiling.
func profileRound(b *testing.B, round int) {
	dir := os.Getenv("SEEDSCALER_BENCH_PROFILE")
	if dir == "" {
		return
	}
	self, err := os.Create(filepath.Join(dir, fmt.Sprintf("scheduler-%d.pprof", round)))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(self); err != nil {
		b.Fatal(err)
	}
	go func() {
		defer func() { pprof.StopCPUProfile(); _ = self.Close() }()
		hc, err := rest.HTTPClientFor(env.Config)
		if err != nil {
			b.Error(err)
			return
		}
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, strings.TrimSuffix(env.Config.Host, "/")+"/debug/pprof/profile?seconds=8", nil)
		if err := testenv.SaveProfile(hc, req, filepath.Join(dir, fmt.Sprintf("apiserver-%d.pprof", round))); err != nil {
			b.Errorf("profiling the kube-apiserver: %v", err)
		}
	}()
}
