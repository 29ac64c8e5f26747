// Package garden starts a real Gardener garden for integration tests and local runs: envtest's
// kube-apiserver and etcd with the aggregation layer, gardener-apiserver beside them (sharing
// the etcd, as in a garden) registered through one APIService per Gardener group/version, with
// the admission plugins a garden runs. gardener-scheduler and gardener-controller-manager run
// as processes against it where a test needs them. Only seedscaler's own API groups are
// installed as CRDs: Gardener's kinds are gardener-apiserver's.
//
// Beside turns a running cluster (the one-node cluster whose pods run the chart) into a
// garden the same way: gardener-apiserver on this machine, registered with that cluster's
// kube-apiserver and storing its objects in that cluster's etcd under a prefix of its own.
package garden

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/seedscaler/seedscaler/internal/scheme"
	"github.com/seedscaler/seedscaler/test/framework/aggregation"
	"github.com/seedscaler/seedscaler/test/framework/pki"
	"github.com/seedscaler/seedscaler/test/framework/process"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

// APIs are the group versions gardener-apiserver serves, each registered with the
// kube-apiserver's aggregation layer.
var APIs = []aggregation.API{
	{GroupVersion: schema.GroupVersion{Group: "core.gardener.cloud", Version: "v1beta1"}, VersionPriority: 100},
	{GroupVersion: schema.GroupVersion{Group: "core.gardener.cloud", Version: "v1"}, VersionPriority: 10},
	{GroupVersion: schema.GroupVersion{Group: "seedmanagement.gardener.cloud", Version: "v1alpha1"}, VersionPriority: 100},
	{GroupVersion: schema.GroupVersion{Group: "operations.gardener.cloud", Version: "v1alpha1"}, VersionPriority: 100},
	{GroupVersion: schema.GroupVersion{Group: "security.gardener.cloud", Version: "v1alpha1"}, VersionPriority: 100},
}

// Service is where the APIServices send Gardener's groups: an ExternalName Service for
// localhost, as for every aggregated server a test runs.
const (
	serviceNamespace = "kube-system"
	serviceName      = "gardener-apiserver"
)

//go:embed base.yaml
var baseObjects []byte

// Options configure the garden.
type Options struct {
	// CRDDirectories hold seedscaler's own CRDs to install beside gardener-apiserver; when
	// empty, the chart's CRDs of API groups no Gardener serves.
	CRDDirectories []string
	// DisableAdmissionPlugins are gardener-apiserver admission plugins a test turns off. A
	// garden runs every default plugin; each one a test turns off must say why beside it.
	DisableAdmissionPlugins []string
	// LogDir receives the logs of Gardener's processes; a new temporary directory when empty.
	LogDir string
}

// Garden is a running kube-apiserver, etcd and gardener-apiserver with the base objects of a
// garden (base.yaml) created.
type Garden struct {
	// Environment holds the kube-apiserver's admin config, client and scheme. Start owns the
	// kube-apiserver and etcd behind it; Beside only borrows them.
	*testenv.Environment
	// Kubeconfig is an admin kubeconfig file for the garden, for Gardener's processes.
	Kubeconfig string
	// LogDir holds the logs of Gardener's processes.
	LogDir string

	ownsEnvironment bool
	apiServer       *process.Process
	// apiServerDirect reaches gardener-apiserver itself, not through the aggregator.
	apiServerDirect *rest.Config
	processes       []*process.Process
}

