//go:build integration

package chart

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	promconfig "github.com/prometheus/common/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// adapterClientMount is where the chart mounts the adapter's client configuration of
// Prometheus.
const adapterClientMount = "/var/run/seedscaler/prometheus"

// adapterClient is what the chart renders for the adapter's client configuration: the
// Secret it writes (nil when none), the adapter's volume of it, its mount, and the flag.
type adapterClient struct {
	secret *corev1.Secret
	volume *corev1.Volume
	mount  *corev1.VolumeMount
	flag   string
}

func renderAdapterClient(t *testing.T, args ...string) adapterClient {
	t.Helper()
	var out adapterClient
	var adapterDeployments int
	for _, obj := range render(t, args...) {
		switch {
		case obj.GetKind() == "Secret" && obj.GetName() == "seedscaler-adapter-prometheus":
			out.secret = &corev1.Secret{}
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, out.secret))
		case obj.GetKind() == "Deployment" && obj.GetName() == "seedscaler-adapter":
			adapterDeployments++
		}
	}
	require.Equal(t, 1, adapterDeployments)
	for _, d := range deployments(t, args...) {
		if d.Name != "seedscaler-adapter" {
			continue
		}
		pod := d.Spec.Template.Spec
		for i := range pod.Volumes {
			if pod.Volumes[i].Name == "prometheus-client" {
				out.volume = &pod.Volumes[i]
			}
		}
		container := pod.Containers[0]
		for i := range container.VolumeMounts {
			if container.VolumeMounts[i].Name == "prometheus-client" {
				out.mount = &container.VolumeMounts[i]
			}
		}
		for _, arg := range container.Args {
			if strings.HasPrefix(arg, "--prometheus-client-config") {
				require.Empty(t, out.flag, "the flag is given twice")
				out.flag = arg
			}
		}
	}
	return out
}

// The default install talks to Prometheus without a client configuration.
func TestAdapterHasNoClientConfigurationByDefault(t *testing.T) {
	got := renderAdapterClient(t)
	assert.Nil(t, got.secret)
	assert.Nil(t, got.volume)
	assert.Nil(t, got.mount)
	assert.Empty(t, got.flag)
}

