package cluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/seedscaler/seedscaler/test/framework/pki"
)

// The users of the cluster's components, as kubeadm names them, so that the kube-apiserver's
// default RBAC bindings apply to them.
var users = []struct {
	file, name string
	groups     []string
}{
	{"admin", "kubernetes-admin", []string{"system:masters"}},
	{"kubelet", "system:node:" + NodeName, []string{"system:nodes"}},
	{"controller-manager", "system:kube-controller-manager", nil},
	{"scheduler", "system:kube-scheduler", nil},
	{"kube-proxy", "system:kube-proxy", nil},
}

// writePKI makes the cluster's CA, the kube-apiserver's serving and kubelet client
// certificates, the front proxy's CA and client certificate (the aggregation layer), the
// service account signing key, and a kubeconfig per user.
func (c *Cluster) writePKI() error {
	dir := filepath.Join(c.Dir, "pki")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	write := func(name string, data []byte) error { return os.WriteFile(filepath.Join(dir, name), data, 0o600) }

	ca, err := pki.NewCA("seedscaler-cluster-ca")
	if err != nil {
		return err
	}
	serving, err := ca.NewServingCert("kubernetes", "kubernetes.default", "kubernetes.default.svc",
		"kubernetes.default.svc.cluster.local", "localhost", NodeIP, APIServerServiceIP, "127.0.0.1")
	if err != nil {
		return err
	}
	kubeletClient, err := ca.NewClientCert("kube-apiserver-kubelet-client", "system:masters")
	if err != nil {
		return err
	}
	frontProxyCA, err := pki.NewCA("seedscaler-cluster-front-proxy-ca")
	if err != nil {
		return err
	}
	frontProxy, err := frontProxyCA.NewClientCert("front-proxy-client")
	if err != nil {
		return err
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	saDER, err := x509.MarshalPKCS8PrivateKey(saKey)
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"ca.crt":                     ca.CertPEM(),
		"apiserver.crt":              serving.CertPEM,
		"apiserver.key":              serving.KeyPEM,
		"apiserver-kubelet.crt":      kubeletClient.CertPEM,
		"apiserver-kubelet.key":      kubeletClient.KeyPEM,
		"front-proxy-ca.crt":         frontProxyCA.CertPEM(),
		"front-proxy-client.crt":     frontProxy.CertPEM,
		"front-proxy-client.key":     frontProxy.KeyPEM,
		"service-account.key":        pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: saDER}),
		"service-account-public.key": mustPublicPEM(&saKey.PublicKey),
	}
	for name, data := range files {
		if err := write(name, data); err != nil {
			return err
		}
	}
	for _, u := range users {
		pair, err := ca.NewClientCert(u.name, u.groups...)
		if err != nil {
			return err
		}
		cfg := clientcmdapi.NewConfig()
		cfg.Clusters["seedscaler"] = &clientcmdapi.Cluster{Server: "https://" + APIServerAddress, CertificateAuthorityData: ca.CertPEM()}
		cfg.AuthInfos[u.file] = &clientcmdapi.AuthInfo{ClientCertificateData: pair.CertPEM, ClientKeyData: pair.KeyPEM}
		cfg.Contexts["seedscaler"] = &clientcmdapi.Context{Cluster: "seedscaler", AuthInfo: u.file, Namespace: "default"}
		cfg.CurrentContext = "seedscaler"
		if err := clientcmd.WriteToFile(*cfg, filepath.Join(c.Dir, u.file+".kubeconfig")); err != nil {
			return err
		}
	}
	return nil
}

func mustPublicPEM(pub *ecdsa.PublicKey) []byte {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		panic(err) // a freshly generated P-256 key always marshals
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

func (c *Cluster) path(parts ...string) string {
	return filepath.Join(append([]string{c.Dir}, parts...)...)
}

// writeConfigs writes containerd's, the CNI network's, the kubelet's, kube-proxy's and
// CoreDNS' configuration.
func (c *Cluster) writeConfigs(cgroupV1 bool) error {
	for _, d := range []string{"containerd", "cni/net.d", "cni/ipam", "kubelet", "pod-logs"} {
		if err := os.MkdirAll(c.path(d), 0o755); err != nil {
			return err
		}
	}
	files := map[string]string{
		"containerd/config.toml": fmt.Sprintf(`version = 2
root = %[1]q
state = %[2]q
[grpc]
  address = %[3]q
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %[4]q
  # The machine lacks CAP_SYS_RESOURCE: the pause container's -998 OOM score cannot be set.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = %[5]q
    conf_dir = %[6]q
  [plugins."io.containerd.grpc.v1.cri".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
`, c.path("containerd", "root"), c.path("containerd", "state"), c.containerdSocket(), PauseImage, c.cniBinDir, c.path("cni", "net.d")),

		// Pods get routes to the pod and Service ranges only, no default route: nothing in a
		// pod reaches past this machine.
		"cni/net.d/10-seedscaler.conflist": fmt.Sprintf(`{
  "cniVersion": "1.0.0",
  "name": "seedscaler",
  "plugins": [
    {
      "type": "bridge", "bridge": %[1]q, "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": {
        "type": "host-local", "dataDir": %[2]q,
        "ranges": [[{"subnet": %[3]q, "gateway": %[4]q}]],
        "routes": [{"dst": %[3]q}, {"dst": %[5]q}]
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
`, Bridge, c.path("cni", "ipam"), PodCIDR, NodeIP, ServiceCIDR),

		"kubelet/config.yaml": fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: %[1]s
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: %[2]q}
authorization: {mode: Webhook}
clusterDomain: cluster.local
clusterDNS: [%[1]s]
resolvConf: ""
containerRuntimeEndpoint: unix://%[3]s
cgroupDriver: cgroupfs
failCgroupV1: %[4]t
failSwapOn: false
podLogsDir: %[5]q
# Images are imported, never pulled: never collect them, never evict for disk pressure.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 1%%, imagefs.available: 1%%}
serializeImagePulls: false
# ConfigMap and Secret volumes follow their objects within seconds, not a minute: the
# operator's Prometheus sees a new ServiceMonitor soon after it is created.
syncFrequency: 10s
`, NodeIP, c.path("pki", "ca.crt"), c.containerdSocket(), !cgroupV1, c.path("pod-logs")),

		"kube-proxy.yaml": fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clientConnection: {kubeconfig: %[1]q}
hostnameOverride: %[2]s
clusterCIDR: %[3]s
bindAddress: 127.0.0.1
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 127.0.0.1:10256
nodePortAddresses: [%[4]s/32]
conntrack: {maxPerCore: 0}
iptables: {localhostNodePorts: false}
`, c.path("kube-proxy.kubeconfig"), NodeName, PodCIDR, NodeIP),

		// Only cluster names; anything else is refused, not forwarded.
		"Corefile": fmt.Sprintf(`cluster.local:53 in-addr.arpa:53 {
    bind %[1]s
    errors
    health 127.0.0.1:%[2]d
    ready 127.0.0.1:%[3]d
    kubernetes cluster.local in-addr.arpa {
        kubeconfig %[4]s seedscaler
        pods insecure
    }
    cache 30
}
`, NodeIP, corednsHealthPort, corednsReadyPort, c.path("admin.kubeconfig")),
	}
	for name, data := range files {
		if err := os.WriteFile(c.path(name), []byte(strings.TrimLeft(data, "\n")), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cluster) containerdSocket() string { return c.path("containerd", "containerd.sock") }