// Start starts the garden. Stop it with Stop.
func Start(ctx context.Context, opts Options) (g *Garden, err error) {
	apiServerBin, err := testenv.Tool("gardener-apiserver")
	if err != nil {
		return nil, err
	}
	crdDirs := opts.CRDDirectories
	if len(crdDirs) == 0 {
		if crdDirs, err = ownCRDDirectories(); err != nil {
			return nil, err
		}
	}
	// Aggregator routing off: the kube-apiserver then reaches gardener-apiserver through the
	// ExternalName Service's host, localhost, as Gardener's own test environment does; with
	// routing on it refuses ExternalName Services.
	env, err := testenv.Start(testenv.Options{Aggregation: true, CRDDirectories: crdDirs,
		ExtraAPIServerArgs: map[string]string{"enable-aggregator-routing": "false"}})
	if err != nil {
		return nil, err
	}
	g = &Garden{Environment: env, LogDir: opts.LogDir, ownsEnvironment: true}
	defer func() {
		if err != nil {
			err = errors.Join(err, g.Stop())
		}
	}()
	if g.LogDir == "" {
		if g.LogDir, err = os.MkdirTemp("", "seedscaler-garden-"); err != nil {
			return g, err
		}
	}
	kubeconfig, err := env.KubeconfigBytes()
	if err != nil {
		return g, err
	}
	g.Kubeconfig = filepath.Join(g.LogDir, "kubeconfig.yaml")
	if err := os.WriteFile(g.Kubeconfig, kubeconfig, 0o600); err != nil {
		return g, err
	}
	return g, g.startGardener(ctx, apiServerBin, env.EtcdURL(), "", opts.DisableAdmissionPlugins)
}

// BesideOptions say which running cluster Beside makes a garden of.
type BesideOptions struct {
	// Kubeconfig is a cluster-admin kubeconfig file of the cluster's kube-apiserver, which
	// must run this machine's loopback-reachable aggregation layer (front proxy).
	Kubeconfig string
	// EtcdURL is the client URL of the cluster's etcd. gardener-apiserver stores its
	// objects there under EtcdPrefix, apart from the kube-apiserver's.
	EtcdURL    string
	EtcdPrefix string
	// LogDir receives the logs of Gardener's processes.
	LogDir string
}

