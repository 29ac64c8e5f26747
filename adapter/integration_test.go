//go:build integration

package adapter

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	cmclient "k8s.io/metrics/pkg/client/custom_metrics"
	emclient "k8s.io/metrics/pkg/client/external_metrics"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	gardencorev1beta1 "github.com/seedscaler/seedscaler/api/core/v1beta1"
	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
	"github.com/seedscaler/seedscaler/exporter"
	"github.com/seedscaler/seedscaler/internal/app"
	"github.com/seedscaler/seedscaler/test/framework/aggregation"
	"github.com/seedscaler/seedscaler/test/framework/builders"
	"github.com/seedscaler/seedscaler/test/framework/pki"
	"github.com/seedscaler/seedscaler/test/framework/promrunner"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// env is the real kube-apiserver (with the aggregation layer) and etcd the integration
// tests share.
var env *testenv.Environment

const (
	adapterNamespace = "seedscaler-adapter-test"
	adapterService   = "seedscaler-adapter"
)

func TestMain(m *testing.M) {
	// The kube-apiserver reaches the in-process adapter through an ExternalName Service
	// "localhost": routing to endpoints would need a non-loopback address, which
	// EndpointSlice validation refuses for 127.0.0.1.
	os.Exit(testenv.RunTests(testenv.Options{Aggregation: true, ExtraAPIServerArgs: map[string]string{"enable-aggregator-routing": "false"}}, func(e *testenv.Environment) int {
		env = e
		return m.Run()
	}))
}

// landscape is a running exporter scraped by a real Prometheus, with an adapter registered
// as the APIService of both metrics APIs.
type landscape struct {
	prom *promrunner.Prometheus
	// adapterURL is the adapter's own address, for requests that bypass the kube-apiserver.
	adapterURL string
	// metricsURL and healthURL are the adapter's plain HTTP servers.
	metricsURL, healthURL string
	ca                    *pki.CA
}

func createSeed(ctx context.Context, t testing.TB, seed *gardencorev1beta1.Seed) {
	t.Helper()
	status := seed.Status
	require.NoError(t, env.Client.Create(ctx, seed))
	seed.Status = status
	require.NoError(t, env.Client.Status().Update(ctx, seed))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), seed) })
}

// startLandscape runs the exporter, Prometheus and the adapter until the test ends.
// configYAML replaces the built-in rules when not empty; Prometheus also scrapes the extra
// targets.
func startLandscape(t testing.TB, configYAML string, extra ...promrunner.Target) *landscape {
	t.Helper()
	return startLandscapeWith(t, landscapeOptions{config: configYAML, targets: extra})
}

// landscapeOptions vary the landscape of startLandscapeWith.
type landscapeOptions struct {
	// config replaces the built-in rules when not empty.
	config string
	// targets are scraped by Prometheus besides the exporter.
	targets []promrunner.Target
	// web secures Prometheus' own HTTP server.
	web *promrunner.Web
	// adapterArgs are flags of the adapter besides the chart's.
	adapterArgs []string
}

// startLandscapeWith runs the exporter, Prometheus and the adapter until the test ends.
func startLandscapeWith(t testing.TB, opts landscapeOptions) *landscape {
	t.Helper()
	ctx, cancel := context.WithCancel(logr.NewContext(context.Background(), testr.NewWithInterface(t, testr.Options{Verbosity: 0})))
	t.Cleanup(cancel)

	// The exporter, served on loopback.
	exp, err := exporter.New(ctx, env.Config, clock.RealClock{})
	require.NoError(t, err)
	go func() { _ = exp.Start(ctx) }()
	require.Eventually(t, func() bool { return exp.Ready() == nil }, 30*time.Second, 50*time.Millisecond)
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(exp.Collector()))
	exporterListener, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	exporterServer := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = exporterServer.Serve(exporterListener) }()
	t.Cleanup(func() { _ = exporterServer.Close() })

	bin, err := testenv.Tool("prometheus")
	require.NoError(t, err)
	prom, err := promrunner.Start(ctx, promrunner.Options{Binary: bin, ScrapeInterval: time.Second, Web: opts.web,
		Targets: append([]promrunner.Target{{Job: "exporter", Addresses: []string{exporterListener.Addr().String()}}}, opts.targets...)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = prom.Stop() })

	l := &landscape{prom: prom}
	l.startAdapter(ctx, t, opts.config, opts.adapterArgs...)
	return l
}

