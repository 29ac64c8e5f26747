// Package testenv starts a real kube-apiserver and etcd (controller-runtime's envtest)
// with seedscaler's CRDs installed, for integration tests and local runs. Optionally it
// configures the aggregation layer, so that an aggregated API server such as the metrics
// adapter can be registered with an APIService.
package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/seedscaler/seedscaler/internal/scheme"
	"github.com/seedscaler/seedscaler/test/framework/pki"
)

// AssetsEnv is the environment variable that names the directory holding the
// kube-apiserver and etcd binaries.
const AssetsEnv = "KUBEBUILDER_ASSETS"

// ErrNoAssets is returned when the kube-apiserver and etcd binaries cannot be found.
var ErrNoAssets = errors.New(AssetsEnv + " is not set: integration tests need a real kube-apiserver and etcd. " +
	"Run them with `make test`, or build the binaries once with `hack/tools/build.sh envtest` and " +
	"`export " + AssetsEnv + "=$(hack/tools/build.sh --dir envtest)`")

// Options configure the environment.
type Options struct {
	// Aggregation configures the front-proxy (requestheader) client CA and the proxy client
	// certificate, and routes aggregated APIs to service endpoints, so APIServices work.
	Aggregation bool
	// CRDDirectory holds the CRDs to install; when empty, the chart's:
	// charts/seedscaler/files/seedmanagement-crds, Gardener's core CRDs in
	// charts/seedscaler/files/core-crds and the SeedAutoscaler's in
	// charts/seedscaler/files/autoscaling-crds.
	CRDDirectory string
	// CRDDirectories, when set, replace CRDDirectory: every directory's CRDs are installed.
	// A garden installs only seedscaler's own groups, since gardener-apiserver serves
	// Gardener's.
	CRDDirectories []string
	// ExtraAPIServerArgs are further kube-apiserver flags, name to value.
	ExtraAPIServerArgs map[string]string
}

// Environment is a running kube-apiserver and etcd with seedscaler's CRDs installed.
type Environment struct {
	// Config is an admin (system:masters) rest config for the kube-apiserver.
	Config *rest.Config
	// Client is a client for Config with seedscaler's scheme.
	Client client.Client
	// Scheme has the built-in kinds and every seedscaler kind.
	Scheme *runtime.Scheme
	// FrontProxyCA signs the front-proxy client certificate when Options.Aggregation is set.
	FrontProxyCA *pki.CA

	env *envtest.Environment
	// frontProxyDir holds the front proxy's certificates with Options.Aggregation; Stop
	// removes it.
	frontProxyDir string
	// restarted are the processes Crash started again.
	restarted []restarted
}