// Beside starts gardener-apiserver on this machine beside a running cluster, registers
// Gardener's APIs with the cluster's kube-apiserver and creates a garden's base objects.
// The cluster must serve none of Gardener's groups from CRDs. Stop unregisters the APIs and
// stops Gardener's processes; the cluster keeps running.
func Beside(ctx context.Context, opts BesideOptions) (g *Garden, err error) {
	apiServerBin, err := testenv.Tool("gardener-apiserver")
	if err != nil {
		return nil, err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", opts.Kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 100, 200
	env := &testenv.Environment{Config: cfg, Scheme: scheme.New()}
	// Beside checks the cluster's CRDs.
	if err := apiextensionsv1.AddToScheme(env.Scheme); err != nil {
		return nil, err
	}
	if env.Client, err = client.New(cfg, client.Options{Scheme: env.Scheme}); err != nil {
		return nil, err
	}
	g = &Garden{Environment: env, Kubeconfig: opts.Kubeconfig, LogDir: opts.LogDir}
	defer func() {
		if err != nil {
			err = errors.Join(err, g.Stop())
		}
	}()
	if crds, err := crdsOfGardenersGroups(ctx, g.Client); err != nil {
		return g, err
	} else if len(crds) > 0 {
		return g, fmt.Errorf("the cluster serves Gardener's groups from CRDs %s: delete them before gardener-apiserver can serve the groups", strings.Join(crds, ", "))
	}
	return g, g.startGardener(ctx, apiServerBin, opts.EtcdURL, opts.EtcdPrefix, nil)
}

// crdsOfGardenersGroups names the cluster's CRDs of a group gardener-apiserver serves.
func crdsOfGardenersGroups(ctx context.Context, c client.Client) ([]string, error) {
	crds := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := c.List(ctx, crds); err != nil {
		return nil, err
	}
	var names []string
	for _, crd := range crds.Items {
		for _, api := range APIs {
			if crd.Spec.Group == api.Group {
				names = append(names, crd.Name)
				break
			}
		}
	}
	return names, nil
}

// startGardener starts gardener-apiserver and creates the garden's base objects.
func (g *Garden) startGardener(ctx context.Context, bin, etcdURL, etcdPrefix string, disabled []string) error {
	if err := g.startAPIServer(ctx, bin, etcdURL, etcdPrefix, disabled); err != nil {
		return err
	}
	if err := g.Apply(ctx, baseObjects); err != nil {
		return fmt.Errorf("creating the garden's base objects: %w", err)
	}
	return nil
}

// ownCRDDirectories are the chart's CRD folders of seedscaler's own API groups: those no
// Gardener release serves, so a garden has them as CRDs.
func ownCRDDirectories() ([]string, error) {
	root, err := testenv.RepositoryRoot()
	if err != nil {
		return nil, err
	}
	return []string{filepath.Join(root, "charts", "seedscaler", "files", "autoscaling-crds")}, nil
}

func (g *Garden) startAPIServer(ctx context.Context, bin, etcdURL, etcdPrefix string, disabled []string) error {
	ca, err := pki.NewCA("gardener-apiserver-ca")
	if err != nil {
		return err
	}
	serving, err := ca.NewServingCert("localhost", "127.0.0.1", serviceName+"."+serviceNamespace+".svc")
	if err != nil {
		return err
	}
	certFile, keyFile := filepath.Join(g.LogDir, "gardener-apiserver.crt"), filepath.Join(g.LogDir, "gardener-apiserver.key")
	if err := os.WriteFile(certFile, serving.CertPEM, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(keyFile, serving.KeyPEM, 0o600); err != nil {
		return err
	}
	port, err := testenv.FreePort()
	if err != nil {
		return err
	}
	args := []string{
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--etcd-servers=" + etcdURL,
		"--tls-cert-file=" + certFile,
		"--tls-private-key-file=" + keyFile,
		"--cluster-identity=seedscaler-test-garden",
		"--authentication-kubeconfig=" + g.Kubeconfig,
		"--authorization-kubeconfig=" + g.Kubeconfig,
		"--kubeconfig=" + g.Kubeconfig,
		"--authorization-always-allow-paths=/healthz,/readyz,/livez",
	}
	if etcdPrefix != "" {
		args = append(args, "--etcd-prefix="+etcdPrefix)
	}
	if len(disabled) > 0 {
		args = append(args, "--disable-admission-plugins="+strings.Join(disabled, ","))
	}
	g.apiServerDirect = rest.CopyConfig(g.Config)
	g.apiServerDirect.Host = "https://127.0.0.1:" + strconv.Itoa(port)
	g.apiServerDirect.TLSClientConfig.CAData, g.apiServerDirect.TLSClientConfig.CAFile = ca.CertPEM(), ""
	g.apiServer = process.New("gardener-apiserver", bin, g.LogDir, args...)
	if err := g.apiServer.Start(); err != nil {
		return err
	}
	if err := aggregation.RegisterLocalAPIs(ctx, g.Client, serviceNamespace, serviceName, int32(port), ca.CertPEM(), APIs); err != nil {
		return err
	}
	if err := aggregation.WaitAPIsAvailable(ctx, g.Client, APIs, 3*time.Minute); err != nil {
		return fmt.Errorf("%w; gardener-apiserver's log ends:\n%s", err, g.apiServer.Tail(4096))
	}
	// A client made before gardener-apiserver was registered may have cached that Gardener's
	// groups do not exist; the garden's client is made after.
	g.Client, err = client.New(g.Config, client.Options{Scheme: g.Scheme})
	return err
}

// StartScheduler runs gardener-scheduler against the garden with the given candidate
// determination strategy (SameRegion or MinimalDistance). It places every shoot whose
// spec.schedulerName is empty or default-scheduler. The garden stops it.
func (g *Garden) StartScheduler(strategy string) (*process.Process, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	config := fmt.Sprintf(`apiVersion: scheduler.config.gardener.cloud/v1alpha1
kind: SchedulerConfiguration
clientConnection: {kubeconfig: %q, qps: 100, burst: 130}
leaderElection: {leaderElect: false}
logLevel: info
logFormat: text
server: {healthProbes: {port: %d}, metrics: {port: %d}}
schedulers:
  shoot: {concurrentSyncs: 1, candidateDeterminationStrategy: %s}
`, g.Kubeconfig, ports[0], ports[1], strategy)
	return g.run("gardener-scheduler", config)
}

// StartControllerManager runs gardener-controller-manager against the garden: its
// ManagedSeedSet controller creates and removes the replicas of Gardener's ManagedSeedSets.
// The garden stops it.
func (g *Garden) StartControllerManager() (*process.Process, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	config := fmt.Sprintf(`apiVersion: controllermanager.config.gardener.cloud/v1alpha1
kind: ControllerManagerConfiguration
gardenClientConnection: {kubeconfig: %q, qps: 100, burst: 130}
controllers:
  managedSeedSet: {concurrentSyncs: 5, syncPeriod: 30s}
leaderElection: {leaderElect: false}
logLevel: info
logFormat: text
server: {healthProbes: {port: %d}, metrics: {port: %d}}
`, g.Kubeconfig, ports[0], ports[1])
	return g.run("gardener-controller-manager", config)
}

func (g *Garden) run(tool, config string) (*process.Process, error) {
	bin, err := testenv.Tool(tool)
	if err != nil {
		return nil, err
	}
	configFile := filepath.Join(g.LogDir, tool+".yaml")
	if err := os.WriteFile(configFile, []byte(config), 0o600); err != nil {
		return nil, err
	}
	p := process.New(tool, bin, g.LogDir, "--config="+configFile)
	if err := p.Start(); err != nil {
		return nil, err
	}
	g.processes = append(g.processes, p)
	return p, nil
}

// freePorts are n free loopback ports for the health and metrics servers of a process.
func freePorts(n int) ([]int, error) {
	ports := make([]int, n)
	for i := range ports {
		port, err := testenv.FreePort()
		if err != nil {
			return nil, err
		}
		ports[i] = port
	}
	return ports, nil
}

// Apply creates every object of a multi-document YAML in order; a document's `status` is
// then written through the status subresource as given, the way a gardenlet or a controller
// would have written it. Objects that exist already are left as they are.
func (g *Garden) Apply(ctx context.Context, docs []byte) error {
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(docs), 4096)
	for i := 0; ; i++ {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("document %d: %w", i+1, err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		status, hasStatus := obj.Object["status"]
		if err := g.create(ctx, obj); err != nil {
			if apierrors.IsAlreadyExists(err) {
				continue
			}
			return fmt.Errorf("creating %s %s: %w", obj.GetKind(), client.ObjectKeyFromObject(obj), err)
		}
		if hasStatus {
			// Gardener's controllers may have written the object since it was created.
			err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				obj.Object["status"] = status
				err := g.Client.Status().Update(ctx, obj)
				if apierrors.IsConflict(err) {
					if getErr := g.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); getErr != nil {
						return getErr
					}
				}
				return err
			})
			if err != nil {
				return fmt.Errorf("writing the status of %s %s: %w", obj.GetKind(), client.ObjectKeyFromObject(obj), err)
			}
		}
	}
}