// startAdapter runs the adapter in-process on a loopback port with a serving certificate
// for its Service, and registers it as the APIService of both metrics APIs.
func (l *landscape) startAdapter(ctx context.Context, t testing.TB, configYAML string, extraArgs ...string) {
	t.Helper()
	args := append(l.chartFlags(ctx, t, t.TempDir(), configYAML), extraArgs...)
	metricsAddr, err := promrunner.FreeLoopbackAddress()
	require.NoError(t, err)
	healthAddr, err := promrunner.FreeLoopbackAddress()
	require.NoError(t, err)
	l.metricsURL, l.healthURL = "http://"+metricsAddr, "http://"+healthAddr
	args = append(args, "--metrics-bind-address="+metricsAddr, "--health-probe-bind-address="+healthAddr)
	o, addr := adapterOptions(t, args...)
	// A changed client configuration is seen within a fraction of a second, not ten.
	o.PrometheusClientConfigReloadInterval = 200 * time.Millisecond
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(30 * time.Second):
			t.Error("the adapter did not stop")
		}
	})
	l.adapterURL = "https://" + addr
	portNumber, err := strconv.Atoi(port)
	require.NoError(t, err)
	registerAPIServices(ctx, t, int32(portNumber), l.ca.CertPEM())
}

// chartFlags makes the adapter's CA (l.ca) and a serving certificate for its Service,
// writes them, a least-privilege kubeconfig and configYAML (the built-in rules when empty)
// into dir, and returns the flags the chart passes the adapter for them and l.prom.
func (l *landscape) chartFlags(ctx context.Context, t testing.TB, dir, configYAML string) []string {
	t.Helper()
	var err error
	l.ca, err = pki.NewCA("adapter-ca")
	require.NoError(t, err)
	serving, err := l.ca.NewServingCert(adapterService+"."+adapterNamespace+".svc", "localhost", "127.0.0.1")
	require.NoError(t, err)
	files := map[string][]byte{"tls.crt": serving.CertPEM, "tls.key": serving.KeyPEM, "kubeconfig": leastPrivilegeKubeconfig(ctx, t)}
	if configYAML != "" {
		files["rules.yaml"] = []byte(configYAML)
	}
	for name, data := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o600))
	}
	args := []string{
		"--tls-cert-file=" + filepath.Join(dir, "tls.crt"), "--tls-private-key-file=" + filepath.Join(dir, "tls.key"),
		"--prometheus-url=" + l.prom.URL, "--kubeconfig=" + filepath.Join(dir, "kubeconfig"),
	}
	if configYAML != "" {
		args = append(args, "--config="+filepath.Join(dir, "rules.yaml"))
	}
	return args
}

// adapterUser is who the adapter runs as in the tests: a user with only what the chart
// grants the adapter's ServiceAccount.
const adapterUser = "seedscaler-adapter-test"

// leastPrivilegeKubeconfig returns a kubeconfig of adapterUser, bound to the ClusterRole
// generated from the adapter's RBAC markers, system:auth-delegator, and the
// extension-apiserver-authentication-reader Role, as the chart binds them.
func leastPrivilegeKubeconfig(ctx context.Context, t testing.TB) []byte {
	t.Helper()
	root, err := testenv.RepositoryRoot()
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(root, "charts", "seedscaler", "files", "rbac", "adapter", "role.yaml"))
	require.NoError(t, err)
	role := &rbacv1.ClusterRole{}
	require.NoError(t, yaml.Unmarshal(data, role))
	subjects := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: adapterUser}}
	for _, obj := range []client.Object{
		role,
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: adapterUser},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   subjects,
		},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: adapterUser + "-auth-delegator"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:auth-delegator"},
			Subjects:   subjects,
		},
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: adapterUser + "-auth-reader"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "extension-apiserver-authentication-reader"},
			Subjects:   subjects,
		},
	} {
		if err := env.Client.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
	cfg, err := env.AddUser(adapterUser)
	require.NoError(t, err)
	kubeconfig, err := clientcmd.Write(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"envtest": {Server: cfg.Host, CertificateAuthorityData: cfg.CAData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{adapterUser: {ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}},
		Contexts:       map[string]*clientcmdapi.Context{"envtest": {Cluster: "envtest", AuthInfo: adapterUser}},
		CurrentContext: "envtest",
	})
	require.NoError(t, err)
	return kubeconfig
}

// registerAPIServices points the metrics APIs at the adapter, the way the chart does, and
// waits until the kube-apiserver reports them available.
func registerAPIServices(ctx context.Context, t testing.TB, port int32, caBundle []byte) {
	t.Helper()
	require.NoError(t, aggregation.RegisterLocal(ctx, env.Client, adapterNamespace, adapterService, port, caBundle))
	t.Cleanup(func() {
		for _, api := range aggregation.MetricsAPIs {
			_ = env.Client.Delete(context.Background(), aggregation.NewAPIService(aggregation.APIServiceName(api.GroupVersion)))
		}
	})
	require.NoError(t, aggregation.WaitAvailable(ctx, env.Client, 90*time.Second))
}

