//go:build integration

package seed

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// testGracePeriod is short so the integration test sees heartbeats go stale quickly; the
// test never depends on its exact length.
const testGracePeriod = 3 * time.Second

var env *testenv.Environment

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	return testenv.RunTests(testenv.Options{}, func(e *testenv.Environment) int {
		env = e
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: LeaseNamespace}}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		mgr, err := manager.New(env.Config, manager.Options{
			Scheme:  env.Scheme,
			Metrics: metricsserver.Options{BindAddress: "0"},
			Cache:   cache.Options{ByObject: CacheByObject()},
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		r := &Reconciler{Usage: usage.NewIndex(), GracePeriod: testGracePeriod}
		if err := r.AddToManager(mgr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return testenv.RunManagers(ctx, m.Run, mgr)
	})
}
