package adapter

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	promapi "github.com/prometheus/client_golang/api"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/custom-metrics-apiserver/pkg/provider"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	"github.com/seedscaler/seedscaler/test/framework/pki"
	"github.com/seedscaler/seedscaler/test/framework/promrunner"
)

// secretVolume is a directory written as the kubelet writes a Secret's volume: the files
// are symlinks into ..data, itself a symlink to a directory of this version, so that an
// update swaps every file at once.
type secretVolume struct {
	dir     string
	version int
}

func newSecretVolume(t testing.TB, files map[string]string) *secretVolume {
	t.Helper()
	v := &secretVolume{dir: t.TempDir()}
	v.update(t, files)
	return v
}

func (v *secretVolume) path(name string) string { return filepath.Join(v.dir, name) }

// update replaces the volume's files with files, in one rename of ..data.
func (v *secretVolume) update(t testing.TB, files map[string]string) {
	t.Helper()
	v.version++
	version := fmt.Sprintf("..version-%d", v.version)
	require.NoError(t, os.Mkdir(filepath.Join(v.dir, version), 0o755))
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(v.dir, version, name), []byte(content), 0o600))
		if _, err := os.Lstat(v.path(name)); os.IsNotExist(err) {
			require.NoError(t, os.Symlink(filepath.Join("..data", name), v.path(name)))
		}
	}
	require.NoError(t, os.Symlink(version, v.path("..data_tmp")))
	require.NoError(t, os.Rename(v.path("..data_tmp"), v.path("..data")))
}

// An unreadable or invalid client configuration stops the adapter before it does anything,
// naming the file and the field.
func TestBadClientConfigurationStopsStartUp(t *testing.T) {
	ca, err := pki.NewCA("prometheus-ca")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.crt"), ca.CertPEM(), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "not-a-ca.crt"), []byte("hello"), 0o600))
	tests := []struct {
		name, config string
		want         []string
	}{
		{"misspelled field", "basic_auth: {username: adapter, passwrd_file: password}", []string{": line 1: field passwrd_file not found in type config.plain"}},
		{"missing password file", "basic_auth: {username: adapter, password_file: password}", []string{"basic_auth.password_file: open " + filepath.Join(dir, "password")}},
		{"missing bearer token file", "bearer_token_file: /var/run/secrets/tokens/none", []string{"bearer_token_file: open /var/run/secrets/tokens/none"}},
		{"missing credentials file", "authorization: {credentials_file: token}", []string{"authorization.credentials_file: open " + filepath.Join(dir, "token")}},
		{"missing header file", "http_headers: {X-Scope-OrgID: {files: [tenant]}}", []string{"http_headers.X-Scope-OrgID.files[0]: open"}},
		{"missing client certificate", "tls_config: {ca_file: ca.crt, cert_file: tls.crt, key_file: tls.key}", []string{"tls_config.cert_file: open", "tls_config.key_file: open"}},
		{"CA file that holds no certificate", "tls_config: {ca_file: not-a-ca.crt}", []string{"tls_config: unable to use specified CA cert file " + filepath.Join(dir, "not-a-ca.crt")}},
		{"secret reference", "basic_auth: {username: adapter, password_ref: prometheus}", []string{"basic_auth.password_ref: secret references are not supported, use basic_auth.password_file"}},
		{"two kinds of credentials", "basic_auth: {username: a, password: b}\nbearer_token: c", []string{"at most one of basic_auth, oauth2, bearer_token & bearer_token_file"}},
		{"reserved header", "http_headers: {Authorization: {values: [x]}}", []string{`setting header "Authorization" is not allowed`}},
		{"not YAML", "tls_config: [", []string{"yaml:"}},
		{"value a field's decoder refuses", "tls_config:\n  min_version: TLS99", []string{": line 2: unknown TLS version: TLS99"}},
		{"not UTF-8", "basic_auth: {username: caf\xe9}", []string{": line 1, column 27: byte 0xe9 is not UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "client.yaml")
			require.NoError(t, os.WriteFile(path, []byte(tt.config), 0o600))
			o, _ := adapterOptions(t, "--prometheus-url=https://prometheus.example:9090", "--prometheus-client-config="+path)
			err := Run(context.Background(), o)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "--prometheus-client-config "+path+": ")
			for _, want := range tt.want {
				assert.Contains(t, err.Error(), want)
			}
		})
	}

	t.Run("unreadable file", func(t *testing.T) {
		path := filepath.Join(dir, "none.yaml")
		o, _ := adapterOptions(t, "--prometheus-url=https://prometheus.example:9090", "--prometheus-client-config="+path)
		err := Run(context.Background(), o)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "--prometheus-client-config: open "+path+": no such file or directory")
	})
}