// httpClient talks to the adapter directly, trusting its CA, with an optional client
// certificate.
func (l *landscape) httpClient(t testing.TB, cert *pki.KeyPair) *http.Client {
	t.Helper()
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(l.ca.CertPEM())
	tlsConfig := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	if cert != nil {
		pair, err := tls.X509KeyPair(cert.CertPEM, cert.KeyPEM)
		require.NoError(t, err)
		tlsConfig.Certificates = []tls.Certificate{pair}
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}, Timeout: 10 * time.Second}
}

// get reads path from the adapter directly as user, and fails the test unless it answers 200.
func (l *landscape) get(t testing.TB, c *http.Client, path, user string, groups ...string) string {
	t.Helper()
	return l.getAs(t, c, path, runtime.ContentTypeJSON, user, groups...)
}

// getAs is get asking for the given content type.
func (l *landscape) getAs(t testing.TB, c *http.Client, path, contentType, user string, groups ...string) string {
	t.Helper()
	req := asUser(t, path, user, groups...)
	req.Header.Set("Accept", contentType)
	resp, err := c.Do(req)
	return okBody(t, resp, err)
}

// asUser is a GET of url as the front proxy sends it for user in groups: the adapter trusts
// the X-Remote headers of a client with the front-proxy certificate.
func asUser(t testing.TB, url, user string, groups ...string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("X-Remote-User", user)
	for _, g := range groups {
		req.Header.Add("X-Remote-Group", g)
	}
	return req
}

// metricsClients are the clients the autoscaler uses, for a user's rest config.
func metricsClients(t testing.TB, cfg *rest.Config) (cmclient.CustomMetricsClient, emclient.ExternalMetricsClient, discovery.DiscoveryInterface) {
	t.Helper()
	disc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	require.NoError(t, err)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	// As the autoscaler reads them: in protobuf.
	custom := cmclient.NewForConfig(app.Protobuf(cfg), mapper, cmclient.NewAvailableAPIsGetter(disc))
	external, err := emclient.NewForConfig(app.Protobuf(cfg))
	require.NoError(t, err)
	return custom, external, disc
}

var seedKind = schema.GroupKind{Group: "core.gardener.cloud", Kind: "Seed"}

// createSet creates the GEP's example ManagedSeedSet as namespace/name.
func createSet(ctx context.Context, t testing.TB, namespace, name string) {
	t.Helper()
	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	require.NoError(t, testenv.ReadExample("managedseedset.yaml", set))
	set.Name, set.Namespace = name, namespace
	require.NoError(t, env.Client.Create(ctx, set))
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), set) })
}

// serveSchedulerMetrics serves seedscaler_scheduler_pending_shoots as the scheduler
// exposes it (docs/metrics.md), with the given values per namespace and set, and returns
// the scrape target.
func serveSchedulerMetrics(t testing.TB, pending map[[2]string]float64) promrunner.Target {
	t.Helper()
	gauge := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "seedscaler_scheduler_pending_shoots",
		Help: "Unschedulable shoots that would fit a new replica of the ManagedSeedSet.",
	}, []string{"namespace", "managedseedset"})
	for key, v := range pending {
		gauge.WithLabelValues(key[0], key[1]).Set(v)
	}
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(gauge))
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	server := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(func() { _ = server.Close() })
	return promrunner.Target{Job: "scheduler", Addresses: []string{listener.Addr().String()}}
}

