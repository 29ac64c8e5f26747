//go:build integration

package promrunner

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedscaler/seedscaler/test/framework/pki"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

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
	t.Cleanup(func() { assert.NoError(t, p.Stop()) })

	up := func() (float64, error) {
		series, err := p.Query(`up{job="self"}`)
		if err != nil {
			return 0, err
		}
		if len(series) == 0 {
			return 0, fmt.Errorf("no sample yet")
		}
		return series[0].Value, nil
	}
	require.Eventually(t, func() bool { v, err := up(); return err == nil && v == 1 }, 30*time.Second, 200*time.Millisecond)
	series, err := p.Query(`up{job="self"}`)
	require.NoError(t, err)
	require.Len(t, series, 1)
	assert.Equal(t, "self", series[0].Labels["job"])
	series, err = p.Query(`1 + 1`)
	require.NoError(t, err)
	assert.Equal(t, []Series{{Value: 2}}, series, "a scalar is one series without labels")
	_, err = p.Query(`sum(`)
	assert.ErrorContains(t, err, "sum(", "Prometheus refuses it, and the error names the query")
	_, err = p.Query(`up[1m]`)
	assert.ErrorContains(t, err, "a matrix answer")

	require.NoError(t, p.Kill())
	_, err = up()
	assert.Error(t, err, "a killed prometheus must not answer")

	require.NoError(t, p.Restart(ctx))
	require.Eventually(t, func() bool { v, err := up(); return err == nil && v == 1 }, 30*time.Second, 200*time.Millisecond)
}

// A Prometheus with a web configuration serves HTTPS with its certificate and answers
// only the basic auth users; a changed password applies at the next request.
func TestPrometheusServesTLSWithBasicAuth(t *testing.T) {
	bin, err := testenv.Tool("prometheus")
	require.NoError(t, err)
	ca, err := pki.NewCA("prometheus-ca")
	require.NoError(t, err)
	serving, err := ca.NewServingCert("localhost", "127.0.0.1")
	require.NoError(t, err)
	web := Web{CertPEM: serving.CertPEM, KeyPEM: serving.KeyPEM, Users: map[string]string{"adapter": "first"}}
	p, err := Start(context.Background(), Options{Binary: bin, Web: &web})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, p.Stop()) })
	require.Regexp(t, `^https://127\.0\.0\.1:\d+$`, p.URL)

	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM())
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}}
	status := func(user, password string) int {
		req, err := http.NewRequest(http.MethodGet, p.URL+"/api/v1/query?query=1", nil)
		require.NoError(t, err)
		if user != "" {
			req.SetBasicAuth(user, password)
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusOK, status("adapter", "first"))
	assert.Equal(t, http.StatusUnauthorized, status("adapter", "wrong"))
	assert.Equal(t, http.StatusUnauthorized, status("", ""))

	plain, err := http.Get("http://" + p.opts.ListenAddress + "/api/v1/query?query=1")
	require.NoError(t, err)
	_ = plain.Body.Close()
	assert.Equal(t, http.StatusBadRequest, plain.StatusCode, "plain HTTP to the TLS port")

	require.NoError(t, p.SetWeb(Web{CertPEM: serving.CertPEM, KeyPEM: serving.KeyPEM, Users: map[string]string{"adapter": "second"}}))
	assert.Equal(t, http.StatusUnauthorized, status("adapter", "first"))
	assert.Equal(t, http.StatusOK, status("adapter", "second"))
	require.NoError(t, p.SetTargets(nil), "the runner reloads with the new password")
}
