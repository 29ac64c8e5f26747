package cluster

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A component is up once its health endpoint answers 200; another status or no answer
// says why not.
func TestAnswersOK(t *testing.T) {
	var status atomic.Int32
	status.Store(http.StatusServiceUnavailable)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(int(status.Load())) }))
	check := answersOK(server.URL + "/healthz")

	done, why := check(context.Background())
	assert.False(t, done)
	assert.Equal(t, "503 Service Unavailable", why)

	status.Store(http.StatusOK)
	done, why = check(context.Background())
	assert.True(t, done)
	assert.Equal(t, "200 OK", why)

	server.Close()
	done, why = check(context.Background())
	assert.False(t, done)
	assert.Contains(t, why, "connection refused")
}

// A kubepods cgroup that a crashed run left holds no process: the next run may remove it.
// One that holds a process belongs to a live kubelet or its containers: the run refuses.
func TestKubepodsProcesses(t *testing.T) {
	roots := []string{t.TempDir(), t.TempDir()}
	write := func(root, rel, content string) {
		dir := filepath.Join(root, "kubepods", rel)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(content), 0o644))
	}
	assert.False(t, kubepodsExists(roots), "no kubepods cgroup at all")

	write(roots[0], "", "")
	write(roots[0], "besteffort/pod1", "")
	write(roots[1], "burstable", "\n")
	assert.True(t, kubepodsExists(roots))
	assert.Empty(t, kubepodsProcesses(roots), "empty cgroups a crashed run left")

	write(roots[1], "burstable/pod2/c1", "4242\n4243\n")
	assert.Equal(t, []int{4242, 4243}, kubepodsProcesses(roots))
}

// The guards a crashed run left are found by their comment among the machine's rules, and
// deleted with exactly the arguments they were inserted with; other rules stay.
func TestGuardRules(t *testing.T) {
	rules := `-P POSTROUTING ACCEPT
-N KUBE-POSTROUTING
-A POSTROUTING -d 10.244.0.0/24 -o eth0 -m comment --comment "seedscaler-cluster guard" -j DROP
-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING
-A INPUT -i eth0 -p tcp -m multiport --dports 6443,10248:10259,12379,12380 -m comment --comment "seedscaler-cluster guard" -j DROP
`
	assert.Equal(t, [][]string{
		{"-w", "-t", "mangle", "-D", "POSTROUTING", "-d", "10.244.0.0/24", "-o", "eth0", "-m", "comment", "--comment", "seedscaler-cluster guard", "-j", "DROP"},
		{"-w", "-t", "mangle", "-D", "INPUT", "-i", "eth0", "-p", "tcp", "-m", "multiport", "--dports", "6443,10248:10259,12379,12380", "-m", "comment", "--comment", "seedscaler-cluster guard", "-j", "DROP"},
	}, guardRules("mangle", rules))
	assert.Empty(t, guardRules("filter", "-P INPUT ACCEPT\n"))
}
