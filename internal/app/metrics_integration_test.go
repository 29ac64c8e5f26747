//go:build integration

package app

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// With --metrics-secure both ways of serving /metrics, a manager's and a part's own
// handler (exporter, adapter), answer HTTPS only: no token is 401, a token the kube-apiserver
// does not allow /metrics is 403, Prometheus' ServiceAccount with the metrics reader's rule
// gets the series.
func TestSecureMetricsServeOnlyAuthorizedScrapers(t *testing.T) {
	env, err := testenv.Start(testenv.Options{CRDDirectory: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = env.Stop() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs, err := kubernetes.NewForConfig(env.Config)
	require.NoError(t, err)

	token := func(name string) string {
		_, err := cs.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		require.NoError(t, err)
		tr, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		require.NoError(t, err)
		return tr.Status.Token
	}
	prometheus, nobody, profiler := token("prometheus"), token("nobody"), token("profiler")
	_, err = cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "metrics-reader"},
		Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "metrics-reader"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "metrics-reader"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "prometheus", Namespace: "default"}}}, metav1.CreateOptions{})
	require.NoError(t, err)

	_, err = cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "profiler"},
		Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/debug/pprof/*"}, Verbs: []string{"get"}}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "profiler"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "profiler"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "profiler", Namespace: "default"}}}, metav1.CreateOptions{})
	require.NoError(t, err)

	// A manager's metrics server.
	managerAddr := testenv.FreeLoopbackAddr(t)
	o := &Options{MetricsBindAddress: managerAddr, MetricsSecure: true, HealthProbeBindAddress: "0", Profiling: true}
	mgr, err := o.NewManager("metrics-test", env.Config, nil)
	require.NoError(t, err)
	go func() { _ = mgr.Start(ctx) }()
	// A part's own handler.
	ownAddr := testenv.FreeLoopbackAddr(t)
	done, err := StartMetrics(ctx, env.Config, ownAddr, true, true, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "garden_test 1\n")
	}))
	require.NoError(t, err)
	require.NotNil(t, done)

	// The certificate is self-signed: the scraper skips its verification, as the chart's
	// ServiceMonitors do.
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	get := func(url, token string) (int, string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := c.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	for name, target := range map[string]struct{ addr, series string }{
		"manager": {managerAddr, "go_goroutines"}, "own handler": {ownAddr, "garden_test 1"},
	} {
		t.Run(name, func(t *testing.T) {
			url := "https://" + target.addr + "/metrics"
			require.Eventually(t, func() bool { code, _ := get(url, ""); return code != 0 }, 30*time.Second, 100*time.Millisecond, "never served")
			code, _ := get(url, "")
			assert.Equal(t, http.StatusUnauthorized, code, "no token")
			code, _ = get(url, nobody)
			assert.Equal(t, http.StatusForbidden, code, "a token without /metrics")
			code, body := get(url, prometheus)
			assert.Equal(t, http.StatusOK, code, body)
			assert.Contains(t, body, target.series)
			code, _ = get("http://"+target.addr+"/metrics", prometheus)
			assert.NotEqual(t, http.StatusOK, code, "plain HTTP answered")
			// --profiling: the profiles are behind the same checks, and a right to /metrics
			// is no right to them.
			profiles := "https://" + target.addr + "/debug/pprof/"
			code, _ = get(profiles, "")
			assert.Equal(t, http.StatusUnauthorized, code, "profiles without a token")
			code, _ = get(profiles, prometheus)
			assert.Equal(t, http.StatusForbidden, code, "profiles with a right to /metrics only")
			code, body = get(profiles+"heap?debug=1", profiler)
			assert.Equal(t, http.StatusOK, code, body)
			assert.Contains(t, body, "heap profile")
		})
	}
	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the metrics server did not stop with its context")
	}
}