// A password in --prometheus-url is never shown: not in errors, not in what the adapter
// logs.
func TestPasswordOfThePrometheusURLIsNeverShown(t *testing.T) {
	for raw, want := range map[string]string{
		"https://adapter:s3cret@thanos.example:9091/prefix": "https://adapter:xxxxx@thanos.example:9091/prefix",
		"https://adapter@thanos.example:9091":               "https://adapter@thanos.example:9091",
		"https://thanos.example:9091":                       "https://thanos.example:9091",
		"https://adapter:s3c/ret@thanos.example:9091":       "https://xxxxx@thanos.example:9091",
		"adapter:s3c/ret@thanos.example:9091":               "xxxxx@thanos.example:9091",
	} {
		assert.Equal(t, want, redactURL(raw), raw)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "client.yaml")
	require.NoError(t, os.WriteFile(path, []byte("basic_auth: {username: adapter, password: other}"), 0o600))
	for _, tt := range []struct {
		name string
		args []string
		// shown is how the error or the log shows the URL.
		shown string
	}{
		{"not a URL", []string{"--prometheus-url=https://adapter:s3c/ret@thanos.example:9091"}, "https://xxxxx@thanos.example:9091"},
		{"not http", []string{"--prometheus-url=ftp://adapter:s3cret@thanos.example"}, "ftp://adapter:xxxxx@thanos.example"},
		{"credentials twice", []string{"--prometheus-url=https://adapter:s3cret@thanos.example:9091", "--prometheus-client-config=" + path}, "https://adapter:xxxxx@thanos.example:9091"},
		// Logged before the adapter stops: it has no cluster to talk to.
		{"credentials in the URL", []string{"--prometheus-url=https://adapter:s3cret@127.0.0.1:1", "--kubeconfig=" + filepath.Join(dir, "none")}, "https://adapter:xxxxx@127.0.0.1:1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var (
				mu     sync.Mutex
				logged strings.Builder
			)
			log := funcr.New(func(prefix, args string) {
				mu.Lock()
				defer mu.Unlock()
				fmt.Fprintln(&logged, prefix, args)
			}, funcr.Options{Verbosity: 10})
			o, _ := adapterOptions(t, tt.args...)
			err := Run(logr.NewContext(context.Background(), log), o)
			require.Error(t, err)
			mu.Lock()
			defer mu.Unlock()
			shown := err.Error() + "\n" + logged.String()
			assert.NotContains(t, shown, "s3c")
			assert.Contains(t, shown, tt.shown)
		})
	}
}

// The adapter reads its client configuration again when the file changes, as a Secret's
// volume changes it: new headers and credentials apply without a restart, and a broken
// file keeps the last good one, logged once.
func TestClientConfigurationIsReloadedWhenItChanges(t *testing.T) {
	tenants := make(chan string, 1)
	prom := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		tenants <- r.Header.Get("X-Scope-OrgID")
	}))
	t.Cleanup(prom.Close)
	tenantConfig := func(tenant string) map[string]string {
		return map[string]string{"client.yaml": "http_headers: {X-Scope-OrgID: {values: [" + tenant + "]}}"}
	}
	volume := newSecretVolume(t, tenantConfig("tenant-a"))
	o, _ := adapterOptions(t, "--prometheus-url="+prom.URL, "--prometheus-client-config="+volume.path("client.yaml"))
	client, transport, err := o.prometheusClient()
	require.NoError(t, err)
	var (
		mu     sync.Mutex
		logged strings.Builder
	)
	log := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(&logged, prefix, args)
	}, funcr.Options{})
	logs := func() string {
		mu.Lock()
		defer mu.Unlock()
		return logged.String()
	}
	clk := clocktesting.NewFakeClock(time.Now())
	ctx, cancel := context.WithCancel(logr.NewContext(context.Background(), log))
	t.Cleanup(cancel)
	go transport.watch(ctx, clk, 10*time.Second)
	tenant := func() string {
		resp, err := client.Get(prom.URL)
		if err != nil {
			return err.Error()
		}
		_ = resp.Body.Close()
		return <-tenants
	}
	// Once the watch waits for its ticker, every step is a look at the file.
	look := func() {
		require.Eventually(t, clk.HasWaiters, 10*time.Second, time.Millisecond)
		clk.Step(10 * time.Second)
	}
	assert.Equal(t, "tenant-a", tenant())

	volume.update(t, tenantConfig("tenant-b"))
	require.Eventually(t, func() bool { look(); return tenant() == "tenant-b" }, 10*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool { return strings.Contains(logs(), `"msg"="Reloaded the Prometheus client configuration"`) }, 10*time.Second, 10*time.Millisecond)

	volume.update(t, map[string]string{"client.yaml": "http_headers: ["})
	for range 3 {
		look()
	}
	require.Eventually(t, func() bool { return strings.Contains(logs(), "Keeping the Prometheus client configuration in use") }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, "tenant-b", tenant(), "a broken file keeps the configuration in use")
	assert.Equal(t, 1, strings.Count(logs(), "Keeping the Prometheus client configuration in use"), "a broken file is reported once:\n%s", logs())
	assert.Contains(t, logs(), volume.path("client.yaml"), "the error names the file")

	volume.update(t, tenantConfig("tenant-c"))
	require.Eventually(t, func() bool { look(); return tenant() == "tenant-c" }, 10*time.Second, 10*time.Millisecond)

	// A file the configuration names that comes after it.
	volume.update(t, map[string]string{"client.yaml": "http_headers: {X-Scope-OrgID: {files: [tenant]}}"})
	require.Eventually(t, func() bool { look(); return strings.Contains(logs(), "http_headers.X-Scope-OrgID.files[0]: open") }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, "tenant-c", tenant())
	require.NoError(t, os.WriteFile(volume.path("tenant"), []byte("tenant-d\n"), 0o600))
	require.Eventually(t, func() bool { look(); return tenant() == "tenant-d" }, 10*time.Second, 10*time.Millisecond)
}

