//go:build integration

package managedseed

import (
	"context"
	"fmt"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/seedscaler/seedscaler/internal/usage"
	"github.com/seedscaler/seedscaler/seedmanagement/seed"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

var env *testenv.Environment

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

// run starts a real kube-apiserver and the whole seed controller: the ManagedSeed
// controller and the seed lifecycle controller that feeds the usage index it reads.
func run(m *testing.M) int {
	return testenv.RunTests(testenv.Options{}, func(e *testenv.Environment) int {
		env = e
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: seed.LeaseNamespace}}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		mgr, err := manager.New(env.Config, manager.Options{
			Scheme:  env.Scheme,
			Metrics: metricsserver.Options{BindAddress: "0"},
			Cache:   cache.Options{ByObject: seed.CacheByObject()},
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		idx := usage.NewIndex()
		if err := (&seed.Reconciler{Usage: idx}).AddToManager(mgr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := (&Reconciler{Usage: idx}).AddToManager(ctx, mgr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return testenv.RunManagers(ctx, m.Run, mgr)
	})
}
