package testenv

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

// FreePort returns a loopback port nothing listens on, the kernel's pick, for a server that
// binds it a moment later.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }() // nothing was sent: a failed close loses nothing
	return l.Addr().(*net.TCPAddr).Port, nil
}

// FreeLoopbackAddr returns a loopback address, host:port, that nothing listens on: a test's
// server binds it a moment later. The port is the kernel's pick, so tests running at the
// same time do not collide.
func FreeLoopbackAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// FreeLoopbackPort is the port of FreeLoopbackAddr.
func FreeLoopbackPort(t testing.TB) int {
	t.Helper()
	_, port, err := net.SplitHostPort(FreeLoopbackAddr(t))
	require.NoError(t, err)
	p, err := net.LookupPort("tcp", port)
	require.NoError(t, err)
	return p
}
