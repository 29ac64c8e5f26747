package promrunner

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/internal/testenv"
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

// A real Prometheus scrapes itself and answers a query; killed, it stops answering;
// restarted, it answers again.
func TestPrometheusScrapesAndSurvivesARestart(t *testing.T) {
	bin, err := testenv.Tool("prometheus")
	require.NoError(t, err)
	addr, err := FreeLoopbackAddress()
	require.NoError(t, err)
	ctx := context.Background()
	p, err := Start(ctx, Options{Binary: bin, ListenAddress: addr, Targets: []Target{{Job: "self", Addresses: []string{addr}}}})
	require.NoError(t, err)
	defer p.Stop()

	up := func() (string, error) {
		resp, err := http.Get(p.URL + "/api/v1/query?query=" + url.QueryEscape(`up{job="self"}`))
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		var r struct {
			Data struct {
				Result []struct {
					Value []any `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			return "", err
		}
		if len(r.Data.Result) == 0 {
			return "", fmt.Errorf("no sample yet")
		}
		return fmt.Sprint(r.Data.Result[0].Value[1]), nil
	}
	require.Eventually(t, func() bool { v, err := up(); return err == nil && v == "1" }, 30*time.Second, 200*time.Millisecond)

	require.NoError(t, p.Kill())
	_, err = up()
	assert.Error(t, err, "a killed prometheus must not answer")

	require.NoError(t, p.Restart(ctx))
	require.Eventually(t, func() bool { v, err := up(); return err == nil && v == "1" }, 30*time.Second, 200*time.Millisecond)
}
