package cluster

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A component is up once its health endpoint answers 200; another status or no answer
// says why not.
func TestAnswersOK(t *testing.T) {
	var status atomic.Int32
	status.Store(http.StatusServiceUnavailable)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(int(status.Load())) }))
	check := answersOK(server.URL + "/healthz")

	done, why := check(context.Background())
	assert.False(t, done)
	assert.Equal(t, "503 Service Unavailable", why)

	status.Store(http.StatusOK)
	done, why = check(context.Background())
	assert.True(t, done)
	assert.Equal(t, "200 OK", why)

	server.Close()
	done, why = check(context.Background())
	assert.False(t, done)
	assert.Contains(t, why, "connection refused")
}
