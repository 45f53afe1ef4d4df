package hosttls

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDeriveCAIsDeterministic(t *testing.T) {
	a, err := DeriveCA("s3cret")
	require.NoError(t, err)
	b, err := DeriveCA("s3cret")
	require.NoError(t, err)
	require.True(t, bytes.Equal(a.Cert.Raw, b.Cert.Raw), "two processes holding the secret derive the same authority")
	c, err := DeriveCA("other")
	require.NoError(t, err)
	require.False(t, bytes.Equal(a.Cert.RawSubjectPublicKeyInfo, c.Cert.RawSubjectPublicKeyInfo))
	_, err = DeriveCA("")
	require.Error(t, err)
}

// handshake serves a host certificate for serverAddr issued from
// serverSecret and dials it as dialAddr trusting clientSecret's authority.
func handshake(t *testing.T, serverSecret, clientSecret, serverAddr, dialAddr string) error {
	t.Helper()
	sc, err := ServerConfig(serverSecret, serverAddr)
	require.NoError(t, err)
	cc, err := ClientConfig(clientSecret)
	require.NoError(t, err)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", sc)
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			_ = c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	host, _, _ := net.SplitHostPort(dialAddr)
	cc.ServerName = host
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", ln.Addr().String(), cc)
	if err == nil {
		c.Close()
	}
	return err
}

func TestHandshake(t *testing.T) {
	require.NoError(t, handshake(t, "s3cret", "s3cret", "127.0.0.1:7443", "127.0.0.1:7443"))
	require.NoError(t, handshake(t, "s3cret", "s3cret", "worker-1.internal:7443", "worker-1.internal:7443"))
}

func TestHandshakeWrongSecretFails(t *testing.T) {
	err := handshake(t, "s3cret", "another secret", "127.0.0.1:7443", "127.0.0.1:7443")
	require.Error(t, err)
	require.Contains(t, err.Error(), "certificate signed by unknown authority")
}

func TestHandshakeOtherHostsCertificateFails(t *testing.T) {
	// A host holding the secret still cannot answer for another's address.
	err := handshake(t, "s3cret", "s3cret", "10.0.0.5:7443", "10.0.0.6:7443")
	require.Error(t, err)
	require.Contains(t, err.Error(), "10.0.0.6")
}

func TestRenewerIssuesBeforeExpiry(t *testing.T) {
	ca, err := DeriveCA("s3cret")
	require.NoError(t, err)
	r := &renewer{ca: ca, addr: "10.0.0.5:7443"}
	now := time.Now()
	first, err := r.get(now)
	require.NoError(t, err)
	same, err := r.get(now.Add(leafLife / 2))
	require.NoError(t, err)
	require.Same(t, first, same)
	next, err := r.get(now.Add(leafLife - time.Hour))
	require.NoError(t, err)
	require.NotSame(t, first, next)
	require.True(t, next.Leaf.NotAfter.After(first.Leaf.NotAfter))
	_, err = next.Leaf.Verify(x509Opts(ca, now.Add(leafLife-time.Hour)))
	require.NoError(t, err)
}

func x509Opts(ca *CA, at time.Time) x509.VerifyOptions {
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	return x509.VerifyOptions{Roots: pool, CurrentTime: at, DNSName: "10.0.0.5"}
}