// Through the kube-apiserver, as the autoscaler calls it: list garden_seed_usage of the
// seeds a label selector picks, get one seed's value, list the available metrics, read an
// external metric; then Prometheus stops and the API answers an error, not a value.
func TestMetricsThroughTheAggregator(t *testing.T) {
	ctx := context.Background()
	require.NoError(t, env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "garden-adapter"}}))
	usage := map[string]int{"ad-a": 2, "ad-b": 1, "ad-c": 0}
	for name, shoots := range usage {
		tier := "gold"
		if name == "ad-c" {
			tier = "silver"
		}
		createSeed(ctx, t, builders.MakeSeed(name).Provider("aws", "eu-west-1").Labels("tier", tier).Allocatable(5).Ready().Obj())
		for i := range shoots {
			require.NoError(t, env.Client.Create(ctx, builders.MakeShoot("garden-adapter", fmt.Sprintf("%s-%d", name, i)).SeedName(name).Obj()))
		}
	}
	createSet(ctx, t, "garden-adapter", "set-a")
	scheduler := serveSchedulerMetrics(t, map[[2]string]float64{
		{"garden-adapter", "set-a"}:    3,
		{"garden-adapter", "set-gone"}: 1, // no such ManagedSeedSet
		{"garden-other", "set-a"}:      7, // another namespace
	})
	config := strings.NewReplacer("interval: 30s", "interval: 1s", "cacheTTL: 5s", "cacheTTL: 500ms").Replace(string(defaultRulesYAML))
	l := startLandscape(t, config, scheduler)
	custom, external, disc := metricsClients(t, env.Config)
	shoots := labels.SelectorFromSet(labels.Set{"resource": "shoots"})
	before := time.Now()

	// A list over the seeds of one tier: one value per selected seed, from its sample.
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		list, err := custom.RootScopedMetrics().GetForObjects(seedKind, labels.SelectorFromSet(labels.Set{"tier": "gold"}), "garden_seed_usage", shoots)
		if !assert.NoError(c, err) {
			return
		}
		got := map[string]int64{}
		for _, v := range list.Items {
			got[v.DescribedObject.Name] = v.Value.Value()
			assert.Equal(c, "Seed", v.DescribedObject.Kind)
			assert.Equal(c, "core.gardener.cloud/v1beta1", v.DescribedObject.APIVersion)
		}
		assert.Equal(c, map[string]int64{"ad-a": 2, "ad-b": 1}, got)
	}, 60*time.Second, 250*time.Millisecond)

	// One seed's value carries the time of its sample: a scrape's, not the request's.
	value, err := custom.RootScopedMetrics().GetForObject(seedKind, "ad-c", "garden_seed_usage", shoots)
	require.NoError(t, err)
	assert.Equal(t, int64(0), value.Value.Value(), "a real 0 is a value")
	assert.Equal(t, "garden_seed_usage", value.Metric.Name)
	assert.False(t, value.Timestamp.Time.Before(before.Add(-time.Minute)), "sample time %s", value.Timestamp)
	assert.False(t, value.Timestamp.Time.After(time.Now()), "sample time %s", value.Timestamp)
	require.NotNil(t, value.WindowSeconds)
	assert.Equal(t, int64(0), *value.WindowSeconds, "a gauge is read at one instant")

	allocatable, err := custom.RootScopedMetrics().GetForObject(seedKind, "ad-a", "garden_seed_allocatable", shoots)
	require.NoError(t, err)
	assert.Equal(t, int64(5), allocatable.Value.Value())

	// No series for a seed that does not exist: not found, never 0.
	_, err = custom.RootScopedMetrics().GetForObject(seedKind, "ad-missing", "garden_seed_usage", shoots)
	assert.True(t, apierrors.IsNotFound(err), "want not found, got %v", err)

	// Discovery lists every garden_seed_* gauge of Seeds.
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		resources, err := disc.ServerResourcesForGroupVersion("custom.metrics.k8s.io/v1beta2")
		if !assert.NoError(c, err) {
			return
		}
		var names []string
		for _, r := range resources.APIResources {
			names = append(names, r.Name)
		}
		for _, metric := range []string{"garden_seed_usage", "garden_seed_allocatable", "garden_seed_capacity", "garden_seed_condition", "garden_seed_info"} {
			assert.Contains(c, names, "seeds.core.gardener.cloud/"+metric)
		}
		assert.NotContains(c, names, "seeds.core.gardener.cloud/garden_shoot_info")
	}, 30*time.Second, 250*time.Millisecond)

	// The same series as an external metric, selected by labels.
	ext, err := external.NamespacedMetrics("default").List("garden_seed_usage", labels.SelectorFromSet(labels.Set{"resource": "shoots", "name": "ad-a"}))
	require.NoError(t, err)
	require.Len(t, ext.Items, 1)
	assert.Equal(t, int64(2), ext.Items[0].Value.Value())
	assert.Equal(t, map[string]string{"name": "ad-a", "resource": "shoots"}, ext.Items[0].MetricLabels)
	assert.False(t, ext.Items[0].Timestamp.Time.After(time.Now()))

	// The scheduler's pending shoots per ManagedSeedSet, a namespaced kind: only sets that
	// exist, in the namespace asked for.
	setKind := schema.GroupKind{Group: "seedmanagement.gardener.cloud", Kind: "ManagedSeedSet"}
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		pending, err := custom.NamespacedMetrics("garden-adapter").GetForObjects(setKind, labels.Everything(), "seedscaler_scheduler_pending_shoots", labels.Everything())
		if !assert.NoError(c, err) || !assert.Len(c, pending.Items, 1) {
			return
		}
		assert.Equal(c, "set-a", pending.Items[0].DescribedObject.Name)
		assert.Equal(c, "garden-adapter", pending.Items[0].DescribedObject.Namespace)
		assert.Equal(c, "ManagedSeedSet", pending.Items[0].DescribedObject.Kind)
		assert.Equal(c, int64(3), pending.Items[0].Value.Value())
	}, 30*time.Second, 250*time.Millisecond)
	one, err := custom.NamespacedMetrics("garden-adapter").GetForObject(setKind, "set-a", "seedscaler_scheduler_pending_shoots", labels.Everything())
	require.NoError(t, err)
	assert.Equal(t, int64(3), one.Value.Value())
	extPending, err := external.NamespacedMetrics("garden-adapter").List("seedscaler_scheduler_pending_shoots", labels.Everything())
	require.NoError(t, err)
	require.Len(t, extPending.Items, 2, "both series of the namespace, set or not")

	// The v1beta1 API answers too.
	v1beta1, err := cmclient.NewForVersionForConfig(env.Config, restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc)), schema.GroupVersion{Group: "custom.metrics.k8s.io", Version: "v1beta1"})
	require.NoError(t, err)
	old, err := v1beta1.RootScopedMetrics().GetForObject(seedKind, "ad-b", "garden_seed_usage", shoots)
	require.NoError(t, err)
	assert.Equal(t, int64(1), old.Value.Value())

	// Prometheus gone: an error, not a value (once the short value cache has expired).
	require.NoError(t, l.prom.Kill())
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		_, err := custom.RootScopedMetrics().GetForObject(seedKind, "ad-a", "garden_seed_usage", shoots)
		if assert.Error(c, err) {
			assert.Contains(c, err.Error(), "querying Prometheus")
		}
		_, err = external.NamespacedMetrics("default").List("garden_seed_usage", shoots)
		assert.Error(c, err)
	}, 30*time.Second, 250*time.Millisecond)

	// Discovery keeps listing what it saw within the retention: no flicker while
	// Prometheus is away.
	resources, err := disc.ServerResourcesForGroupVersion("custom.metrics.k8s.io/v1beta2")
	require.NoError(t, err)
	var listed []string
	for _, r := range resources.APIResources {
		listed = append(listed, r.Name)
	}
	assert.Contains(t, listed, "seeds.core.gardener.cloud/garden_seed_usage")

	// The adapter's own metrics count what happened, and it is ready.
	body := httpGet(t, l.healthURL+"/readyz")
	assert.Equal(t, "ok", body)
	exposition := httpGet(t, l.metricsURL+"/metrics")
	for _, series := range []string{
		`seedscaler_adapter_requests_total{api="custom",result="ok"}`,
		`seedscaler_adapter_requests_total{api="custom",result="missing"}`,
		`seedscaler_adapter_requests_total{api="custom",result="error"}`,
		`seedscaler_adapter_requests_total{api="external",result="ok"}`,
		`seedscaler_adapter_prometheus_query_errors_total{kind="value"}`,
		`seedscaler_adapter_prometheus_query_duration_seconds_count{kind="value"}`,
		`seedscaler_adapter_available_metrics{api="custom"}`,
	} {
		assert.Regexp(t, regexp.MustCompile(regexp.QuoteMeta(series)+` [1-9]`), exposition, "%s should be positive", series)
	}
	assert.Contains(t, exposition, "apiserver_request_total", "the API server's own metrics are served alongside")
}

