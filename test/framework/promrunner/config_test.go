package promrunner

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
	"sigs.k8s.io/yaml"
)

func TestConfigNamesEveryTarget(t *testing.T) {
	data, err := Config(Options{ScrapeInterval: 2 * time.Second, Targets: []Target{
		{Job: "exporter", Addresses: []string{"127.0.0.1:8080"}},
	}, RuleFiles: []string{"/rules.yaml"}})
	require.NoError(t, err)
	assert.YAMLEq(t, `
global: {scrape_interval: 2s, evaluation_interval: 2s}
scrape_configs:
- job_name: exporter
  static_configs: [{targets: ["127.0.0.1:8080"]}]
rule_files: [/rules.yaml]
`, string(data))
}

func TestWebConfigHashesThePasswords(t *testing.T) {
	data, err := WebConfig(Web{CertPEM: []byte("cert"), KeyPEM: []byte("key"), Users: map[string]string{"adapter": "s3cret"}})
	require.NoError(t, err)
	var cfg struct {
		TLS   map[string]string `json:"tls_server_config"`
		Users map[string]string `json:"basic_auth_users"`
	}
	require.NoError(t, yaml.UnmarshalStrict(data, &cfg))
	assert.Equal(t, map[string]string{"cert_file": "web-tls.crt", "key_file": "web-tls.key"}, cfg.TLS)
	require.Contains(t, cfg.Users, "adapter")
	assert.NoError(t, bcrypt.CompareHashAndPassword([]byte(cfg.Users["adapter"]), []byte("s3cret")))
	assert.NotContains(t, string(data), "s3cret")
}
