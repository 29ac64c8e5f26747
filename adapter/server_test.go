package adapter

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPrometheusAnswersAreUncompressedUnlessAskedFor(t *testing.T) {
	encodings := make(chan string, 1)
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		encodings <- r.Header.Get("Accept-Encoding")
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
		require.NoError(t, fs.Parse(tc.args))
		resp, err := (&http.Client{Transport: o.prometheusTransport()}).Get(prom.URL)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, tc.want, <-encodings, "Accept-Encoding with flags %v", tc.args)
	}
}
