package pki

import (
	"crypto/tls"
	"crypto/x509"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServingCertVerifiesAgainstItsCA(t *testing.T) {
	ca, err := NewCA("test-ca")
	require.NoError(t, err)
	kp, err := ca.NewServingCert("adapter.seedscaler.svc", "127.0.0.1")
	require.NoError(t, err)

	pair, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	require.NoError(t, err)

	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(ca.CertPEM()))
	for _, host := range []string{"adapter.seedscaler.svc", "127.0.0.1"} {
		_, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host})
		assert.NoError(t, err, host)
	}
	_, err = leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "other.svc"})
	assert.Error(t, err, "a certificate must not verify for a host it does not name")
}

func TestClientCertCarriesUserAndGroups(t *testing.T) {
	ca, err := NewCA("front-proxy-ca")
	require.NoError(t, err)
	kp, err := ca.NewClientCert("front-proxy-client", "system:masters")
	require.NoError(t, err)
	pair, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	require.NoError(t, err)
	assert.Equal(t, "front-proxy-client", leaf.Subject.CommonName)
	assert.Equal(t, []string{"system:masters"}, leaf.Subject.Organization)
	assert.Equal(t, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, leaf.ExtKeyUsage)
	_, err = ca.NewServingCert()
	assert.Error(t, err, "a serving certificate without hosts is refused")
}