// staticObjects are the names of the objects of every resource.
type staticObjects []string

func (s staticObjects) Names(schema.GroupResource, string, labels.Selector) ([]string, error) {
	return s, nil
}

// Prometheus refusing the adapter's credentials is an error that says so on every path a
// request takes: a list, one object, an external metric, and a metric only discovery
// could have named. It is never "not found", which a caller takes for missing data.
func TestRefusedCredentialsAreAnErrorNotMissingData(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		// What Mimir says without an X-Scope-OrgID header.
		http.Error(w, "no org id", http.StatusUnauthorized)
	}))
	t.Cleanup(server.Close)
	cfg, err := ParseConfig([]byte(`
values: {cacheTTL: 0s}
rules:
- name: seeds
  seriesQuery: '{__name__=~"garden_seed_.+",name!=""}'
  resource: {group: core.gardener.cloud, resource: seeds}
  objectLabel: name
- name: renamed
  seriesQuery: '{__name__=~"garden_seed_.+",name!=""}'
  resource: {group: core.gardener.cloud, resource: seeds}
  objectLabel: name
  metricName: {matches: 'garden_seed_(.+)', as: 'seed_$1'}
externalRules:
- name: seeds
  seriesQuery: '{__name__=~"garden_seed_.+",name!=""}'
  groupBy: [name]
`))
	require.NoError(t, err)
	client, err := promapi.NewClient(promapi.Config{Address: server.URL})
	require.NoError(t, err)
	metrics, err := NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	seeds := seedsResource.GroupResource()
	p := NewProvider(cfg, client, server.Client(), clocktesting.NewFakeClock(time.Now()), metrics,
		map[schema.GroupResource]schema.GroupVersionKind{seeds: gardencorev1beta1.GroupVersion.WithKind("Seed")}, nil, staticObjects{"a"})
	ctx := context.Background()
	err = p.discoverer().refresh(ctx)
	require.Error(t, err)
	const want = "Prometheus refused the adapter's credentials (HTTP 401 Unauthorized: no org id): check --prometheus-client-config"
	assert.Contains(t, err.Error(), want, "discovery logs it")

	usage := provider.CustomMetricInfo{GroupResource: seeds, Metric: "garden_seed_usage"}
	_, listErr := p.GetMetricBySelector(ctx, "", labels.Everything(), usage, labels.Everything())
	_, oneErr := p.GetMetricByName(ctx, types.NamespacedName{Name: "a"}, usage, labels.Everything())
	_, renamedErr := p.GetMetricBySelector(ctx, "", labels.Everything(), provider.CustomMetricInfo{GroupResource: seeds, Metric: "seed_usage"}, labels.Everything())
	_, externalErr := p.GetExternalMetric(ctx, "default", labels.Everything(), provider.ExternalMetricInfo{Metric: "garden_seed_usage"})
	for name, err := range map[string]error{"list": listErr, "one object": oneErr, "renamed metric": renamedErr, "external metric": externalErr} {
		require.Error(t, err, name)
		assert.False(t, apierrors.IsNotFound(err), "%s: not found: %v", name, err)
		assert.True(t, apierrors.IsServiceUnavailable(err), "%s: %v", name, err)
		assert.Contains(t, err.Error(), want, name)
	}
}

// adapterOptions parses the adapter's flags: args, and serving on a free loopback port
// (returned) with its own metrics and health servers off.
func adapterOptions(t testing.TB, args ...string) (*Options, string) {
	t.Helper()
	addr, err := promrunner.FreeLoopbackAddress()
	require.NoError(t, err)
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	o := NewOptions()
	fs := pflag.NewFlagSet("adapter", pflag.ContinueOnError)
	o.AddFlags(fs)
	require.NoError(t, fs.Parse(append([]string{
		"--secure-port=" + port, "--bind-address=127.0.0.1",
		"--metrics-bind-address=0", "--health-probe-bind-address=0",
	}, args...)))
	return o, addr
}