// An inline client configuration and the files it names become one Secret, mounted
// read-only as a whole volume (the kubelet updates it when the Secret changes, and the
// adapter reads it again) and passed as --prometheus-client-config.
func TestAdapterClientConfigurationFromValues(t *testing.T) {
	values := filepath.Join(t.TempDir(), "values.yaml")
	require.NoError(t, os.WriteFile(values, []byte(`
adapter:
  prometheusURL: https://thanos-query.monitoring.svc:9091
  prometheus:
    clientConfig:
      inline:
        tls_config: {ca_file: ca.crt, server_name: thanos-query.monitoring.svc}
        authorization: {credentials_file: /var/run/secrets/kubernetes.io/serviceaccount/token}
        http_headers: {X-Scope-OrgID: {values: [garden]}}
      files:
        ca.crt: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
`), 0o600))
	got := renderAdapterClient(t, "-f", values)

	require.NotNil(t, got.secret, "no Secret of the client configuration")
	assert.Equal(t, corev1.SecretTypeOpaque, got.secret.Type)
	assert.Equal(t, []string{"ca.crt", "client.yaml"}, slices.Sorted(func(yield func(string) bool) {
		for k := range got.secret.Data {
			if !yield(k) {
				return
			}
		}
	}))
	assert.Equal(t, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", string(got.secret.Data["ca.crt"]))
	// What the adapter parses: prometheus/common's format, strictly.
	cfg, err := promconfig.LoadHTTPConfig(string(got.secret.Data["client.yaml"]))
	require.NoError(t, err, string(got.secret.Data["client.yaml"]))
	assert.Equal(t, "ca.crt", cfg.TLSConfig.CAFile)
	assert.Equal(t, "thanos-query.monitoring.svc", cfg.TLSConfig.ServerName)
	assert.Equal(t, "/var/run/secrets/kubernetes.io/serviceaccount/token", cfg.Authorization.CredentialsFile)
	assert.Equal(t, []string{"garden"}, cfg.HTTPHeaders.Headers["X-Scope-OrgID"].Values)

	require.NotNil(t, got.volume)
	require.NotNil(t, got.volume.Secret)
	assert.Equal(t, "seedscaler-adapter-prometheus", got.volume.Secret.SecretName)
	assert.Empty(t, got.volume.Secret.Items, "every key of the Secret is a file")
	require.NotNil(t, got.mount)
	assert.Equal(t, corev1.VolumeMount{Name: "prometheus-client", MountPath: adapterClientMount, ReadOnly: true}, *got.mount, "read-only, and no subPath, which the kubelet never updates")
	assert.Equal(t, "--prometheus-client-config="+adapterClientMount+"/client.yaml", got.flag)
}

// A Secret the operator manages is mounted instead, and the flag names its key.
func TestAdapterClientConfigurationFromAnExistingSecret(t *testing.T) {
	got := renderAdapterClient(t, "--set", "adapter.prometheus.clientConfig.existingSecret=thanos-client",
		"--set", "adapter.prometheus.clientConfig.key=thanos.yaml")
	assert.Nil(t, got.secret, "the chart writes no Secret of its own")
	require.NotNil(t, got.volume)
	require.NotNil(t, got.volume.Secret)
	assert.Equal(t, "thanos-client", got.volume.Secret.SecretName)
	require.NotNil(t, got.mount)
	assert.True(t, got.mount.ReadOnly)
	assert.Empty(t, got.mount.SubPath)
	assert.Equal(t, "--prometheus-client-config="+adapterClientMount+"/thanos.yaml", got.flag)
}

// The schema checks the client configuration as the adapter will: misspelled fields,
// secret references the adapter cannot resolve, and values that exclude each other fail
// the install with their path.
func TestSchemaRejectsBadAdapterClientConfigurations(t *testing.T) {
	const base = "adapter.prometheus.clientConfig."
	cases := []struct {
		name string
		set  []string
		want string
	}{
		{"misspelled field", []string{base + "inline.basic_auth.username=a", base + "inline.basic_auth.passwrd_file=p"},
			"/adapter/prometheus/clientConfig/inline/basic_auth': additional properties 'passwrd_file' not allowed"},
		{"unknown section", []string{base + "inline.tls.ca_file=ca.crt"}, "additional properties 'tls' not allowed"},
		{"secret reference", []string{base + "inline.basic_auth.password_ref=x"}, "additional properties 'password_ref' not allowed"},
		{"unknown TLS version", []string{base + "inline.tls_config.min_version=TLS9"}, "/adapter/prometheus/clientConfig/inline/tls_config/min_version"},
		{"oauth2 without token URL", []string{base + "inline.oauth2.client_id=seedscaler"}, "missing property 'token_url'"},
		{"inline and an existing Secret", []string{base + "inline.basic_auth.username=a", base + "existingSecret=mine"}, "/adapter/prometheus/clientConfig/inline"},
		{"files without a configuration", []string{base + "files.password=x"}, "/adapter/prometheus/clientConfig/inline"},
		{"key that is a path", []string{base + "key=../client.yaml"}, "/adapter/prometheus/clientConfig/key"},
		{"misspelled value", []string{"adapter.prometheus.clientConfg.existingSecret=mine"}, "additional properties 'clientConfg' not allowed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assertSchemaRejects(t, tc.set, tc.want) })
	}

	out, err := helm(t, "template", "seedscaler", chartDir(t), "--kube-version", kubeVersion,
		"--set", base+"inline.basic_auth.username=a", "--set", base+"inline.basic_auth.password_file=client.yaml", "--set", base+"files.client\\.yaml=x")
	require.Error(t, err, "a file named like the configuration's key")
	assert.Contains(t, out, "adapter.prometheus.clientConfig.files.client.yaml is the configuration's own key")
}