// httpGet reads url over plain HTTP and fails the test unless it answers 200.
func httpGet(t testing.TB, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	return okBody(t, resp, err)
}

// okBody reads the body of a response and fails the test unless the request went through
// and was answered 200.
func okBody(t testing.TB, resp *http.Response, err error) string {
	t.Helper()
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	return string(body)
}

// Requests are authenticated and authorized by the kube-apiserver, and the adapter checks
// again: the front-proxy's identity and a SubjectAccessReview of the user.
func TestUnauthorizedRequestsAreRefused(t *testing.T) {
	ctx := context.Background()
	createSeed(ctx, t, builders.MakeSeed("auth-a").Provider("aws", "eu-west-1").Allocatable(5).Ready().Obj())
	l := startLandscape(t, "")
	shoots := labels.SelectorFromSet(labels.Set{"resource": "shoots"})

	// Through the kube-apiserver: the admin reads, a user without RBAC and an anonymous
	// request do not.
	admin, _, _ := metricsClients(t, env.Config)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		_, err := admin.RootScopedMetrics().GetForObject(seedKind, "auth-a", "garden_seed_usage", shoots)
		assert.NoError(c, err)
	}, 60*time.Second, 250*time.Millisecond)

	nobodyConfig, err := env.AddUser("nobody")
	require.NoError(t, err)
	nobody, _, _ := metricsClients(t, nobodyConfig)
	_, err = nobody.RootScopedMetrics().GetForObject(seedKind, "auth-a", "garden_seed_usage", shoots)
	assert.True(t, apierrors.IsForbidden(err), "want forbidden, got %v", err)

	anonymousConfig := rest.AnonymousClientConfig(env.Config)
	anonymous, _, _ := metricsClients(t, anonymousConfig)
	_, err = anonymous.RootScopedMetrics().GetForObject(seedKind, "auth-a", "garden_seed_usage", shoots)
	assert.True(t, apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err), "want unauthorized or forbidden, got %v", err)

	// Straight to the adapter, bypassing the kube-apiserver.
	path := l.adapterURL + "/apis/custom.metrics.k8s.io/v1beta2/seeds.core.gardener.cloud/auth-a/garden_seed_usage"
	get := func(cert *pki.KeyPair, user string, groups ...string) int {
		resp, err := l.httpClient(t, cert).Do(asUser(t, path, user, groups...).WithContext(ctx))
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	frontProxy, err := env.FrontProxyCA.NewClientCert("front-proxy-client")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, get(frontProxy, "admin", "system:masters"), "the front proxy asking for an admin")
	assert.Equal(t, http.StatusForbidden, get(frontProxy, "nobody"), "the front proxy asking for a user without RBAC")
	// Identity headers from anyone but the front proxy are ignored: the request is anonymous.
	refused := []int{http.StatusUnauthorized, http.StatusForbidden}
	assert.Contains(t, refused, get(nil, "admin", "system:masters"), "identity headers without the front proxy's certificate")
	impostor, err := l.ca.NewClientCert("front-proxy-client")
	require.NoError(t, err)
	assert.Contains(t, refused, get(impostor, "admin", "system:masters"), "a client certificate of another CA")
}

