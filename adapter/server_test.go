package adapter

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Prometheus' answers come uncompressed unless --prometheus-compression asks for gzip,
// and a gzipped answer is read inflated.
func TestPrometheusAnswersAreUncompressedUnlessAskedFor(t *testing.T) {
	encodings := make(chan string, 1)
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		encodings <- r.Header.Get("Accept-Encoding")
		if r.Header.Get("Accept-Encoding") != "gzip" {
			_, _ = io.WriteString(w, "answer")
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		gz := gzip.NewWriter(w)
		_, _ = io.WriteString(gz, "answer")
		_ = gz.Close()
	}))
	t.Cleanup(prom.Close)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--prometheus-compression"}, "gzip"},
	} {
		o := NewOptions()
		fs := pflag.NewFlagSet("adapter", pflag.ContinueOnError)
		o.AddFlags(fs)
		require.NoError(t, fs.Parse(append([]string{"--prometheus-url=" + prom.URL}, tc.args...)))
		client, _, err := o.prometheusClient()
		require.NoError(t, err)
		resp, err := client.Get(prom.URL)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, tc.want, <-encodings, "Accept-Encoding with flags %v", tc.args)
		assert.Equal(t, "answer", string(body), "the answer with flags %v", tc.args)
	}
}
