package testenv

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// FreePort returns a loopback port nothing listens on, the kernel's pick (so that tests
// running at the same time do not collide), for a server that binds it a moment later.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }() // nothing was sent: a failed close loses nothing
	return l.Addr().(*net.TCPAddr).Port, nil
}

// FreeLoopbackPort is FreePort for a test, which fails when there is none.
func FreeLoopbackPort(t testing.TB) int {
	t.Helper()
	port, err := FreePort()
	require.NoError(t, err)
	return port
}

// FreeLoopbackAddr is FreeLoopbackPort as host:port on 127.0.0.1.
func FreeLoopbackAddr(t testing.TB) string {
	t.Helper()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(FreeLoopbackPort(t)))
}