// Through the kube-apiserver, against a Prometheus serving TLS with basic auth, the adapter
// given a CA and a password file as a mounted Secret: a list of seed usage works; a
// password Prometheus no longer takes is an error that says so, never missing data; and
// the Secret's new password, CA and client configuration apply without a restart.
func TestSecuredPrometheusThroughTheAggregator(t *testing.T) {
	ctx := context.Background()
	createSeed(ctx, t, builders.MakeSeed("secured-a").Provider("aws", "eu-west-1").Labels("tier", "secured").Allocatable(5).Ready().Obj())
	require.NoError(t, env.Client.Create(ctx, builders.MakeShoot("default", "secured-a-0").SeedName("secured-a").Obj()))
	promCA, err := pki.NewCA("prometheus-ca")
	require.NoError(t, err)
	serving, err := promCA.NewServingCert("localhost", "127.0.0.1")
	require.NoError(t, err)
	otherCA, err := pki.NewCA("another-ca")
	require.NoError(t, err)
	web := func(user, password string) promrunner.Web {
		return promrunner.Web{CertPEM: serving.CertPEM, KeyPEM: serving.KeyPEM, Users: map[string]string{user: password}}
	}
	files := map[string]string{
		"client.yaml": "tls_config: {ca_file: ca.crt}\nbasic_auth: {username: adapter, password_file: password}\n",
		"ca.crt":      string(promCA.CertPEM()),
		"password":    "first\n",
	}
	secret := newSecretVolume(t, files)
	first := web("adapter", "first")
	config := strings.NewReplacer("interval: 30s", "interval: 1s", "cacheTTL: 5s", "cacheTTL: 500ms").Replace(string(defaultRulesYAML))
	l := startLandscapeWith(t, landscapeOptions{config: config, web: &first, adapterArgs: []string{"--prometheus-client-config=" + secret.path("client.yaml")}})
	require.True(t, strings.HasPrefix(l.prom.URL, "https://"), l.prom.URL)
	custom, _, _ := metricsClients(t, env.Config)
	list := func() (map[string]int64, error) {
		values, err := custom.RootScopedMetrics().GetForObjects(seedKind, labels.SelectorFromSet(labels.Set{"tier": "secured"}), "garden_seed_usage", labels.SelectorFromSet(labels.Set{"resource": "shoots"}))
		if err != nil {
			return nil, err
		}
		got := map[string]int64{}
		for _, v := range values.Items {
			got[v.DescribedObject.Name] = v.Value.Value()
		}
		return got, nil
	}
	listWorks := func(why string) {
		t.Helper()
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			got, err := list()
			if assert.NoError(c, err) {
				assert.Equal(c, map[string]int64{"secured-a": 1}, got)
			}
		}, 60*time.Second, 250*time.Millisecond, why)
	}
	listFails := func(want, why string) {
		t.Helper()
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			_, err := list()
			if assert.Error(c, err) {
				assert.False(c, apierrors.IsNotFound(err), "not found, as if data were missing: %v", err)
				assert.Contains(c, err.Error(), want)
			}
		}, 30*time.Second, 250*time.Millisecond, why)
	}
	listWorks("through TLS with basic auth")

	require.NoError(t, l.prom.SetWeb(web("adapter", "second")))
	listFails("querying Prometheus: Prometheus refused the adapter's credentials (HTTP 401 Unauthorized): check --prometheus-client-config", "a password Prometheus no longer takes")

	files["password"] = "second\n"
	secret.update(t, files)
	listWorks("the Secret's new password file, read without a restart")

	files["ca.crt"] = string(otherCA.CertPEM())
	secret.update(t, files)
	listFails("x509: certificate signed by unknown authority", "a CA that did not sign Prometheus' certificate")
	files["ca.crt"] = string(promCA.CertPEM())
	secret.update(t, files)
	listWorks("the Secret's CA file back, read without a restart")

	// A user only the changed client configuration names. (Every change is seen failing
	// first: a list may come from the adapter's short value cache.)
	require.NoError(t, l.prom.SetWeb(web("seedscaler", "third")))
	listFails("Prometheus refused the adapter's credentials (HTTP 401 Unauthorized)", "a user Prometheus does not know")
	files["client.yaml"] = "tls_config: {ca_file: ca.crt}\nbasic_auth: {username: seedscaler, password: third}\n"
	secret.update(t, files)
	listWorks("the Secret's new client configuration, read without a restart")
}

