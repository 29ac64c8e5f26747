//go:build integration

package testenv

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/test/framework/proc"
)

// A crashed kube-apiserver or etcd comes back with what was stored, on the same address,
// and Stop leaves no process of the environment behind.
func TestCrashRestartsWithTheSameStateAndStopEndsIt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env, err := Start(Options{})
	require.NoError(t, err)
	stopped := false
	defer func() {
		if !stopped {
			_ = env.Stop()
		}
	}()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kept"}}
	require.NoError(t, env.Client.Create(ctx, ns))

	for _, name := range []string{"kube-apiserver", "etcd"} {
		before, _, err := listenerOf(t, env, name)
		require.NoError(t, err)
		require.NoError(t, env.Crash(ctx, name))
		after, _, err := listenerOf(t, env, name)
		require.NoError(t, err)
		assert.NotEqual(t, before, after, "%s was not started again", name)
		assert.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(ns), &corev1.Namespace{}), "the namespace is gone after %s crashed", name)
	}
	assert.Error(t, env.Crash(ctx, "kubelet"), "only the control plane can crash")

	require.NoError(t, env.Stop())
	stopped = true
	procs, err := proc.List(proc.Root)
	require.NoError(t, err)
	for _, p := range proc.Descendants(procs, os.Getpid()) {
		assert.NotContains(t, []string{"kube-apiserver", "etcd"}, p.Comm, "pid %d outlived Stop", p.PID)
	}
}

func listenerOf(t *testing.T, env *Environment, name string) (int, []string, error) {
	t.Helper()
	addr, err := env.address(name)
	require.NoError(t, err)
	return listener(name, addr)
}