// create creates obj, again while the aggregator answers that the server is unavailable: an
// APIService reports Available a moment before every request through it succeeds.
func (g *Garden) create(ctx context.Context, obj client.Object) error {
	var err error
	_ = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		err = g.Client.Create(ctx, obj)
		return !apierrors.IsServiceUnavailable(err), nil
	})
	return err
}

// Stop stops Gardener's processes and gardener-apiserver, and then the kube-apiserver and
// etcd Start started. Beside a cluster it unregisters Gardener's APIs instead, so that the
// cluster serves none of them any more.
func (g *Garden) Stop() error {
	for _, p := range g.processes {
		p.Stop(10 * time.Second)
	}
	if g.ownsEnvironment {
		if g.apiServer != nil {
			g.apiServer.Stop(10 * time.Second)
		}
		return g.Environment.Stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := aggregation.Unregister(ctx, g.Client, serviceNamespace, serviceName, APIs)
	if g.apiServer != nil {
		g.apiServer.Stop(10 * time.Second)
	}
	return err
}

// LogTails returns the last 4 KiB of every log in dir (a garden's LogDir), to explain a
// failure.
func LogTails(dir string) string {
	var b strings.Builder
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, path := range logs {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if len(data) > 4096 {
			data = data[len(data)-4096:]
		}
		fmt.Fprintf(&b, "--- %s (end) ---\n%s\n", filepath.Base(path), data)
	}
	return b.String()
}