// Start-up fails, naming the rule and the field, on what only the cluster or Prometheus can
// tell: a resource the cluster does not serve, a series query or a metrics query Prometheus
// refuses.
func TestStartUpRefusesWhatTheClusterOrPrometheusRefuses(t *testing.T) {
	bin, err := testenv.Tool("prometheus")
	require.NoError(t, err)
	ctx := logr.NewContext(context.Background(), testr.New(t))
	prom, err := promrunner.Start(ctx, promrunner.Options{Binary: bin})
	require.NoError(t, err)
	t.Cleanup(func() { _ = prom.Stop() })
	kubeconfig, err := env.KubeconfigBytes()
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kubeconfig"), kubeconfig, 0o600))

	const seeds = "\n  resource: {group: core.gardener.cloud, resource: seeds}\n  objectLabel: name\n"
	tests := []struct {
		name, rules, want string
	}{
		{"unknown group", "rules:\n- name: r\n  seriesQuery: foo\n  resource: {group: core.gardner.cloud, resource: seeds}\n  objectLabel: name\n",
			`rules[0].resource: Invalid value: "seeds.core.gardner.cloud": not served by the cluster`},
		{"namespaced kind without namespace label", "rules:\n- name: r\n  seriesQuery: foo\n  resource: {group: seedmanagement.gardener.cloud, resource: managedseedsets}\n  objectLabel: managedseedset\n",
			"rules[0].namespaceLabel: Required value: managedseedsets.seedmanagement.gardener.cloud is namespaced"},
		{"series query Prometheus refuses", "rules:\n- name: r\n  seriesQuery: 'foo{name=~\"(\"}'" + seeds,
			"rules[0].seriesQuery: bad_data"},
		{"metrics query Prometheus refuses", "rules:\n- name: r\n  seriesQuery: foo\n  metricsQuery: 'max by ({{.GroupBy}}) (no_such_function({{.Series}}{ {{.LabelMatchers}} }))'" + seeds,
			"rules[0].metricsQuery: Prometheus refuses the rendered query"},
		{"bad file", "rules: [", "parsing adapter configuration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "rules.yaml")
			require.NoError(t, os.WriteFile(path, []byte(tt.rules), 0o600))
			o, _ := adapterOptions(t, "--prometheus-url="+prom.URL, "--kubeconfig="+filepath.Join(dir, "kubeconfig"), "--config="+path)
			runCtx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			err = Run(runCtx, o)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// serveDemand serves the recording rule's series of one set as a gauge that reads demand
// at each scrape, and returns the scrape target.
func serveDemand(t testing.TB, namespace, set string, demand func() float64) promrunner.Target {
	t.Helper()
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "managedseedset:seedscaler_demand_shoots:sum",
		Help:        "The demand of a ManagedSeedSet, as the recording rule computes it.",
		ConstLabels: prometheus.Labels{"namespace": namespace, "managedseedset": set},
	}, demand)))
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	server := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(func() { _ = server.Close() })
	return promrunner.Target{Job: "demand-" + set, Addresses: []string{listener.Addr().String()}}
}