// Start starts etcd and the kube-apiserver and installs the CRDs. Stop it with Stop.
func Start(opts Options) (_ *Environment, err error) {
	assets := os.Getenv(AssetsEnv)
	if assets == "" {
		return nil, ErrNoAssets
	}
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(assets, bin)); err != nil {
			return nil, fmt.Errorf("%s=%s has no %s (%w); %s", AssetsEnv, assets, bin, err, ErrNoAssets)
		}
	}
	crdDirs := []string{opts.CRDDirectory}
	if len(opts.CRDDirectories) > 0 {
		crdDirs = opts.CRDDirectories
	} else if opts.CRDDirectory == "" {
		root, err := RepositoryRoot()
		if err != nil {
			return nil, err
		}
		crdDirs = []string{
			filepath.Join(root, "charts", "seedscaler", "files", "seedmanagement-crds"),
			filepath.Join(root, "charts", "seedscaler", "files", "core-crds"),
			filepath.Join(root, "charts", "seedscaler", "files", "autoscaling-crds"),
		}
	}

	e := &Environment{Scheme: scheme.New()}
	defer func() {
		if err != nil && e.frontProxyDir != "" {
			_ = os.RemoveAll(e.frontProxyDir)
		}
	}()
	e.env = &envtest.Environment{
		CRDDirectoryPaths:     crdDirs,
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
		Scheme:                e.Scheme,
	}
	apiServer := e.env.ControlPlane.GetAPIServer()
	args := apiServer.Configure()
	if opts.Aggregation {
		certDir, err := os.MkdirTemp("", "seedscaler-frontproxy-")
		if err != nil {
			return nil, err
		}
		e.frontProxyDir = certDir
		ca, err := pki.NewCA("front-proxy-ca")
		if err != nil {
			return nil, err
		}
		client, err := ca.NewClientCert("front-proxy-client")
		if err != nil {
			return nil, err
		}
		files := map[string][]byte{
			"front-proxy-ca.crt":     ca.CertPEM(),
			"front-proxy-client.crt": client.CertPEM,
			"front-proxy-client.key": client.KeyPEM,
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(certDir, name), data, 0o600); err != nil {
				return nil, err
			}
		}
		e.FrontProxyCA = ca
		args.Set("requestheader-client-ca-file", filepath.Join(certDir, "front-proxy-ca.crt"))
		args.Set("requestheader-allowed-names", "front-proxy-client")
		args.Set("requestheader-username-headers", "X-Remote-User")
		args.Set("requestheader-group-headers", "X-Remote-Group")
		args.Set("requestheader-extra-headers-prefix", "X-Remote-Extra-")
		args.Set("proxy-client-cert-file", filepath.Join(certDir, "front-proxy-client.crt"))
		args.Set("proxy-client-key-file", filepath.Join(certDir, "front-proxy-client.key"))
		args.Set("enable-aggregator-routing", "true")
	}
	for name, value := range opts.ExtraAPIServerArgs {
		args.Set(name, value)
	}

	cfg, err := e.env.Start()
	if err != nil {
		return nil, fmt.Errorf("starting kube-apiserver and etcd from %s: %w", assets, err)
	}
	// Tests create many objects quickly; the client-side default of 5 QPS would throttle them.
	cfg.QPS, cfg.Burst = 500, 1000
	e.Config = cfg
	if e.Client, err = client.New(cfg, client.Options{Scheme: e.Scheme}); err != nil {
		_ = e.env.Stop()
		return nil, err
	}
	return e, nil
}

// EtcdURL is the client URL of the environment's etcd, for an aggregated API server that
// stores its objects there (gardener-apiserver, as in a garden).
func (e *Environment) EtcdURL() string {
	return e.env.ControlPlane.Etcd.URL.String()
}

// Stop stops the kube-apiserver and etcd, and removes the front proxy's certificates.
func (e *Environment) Stop() error {
	e.stopRestarted()
	err := e.env.Stop()
	if e.frontProxyDir != "" {
		err = errors.Join(err, os.RemoveAll(e.frontProxyDir))
	}
	return err
}

// AddUser adds a user authenticated by a client certificate and returns its rest config.
func (e *Environment) AddUser(name string, groups ...string) (*rest.Config, error) {
	u, err := e.env.AddUser(envtest.User{Name: name, Groups: groups}, e.Config)
	if err != nil {
		return nil, err
	}
	return u.Config(), nil
}

// KubeconfigBytes renders an admin kubeconfig for the environment.
func (e *Environment) KubeconfigBytes() ([]byte, error) {
	u, err := e.env.ControlPlane.AddUser(envtest.User{Name: "seedscaler-admin", Groups: []string{"system:masters"}}, e.Config)
	if err != nil {
		return nil, err
	}
	return u.KubeConfig()
}

// RepositoryRoot finds the root of the seedscaler repository by walking up from the
// working directory to the go.mod of module github.com/seedscaler/seedscaler.
func RepositoryRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(data), "module github.com/seedscaler/seedscaler\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the seedscaler repository: no go.mod of module github.com/seedscaler/seedscaler above the working directory")
		}
		dir = parent
	}
}
