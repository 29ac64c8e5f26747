//go:build integration

package chart

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/tools/clientcmd"
	certutil "k8s.io/client-go/util/cert"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// syncBuffer is a process' output, read while it runs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Each controller part runs, with the arguments its Deployment has, as its own
// ServiceAccount against a kube-apiserver the chart was installed into: its caches sync
// (every watch is allowed where the Roles put it) and nothing it does is forbidden. The
// lock parts run in object-locks mode, so the lock Roles are what they use.
func TestEveryControllerRunsWithItsRights(t *testing.T) {
	env, kubeconfig, kcFile := apiServer(t)
	const ns = "seedscaler-system"
	out, err := helm(t, "install", "seedscaler", chartDir(t), "--kubeconfig", kcFile, "--namespace", ns, "--create-namespace", "--wait=false",
		"--set", "seedController.replicasMode=object-locks,seedController.leaderElect=false",
		"--set", "setController.replicasMode=object-locks,setController.leaderElect=false",
		"--set", "autoscaler.replicasMode=object-locks,autoscaler.leaderElect=false")
	require.NoError(t, err, out)
	bin, err := testenv.BuildSeedscaler(t.TempDir(), testenv.Shipped)
	require.NoError(t, err)

	for _, part := range []string{"scheduler", "seed-controller", "set-controller", "autoscaler", "exporter"} {
		t.Run(part, func(t *testing.T) {
			d := &appsv1.Deployment{}
			require.NoError(t, env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "seedscaler-" + part}, d))
			cfg, err := clientcmd.Load(kubeconfig)
			require.NoError(t, err)
			for _, auth := range cfg.AuthInfos {
				auth.Impersonate = fmt.Sprintf("system:serviceaccount:%s:%s", ns, d.Spec.Template.Spec.ServiceAccountName)
			}
			kc := filepath.Join(t.TempDir(), "kubeconfig")
			require.NoError(t, clientcmd.WriteToFile(*cfg, kc))

			// The Deployment's arguments, on loopback ports; a scheduler configuration file
			// is not mounted here and has no bearing on its rights. The scheduler's webhook
			// serves from a certificate of the test's own, as it would from its Secret.
			var args []string
			for _, a := range d.Spec.Template.Spec.Containers[0].Args {
				switch {
				case strings.HasPrefix(a, "--metrics-bind-address="), strings.HasPrefix(a, "--health-probe-bind-address="),
					strings.HasPrefix(a, "--config="):
				case strings.HasPrefix(a, "--webhook-port="):
					_, port, err := net.SplitHostPort(testenv.FreeLoopbackAddr(t))
					require.NoError(t, err)
					args = append(args, "--webhook-port="+port)
				case strings.HasPrefix(a, "--webhook-cert-dir="):
					args = append(args, "--webhook-cert-dir="+servingCertDir(t))
				default:
					args = append(args, a)
				}
			}
			health := testenv.FreeLoopbackAddr(t)
			args = append(args, "--kubeconfig="+kc, "--metrics-bind-address="+testenv.FreeLoopbackAddr(t), "--health-probe-bind-address="+health)

			ctx, cancel := context.WithCancel(context.Background())
			var output syncBuffer
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Env = append(cmd.Environ(), "POD_NAME="+part+"-0", "POD_NAMESPACE="+ns)
			cmd.Stdout, cmd.Stderr = &output, &output
			require.NoError(t, cmd.Start())
			defer func() {
				cancel()
				_ = cmd.Wait()
			}()

			// Controllers start their workers once their caches have synced; the exporter
			// is ready once its informers have.
			synced := func() bool {
				if part == "exporter" {
					return readyz(health)
				}
				return strings.Contains(output.String(), "Starting workers")
			}
			deadline := time.Now().Add(90 * time.Second)
			tick := time.NewTicker(200 * time.Millisecond)
			defer tick.Stop()
			for !synced() && !strings.Contains(output.String(), "forbidden") && time.Now().Before(deadline) {
				<-tick.C
			}
			assert.True(t, synced(), "%s never synced its caches:\n%s", part, output.String())
			assert.NotContains(t, output.String(), "forbidden", "%s was refused something:\n%s", part, output.String())
		})
	}
}

// servingCertDir writes a self-signed tls.crt and tls.key for localhost into a new
// directory, as a part's serving certificate Secret is mounted.
func servingCertDir(t *testing.T) string {
	t.Helper()
	cert, key, err := certutil.GenerateSelfSignedCertKey("localhost", []net.IP{net.IPv4(127, 0, 0, 1)}, nil)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tls.crt"), cert, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tls.key"), key, 0o600))
	return dir
}

// readyz reports whether the health server on addr answers /readyz with 200.
func readyz(addr string) bool {
	resp, err := probeClient.Get("http://" + addr + "/readyz")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	return resp.StatusCode == 200
}

var probeClient = http.Client{Timeout: 2 * time.Second}