// The forecasts of a set's demand through the kube-apiserver, as the autoscaler reads them:
// the trend continues a demand rising by a shoot a second over the lead time, and stops
// where a ramp stopped; the seasonal forecast has no day of history and is not found, and
// a parameter out of bounds or missing is refused naming it.
func TestForecastsThroughTheAggregator(t *testing.T) {
	start := time.Now()
	demand := serveDemand(t, "garden-forecast", "demo", func() float64 { return 100 + time.Since(start).Seconds() })
	// Two shoots a second for 45 s from the first scrape, then flat at 190.
	var rampStart atomic.Pointer[time.Time]
	plateau := serveDemand(t, "garden-forecast", "plateau", func() float64 {
		now := time.Now()
		rampStart.CompareAndSwap(nil, &now)
		return 100 + 2*min(time.Since(*rampStart.Load()).Seconds(), 45)
	})
	config := strings.NewReplacer("interval: 30s", "interval: 1s", "cacheTTL: 5s", "cacheTTL: 0s").Replace(string(defaultRulesYAML))
	startLandscape(t, config, demand, plateau)
	_, external, _ := metricsClients(t, env.Config)
	forecasts := external.NamespacedMetrics("garden-forecast")
	params := func(kv ...string) labels.Selector {
		set := labels.Set{"managedseedset": "demo"}
		for i := 0; i < len(kv); i += 2 {
			set[kv[i]] = kv[i+1]
		}
		return labels.SelectorFromSet(set)
	}

	require.EventuallyWithT(t, func(c *assert.CollectT) {
		list, err := forecasts.List("seedscaler_managedseedset_demand_trend", params("lead_seconds", "600", "window_seconds", "300"))
		if !assert.NoError(c, err) || !assert.Len(c, list.Items, 1) {
			return
		}
		now := 100 + time.Since(start).Seconds()
		got := list.Items[0].Value.AsApproximateFloat64()
		// A shoot a second over 600 s: the demand now plus 600, less the age of the samples.
		assert.InDelta(c, now+600, got, 15, "the trend of a demand of %.0f now", now)
		assert.Equal(c, map[string]string{"namespace": "garden-forecast", "managedseedset": "demo"}, list.Items[0].MetricLabels)
	}, 60*time.Second, 500*time.Millisecond)

	// A minute's window ending 15 to 25 s into the plateau: its line still rises by more
	// than a shoot a second, 600 shoots and more over the lead time; its last quarter is flat.
	require.Eventually(t, func() bool { return rampStart.Load() != nil && time.Since(*rampStart.Load()) > 60*time.Second }, 2*time.Minute, 100*time.Millisecond)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		selector := labels.SelectorFromSet(labels.Set{"managedseedset": "plateau", "lead_seconds": "600", "window_seconds": "60"})
		list, err := forecasts.List("seedscaler_managedseedset_demand_trend", selector)
		if !assert.NoError(c, err) || !assert.Len(c, list.Items, 1) {
			return
		}
		got := list.Items[0].Value.AsApproximateFloat64()
		assert.InDelta(c, 190, got, 10, "the trend of a demand flat at 190 after a ramp")
	}, 10*time.Second, 500*time.Millisecond)

	_, err := forecasts.List("seedscaler_managedseedset_demand_seasonal", params("lead_seconds", "600", "period_seconds", "86400"))
	assert.True(t, apierrors.IsNotFound(err), "no demand a day ago: not found, got %v", err)

	_, err = forecasts.List("seedscaler_managedseedset_demand_trend", params("lead_seconds", "14", "window_seconds", "300"))
	assert.True(t, apierrors.IsBadRequest(err), "want bad request, got %v", err)
	assert.ErrorContains(t, err, `parameter lead_seconds="14" is not a whole number from 15 to 21600`)
	_, err = forecasts.List("seedscaler_managedseedset_demand_trend", params("lead_seconds", "600"))
	assert.ErrorContains(t, err, "parameter window_seconds is required")
}
