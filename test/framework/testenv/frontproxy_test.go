//go:build integration

package testenv

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An environment with the aggregation layer writes the front proxy's certificates to a
// directory of its own; Stop removes it, so runs leave nothing in the temp directory.
func TestStopRemovesTheFrontProxyCertificates(t *testing.T) {
	env, err := Start(Options{Aggregation: true})
	require.NoError(t, err)
	dir := env.frontProxyDir
	assert.FileExists(t, dir+"/front-proxy-ca.crt")
	require.NoError(t, env.Stop())
	assert.NoDirExists(t, dir)
}
